# HIGHT — TTAS.KO-12.0040/R1, ISO/IEC 18033-3 (Hong et al., CHES 2006).
# 64-bit block, 128-bit key, 32 rounds, all on bytes.  Byte order as Crypto++ and the KISA reference code:
# byte 0 = P0 / K0 (the specification prints P7..P0 and K15..K0).

family hight(rounds) {
  block u8[8];
  key   u8[16];

  fn F0(x: u8) -> u8 = (x <<< 1) ^ (x <<< 2) ^ (x <<< 7);
  fn F1(x: u8) -> u8 = (x <<< 3) ^ (x <<< 4) ^ (x <<< 6);

  # Whitening keys WK0..7 and subkeys SK0..4r-1.
  key_schedule(MK) -> wk: u8[8], sk: u8[4 * rounds] {
    wk = [MK[12], MK[13], MK[14], MK[15], MK[0], MK[1], MK[2], MK[3]];
    var d = 0x5a;                                # delta_0; delta_i is a 7-bit LFSR, s(i+7) = s(i+3) ^ s(i)
    for n in 0..4 * rounds {                     # n = 16i + j
      let i = n / 16;
      let j = n % 16;
      # SK[16i+j] = MK[(j - i) mod 8] + delta[16i+j],  SK[16i+j+8] = MK[(j - i) mod 8 + 8] + delta[16i+j+8]
      if j < 8 { sk[n] = MK[(j - i) % 8] + d; }
      else     { sk[n] = MK[(j - i) % 8 + 8] + d; }
      d = (d >> 1) | (((d ^ (d >> 3)) & 1) << 6);
    }
  }

  encrypt(X, wk, sk) {
    X[0] += wk[0]; X[2] ^= wk[1]; X[4] += wk[2]; X[6] ^= wk[3];          # initial transformation
    for i in 0..rounds {
      let x0 = X[7] ^ (F0(X[6]) + sk[4 * i + 3]);
      let x2 = X[1] + (F1(X[0]) ^ sk[4 * i]);
      let x4 = X[3] ^ (F0(X[2]) + sk[4 * i + 1]);
      let x6 = X[5] + (F1(X[4]) ^ sk[4 * i + 2]);
      if i < rounds - 1 { X = [x0, X[0], x2, X[2], x4, X[4], x6, X[6]]; }
      else              { X = [X[0], x2, X[2], x4, X[4], x6, X[6], x0]; }  # the last round does not rotate
    }
    X[0] += wk[4]; X[2] ^= wk[5]; X[4] += wk[6]; X[6] ^= wk[7];          # final transformation
  }

  decrypt(X, wk, sk) {
    X[0] -= wk[4]; X[2] ^= wk[5]; X[4] -= wk[6]; X[6] ^= wk[7];
    X = [X[7], X[0], X[1], X[2], X[3], X[4], X[5], X[6]];               # as if the last round had rotated
    for r in 0..rounds {
      let i = rounds - 1 - r;
      X = [X[1], X[2] - (F1(X[1]) ^ sk[4 * i]), X[3], X[4] ^ (F0(X[3]) + sk[4 * i + 1]),
           X[5], X[6] - (F1(X[5]) ^ sk[4 * i + 2]), X[7], X[0] ^ (F0(X[7]) + sk[4 * i + 3])];
    }
    X[0] -= wk[0]; X[2] ^= wk[1]; X[4] -= wk[2]; X[6] ^= wk[3];
  }
}

cipher hight = hight(rounds = 32);
