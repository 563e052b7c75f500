# Conformance: GF(2^8) multiplication by constants (AES's field and another one) on u8 words.

family gmul(poly, rounds) {
  block u8[16];
  key   u8[16];
  gf poly;
  key_schedule(K) -> rk: u8[rounds][16] {
    for i in 0..rounds { rk[i] = [gmul(k, 3) ^ i for k in K]; }
  }
  encrypt(X, rk) {
    for i in 0..rounds { X = [gmul(X[j], 2) ^ gmul(X[(j + 1) % 16], 3) ^ rk[i][j] for j in 0..16]; }
  }
  decrypt(X, rk) {
    for i in 0..rounds { X = [gmul(X[j] ^ rk[i][j], 0x0e) ^ gmul(X[(j + 5) % 16], 0x9d) for j in 0..16]; }
  }
}

cipher gmul_aes = gmul(poly = 0x11b, rounds = 2);
cipher gmul_sm4 = gmul(poly = 0x1f5, rounds = 2);
