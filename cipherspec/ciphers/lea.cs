# LEA — KISA TTAS.KO-12.0223 / KS X 3246 (Hong et al., WISA 2013).
# 128-bit block as four little-endian 32-bit words; 128/192/256-bit keys; 24/28/32 rounds.

family lea(nk, rounds) {
  block u32[4] little;
  key   u32[nk] little;

  const delta: u32[8] = [0xc3efe9db, 0x44626b02, 0x79e27c8a, 0x78df30ec,
                         0x715ea49e, 0xc785da0a, 0xe04ef22a, 0xe5c40957];
  const shift = [1, 3, 6, 11, 13, 17];   # rotation of the j-th updated key word

  key_schedule(K) -> rk: u32[rounds][6] {
    var T = K;
    for i in 0..rounds {
      let d = delta[i % nk];
      if nk == 4 {
        for j in 0..4 { T[j] = (T[j] + (d <<< ((i + j) % 32))) <<< shift[j]; }
        rk[i] = [T[0], T[1], T[2], T[1], T[3], T[1]];
      } else {
        # LEA-192: the six words in place; LEA-256: a window sliding over eight words.
        for j in 0..6 {
          let t = (6 * i + j) % nk;
          T[t] = (T[t] + (d <<< ((i + j) % 32))) <<< shift[j];
          rk[i][j] = T[t];
        }
      }
    }
  }

  encrypt(X, rk) {
    for i in 0..rounds {
      X = [((X[0] ^ rk[i][0]) + (X[1] ^ rk[i][1])) <<< 9,
           ((X[1] ^ rk[i][2]) + (X[2] ^ rk[i][3])) >>> 5,
           ((X[2] ^ rk[i][4]) + (X[3] ^ rk[i][5])) >>> 3,
           X[0]];
    }
  }

  decrypt(X, rk) {
    for r in 0..rounds {
      let i = rounds - 1 - r;
      let x0 = X[3];
      let x1 = ((X[0] >>> 9) - (x0 ^ rk[i][0])) ^ rk[i][1];
      let x2 = ((X[1] <<< 5) - (x1 ^ rk[i][2])) ^ rk[i][3];
      let x3 = ((X[2] <<< 3) - (x2 ^ rk[i][4])) ^ rk[i][5];
      X = [x0, x1, x2, x3];
    }
  }
}

cipher lea128 = lea(nk = 4, rounds = 24);
cipher lea192 = lea(nk = 6, rounds = 28);
cipher lea256 = lea(nk = 8, rounds = 32);
