# Conformance: rotations by byte multiples and by other amounts, shifts left and right, on u8, u16, u32
# and u64 words (a u8 has no byte-multiple rotation: its half-word rotation is by 4).

family rotate(w, rounds) {
  block word(w)[128 / w] little;
  key   word(w)[128 / w] little;
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [(k <<< 1) ^ i for k in K]; }
  }
  encrypt(X, rk) {
    let n = len(X);
    for i in 0..rounds {
      X = [(X[j] <<< (w / 2)) ^ (X[(j + 1) % n] >>> 3) ^ (rk[i][j] <<< 5) for j in 0..n];
      if w > 8 {
        X = [(X[j] <<< 8) ^ (X[j] >>> 8) ^ (X[(j + 1) % n] <<< (w - 8)) for j in 0..n];
      }
    }
  }
  decrypt(X, rk) {
    let n = len(X);
    for i in 0..rounds {
      X = [(X[j] << 1) ^ (X[(j + 1) % n] >> (w - 1)) ^ ((X[j] ^ rk[i][j]) >> 3) for j in 0..n];
    }
  }
}

cipher rotate_u8  = rotate(w = 8, rounds = 2);
cipher rotate_u16 = rotate(w = 16, rounds = 2);
cipher rotate_u32 = rotate(w = 32, rounds = 2);
cipher rotate_u64 = rotate(w = 64, rounds = 2);
