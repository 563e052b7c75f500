# Conformance: bit-linear layers (cipherspec/bitlinear.py).  bitlinear_perm: a 4-bit S-box layer, then a
# bit permutation across the whole 64-bit block (every bit moves between bytes) with the round key --
# the analysis finds a bit permutation of 64 bits, the bitsliced lowering renames planes for it.
# bitlinear_near: the same, but one output bit is the XOR of two state bits (two bits to one position):
# a GF(2)-linear map that is not a permutation, which must not be treated as one.

family bitlinear(near, rounds) {
  block u8[8];
  key   u8[8];
  sbox S  = [0x6, 0x5, 0xc, 0xa, 0x1, 0xe, 0x7, 0x9, 0xb, 0x0, 0x3, 0xd, 0x8, 0xf, 0x4, 0x2];
  sbox Si = inverse(S);
  const P  = [(5 * i + 3) % 64 for i in 0..64];           # 5 is coprime to 64: a permutation
  const Pi = [(13 * (i + 61)) % 64 for i in 0..64];       # its inverse (5 * 13 = 65 = 1 mod 64)
  key_schedule(K) -> rk: u8[rounds + 1][8] {
    for i in 0..rounds + 1 { rk[i] = [S[k] ^ i for k in K]; }
  }
  encrypt(X, rk) {
    for i in 0..rounds {
      X = bitperm_be([S[x] for x in X ^ rk[i]], P);
      if near == 1 { X[0] ^= (X[5] >> 7) & 1; }           # bit 0 of byte 0 := bit 0 of byte 0 ^ bit 7 of byte 5
    }
    X = X ^ rk[rounds];
  }
  decrypt(X, rk) {
    X = X ^ rk[rounds];
    for r in 0..rounds {
      if near == 1 { X[0] ^= (X[5] >> 7) & 1; }
      X = [Si[x] for x in bitperm_be(X, Pi)] ^ rk[rounds - 1 - r];
    }
  }
}

cipher bitlinear_perm = bitlinear(near = 0, rounds = 3);
cipher bitlinear_near = bitlinear(near = 1, rounds = 3);
