# Conformance: bitwise logic (xor, and, or, not, and-not, or-not) on u8, u16, u32 and u64 words.
# Each spec in tests/conformance/ holds one construct; tests/differential/test_conformance_matrix.py runs every
# variant on every target against the interpreter (decrypt need not invert encrypt: both are compared).

family logic(w, rounds) {
  block word(w)[128 / w] little;
  key   word(w)[128 / w] little;
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [k ^ (i + 1) for k in K]; }
  }
  encrypt(X, rk) {
    let n = len(X);
    for i in 0..rounds {
      X = [((X[j] ^ rk[i][j]) & ~X[(j + 1) % n]) | (X[(j + 2) % n] ^ ~rk[i][(j + 1) % n]) for j in 0..n];
    }
  }
  decrypt(X, rk) {
    let n = len(X);
    for i in 0..rounds {
      X = [(X[j] | ~X[(j + 1) % n]) ^ (X[(j + 3) % n] & rk[i][j]) for j in 0..n];
    }
  }
}

cipher logic_u8  = logic(w = 8, rounds = 2);
cipher logic_u16 = logic(w = 16, rounds = 2);
cipher logic_u32 = logic(w = 32, rounds = 2);
cipher logic_u64 = logic(w = 64, rounds = 2);
