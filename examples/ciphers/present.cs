# PRESENT — Bogdanov, Knudsen, Leander, Paar, Poschmann, Robshaw, Seurin, Vikkelsoe, "PRESENT: An
# Ultra-Lightweight Block Cipher", CHES 2007; ISO/IEC 29192-2.  64-bit block, 80- or 128-bit key, 31 rounds.
# The state b63..b0 is eight bytes, most significant first (byte 0 = b63..b56), as the paper prints it.

family present(rounds) {
  block u8[8];
  key   u8[10];                     # k79..k0, most significant byte first

  sbox S  = [0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd, 0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2];
  sbox Si = inverse(S);

  # pLayer: bit i of the state moves to bit P(i) = 16 i mod 63 (P(63) = 63); the inverse is 4 i mod 63
  const P  = [(16 * i) % 63 + (i / 63) * 63 for i in 0..64];
  const Pi = [(4 * i) % 63 + (i / 63) * 63 for i in 0..64];

  # K_i = the leftmost 64 bits of the key register; then rotate the register left by 61, pass its top
  # nibble k79..k76 through S and XOR the round counter i (1..31) into k19..k15.
  key_schedule(K) -> rk: u8[rounds + 1][8] {
    var R = K;
    for i in 0..rounds + 1 {
      rk[i] = [R[j] for j in 0..8];
      if i < rounds {
        R = rotl_be(R, 61);
        R[0] = (S[R[0]] & 0xf0) | (R[0] & 0x0f);   # S works on every nibble: keep the low one
        R[7] ^= (i + 1) >> 1;                      # k19..k16
        R[8] ^= ((i + 1) & 1) << 7;                # k15
      }
    }
  }

  encrypt(X, rk) {
    for i in 0..rounds {
      X = bitperm_be([S[x] for x in X ^ rk[i]], P);
    }
    X = X ^ rk[rounds];
  }

  decrypt(X, rk) {
    X = X ^ rk[rounds];
    for r in 0..rounds {
      X = [Si[x] for x in bitperm_be(X, Pi)] ^ rk[rounds - 1 - r];
    }
  }
}

cipher present80 = present(rounds = 31);
