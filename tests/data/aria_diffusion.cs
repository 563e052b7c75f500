# ARIA's diffusion layer A written naively (RFC 5794 2.4.3: each output byte the XOR of seven input bytes,
# 16 x 6 = 96 two-input XORs, no shared terms) — input for the XOR-network test.  A is an involution, so
# encrypt and decrypt are the same layer.  Not a cipher.
family adiff(rounds) {
  block u8[16];
  key   u8[16];
  const M = [[3, 4, 6, 8, 9, 13, 14], [2, 5, 7, 8, 9, 12, 15], [1, 4, 6, 10, 11, 12, 15], [0, 5, 7, 10, 11, 13, 14],
             [0, 2, 5, 8, 11, 14, 15], [1, 3, 4, 9, 10, 14, 15], [0, 2, 7, 9, 10, 12, 13], [1, 3, 6, 8, 11, 12, 13],
             [0, 1, 4, 7, 10, 13, 15], [0, 1, 5, 6, 11, 12, 14], [2, 3, 5, 6, 8, 13, 15], [2, 3, 4, 7, 9, 12, 14],
             [1, 2, 6, 7, 9, 11, 12], [0, 3, 6, 7, 8, 10, 13], [0, 3, 4, 5, 9, 11, 14], [1, 2, 4, 5, 8, 10, 15]];
  fn A(x: u8[16]) -> u8[16] =
    [x[M[j][0]] ^ x[M[j][1]] ^ x[M[j][2]] ^ x[M[j][3]] ^ x[M[j][4]] ^ x[M[j][5]] ^ x[M[j][6]] for j in 0..16];
  key_schedule(K) -> rk: u8[16] { rk = K; }
  encrypt(X, rk) { X = A(X); }
  decrypt(X, rk) { X = A(X); }
}
cipher aria_a = adiff(rounds = 1);
