# PIPO — Kim et al., "PIPO: A Lightweight Block Cipher with Efficient Higher-Order Masking Software
# Implementations", ICISC 2020; designers' code github.com/DFNC-Lab/Blockcipher_PIPO.
# 64-bit state as eight u8 rows X[0..7] (bit b of every row is column b; row 0 is the LSB of the S-box
# input); byte i = row i, i.e. the designers' printed integers byte-reversed.  128/256-bit keys, 13/15 rounds.

family pipo(nk, rounds) {
  block u8[8];
  key   u8[8 * nk];

  # S-layer: the designers' bitsliced circuit, the 8-bit S-box on all eight columns at once
  fn SLayer(x: u8[8]) -> u8[8] {
    var X = x;
    # S5_1 on rows 7..3
    X[7] ^= X[5] & X[6];
    X[4] ^= X[5] & X[7];
    X[5] ^= X[4] | X[3];
    X[6] ^= X[4];
    X[3] ^= X[7];
    X[7] ^= X[3] & X[6];
    # S3 on rows 2..0
    X[0] ^= X[2] & X[1];
    X[1] ^= X[2] | X[0];
    X[1] = ~X[1];
    X[2] ^= X[0] | X[1];
    # extend XOR
    X[7] ^= X[2]; X[6] ^= X[1]; X[5] ^= X[0];
    # S5_2 on copies of rows 7, 6, 5 (the rows keep their values: the output row renaming)
    var T0 = X[7]; var T1 = X[6]; var T2 = X[5];
    X[4] ^= X[3] & T0;
    X[4] ^= T1;
    T2 ^= X[4] | T1;
    T0 ^= T2;
    T1 ^= X[3];
    T2 |= T1;
    X[3] ^= X[4] | T0;
    T2 ^= T0;
    # truncate XOR
    X[2] ^= T0; X[1] ^= T2; X[0] ^= T1;
    return X;
  }

  fn InvSLayer(x: u8[8]) -> u8[8] {
    var X = x;
    var T0 = X[7]; var T1 = X[6]; var T2 = X[5]; let T3 = X[7];
    T2 ^= X[4] | T1;
    T0 ^= T2;
    X[3] ^= X[4] | T0;
    X[4] ^= T1;
    T1 ^= X[3];
    T2 |= T1;
    T2 ^= T0;
    X[4] ^= X[3] & T3;
    # extend XOR
    X[2] ^= T0; X[1] ^= T2; X[0] ^= T1;
    # truncate XOR
    X[7] ^= X[2]; X[6] ^= X[1]; X[5] ^= X[0];
    # inverse S5_1
    X[7] ^= X[3] & X[6];
    X[3] ^= X[7];
    X[6] ^= X[4];
    X[5] ^= X[4] | X[3];
    X[4] ^= X[5] & X[7];
    X[7] ^= X[5] & X[6];
    # inverse S3
    X[2] ^= X[0] | X[1];
    X[1] = ~X[1];
    X[1] ^= X[2] | X[0];
    X[0] ^= X[2] & X[1];
    return X;
  }

  # R-layer: row i rotated left by R[i] inside its byte
  const R = [0, 4, 1, 7, 6, 2, 3, 5];
  fn RLayer(X: u8[8]) -> u8[8] = [X[i] <<< R[i] for i in 0..8];
  fn InvRLayer(X: u8[8]) -> u8[8] = [X[i] >>> R[i] for i in 0..8];

  # RK_i = K_(i mod nk) (the 64-bit key pieces, K_0 = key bytes 0..7) with the round constant i in row 0
  key_schedule(K) -> rk: u8[rounds + 1][8] {
    for i in 0..rounds + 1 {
      rk[i] = [K[8 * (i % nk) + j] for j in 0..8];
      rk[i][0] ^= i;
    }
  }

  encrypt(X, rk) {
    X = X ^ rk[0];
    for i in 1..rounds + 1 {
      X = RLayer(SLayer(X)) ^ rk[i];
    }
  }

  decrypt(X, rk) {
    for r in 0..rounds {
      X = InvSLayer(InvRLayer(X ^ rk[rounds - r]));
    }
    X = X ^ rk[0];
  }
}

cipher pipo64_128 = pipo(nk = 2, rounds = 13);
cipher pipo64_256 = pipo(nk = 4, rounds = 15);
