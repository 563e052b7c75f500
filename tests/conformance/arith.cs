# Conformance: addition, subtraction and negation modulo 2^w on u8, u16, u32 and u64 words.

family arith(w, rounds) {
  block word(w)[128 / w] little;
  key   word(w)[128 / w] little;
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [k + (i + 1) for k in K]; }
  }
  encrypt(X, rk) {
    let n = len(X);
    for i in 0..rounds {
      X = [(X[j] + rk[i][j]) - (X[(j + 1) % n] + 0x5a) for j in 0..n];
    }
  }
  decrypt(X, rk) {
    let n = len(X);
    for i in 0..rounds {
      X = [-(X[j] - rk[i][j]) + X[(j + 1) % n] for j in 0..n];
    }
  }
}

cipher arith_u8  = arith(w = 8, rounds = 2);
cipher arith_u16 = arith(w = 16, rounds = 2);
cipher arith_u32 = arith(w = 32, rounds = 2);
cipher arith_u64 = arith(w = 64, rounds = 2);
