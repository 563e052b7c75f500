# CHAM — Koo et al., ICISC 2017; revised round counts from Roh et al., ICISC 2019.
# Four-branch ARX on w-bit words: CHAM-64/128 (w = 16), CHAM-128/128 and CHAM-128/256 (w = 32).
# Defaults are the REVISED 88 / 112 / 120 rounds; the original 80 / 80 / 96 are the same spec with `rounds`
# overridden.  Words are read big-endian (Crypto++ order: the paper's K[0] = 0x0100 is the bytes 01 00).

family cham(w, kw, rounds) {
  block word(w)[4] big;
  key   word(w)[kw] big;

  # RK[i] = K[i] ^ (K[i] <<< 1) ^ (K[i] <<< 8),  RK[(i + k/w) ^ 1] = K[i] ^ (K[i] <<< 1) ^ (K[i] <<< 11)
  key_schedule(K) -> rk: word(w)[2 * kw] {
    for i in 0..kw {
      rk[i] = K[i] ^ (K[i] <<< 1) ^ (K[i] <<< 8);
      rk[(i + kw) ^ 1] = K[i] ^ (K[i] <<< 1) ^ (K[i] <<< 11);
    }
  }

  # even rounds: X3' = ((X0 ^ i) + ((X1 <<< 1) ^ RK)) <<< 8;  odd rounds: the rotations 1 and 8 swap
  encrypt(X, rk) {
    for i in 0..rounds {
      let k = rk[i % (2 * kw)];
      if i % 2 == 0 { X = [X[1], X[2], X[3], ((X[0] ^ i) + ((X[1] <<< 1) ^ k)) <<< 8]; }
      else          { X = [X[1], X[2], X[3], ((X[0] ^ i) + ((X[1] <<< 8) ^ k)) <<< 1]; }
    }
  }

  decrypt(X, rk) {
    for r in 0..rounds {
      let i = rounds - 1 - r;
      let k = rk[i % (2 * kw)];
      if i % 2 == 0 { X = [((X[3] >>> 8) - ((X[0] <<< 1) ^ k)) ^ i, X[0], X[1], X[2]]; }
      else          { X = [((X[3] >>> 1) - ((X[0] <<< 8) ^ k)) ^ i, X[0], X[1], X[2]]; }
    }
  }
}

cipher cham64_128  = cham(w = 16, kw = 8, rounds = 88);   # original CHAM: rounds = 80
cipher cham128_128 = cham(w = 32, kw = 4, rounds = 112);  # original CHAM: rounds = 80
cipher cham128_256 = cham(w = 32, kw = 8, rounds = 120);  # original CHAM: rounds = 96
