# Conformance: a 4-bit S-box (PRESENT's) applied to every nibble of u8, u16, u32 and u64 words, and its
# derived inverse.

family sbox4(w, rounds) {
  block word(w)[128 / w] little;
  key   word(w)[128 / w] little;
  sbox S  = [0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd, 0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2];
  sbox Si = inverse(S);
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [S[k] ^ i for k in K]; }
  }
  encrypt(X, rk) {
    for i in 0..rounds { X = [S[x] for x in X ^ rk[i]]; }
  }
  decrypt(X, rk) {
    for i in 0..rounds { X = [Si[x] for x in X] ^ rk[i]; }
  }
}

cipher sbox4_u8  = sbox4(w = 8, rounds = 2);
cipher sbox4_u16 = sbox4(w = 16, rounds = 2);
cipher sbox4_u32 = sbox4(w = 32, rounds = 2);
cipher sbox4_u64 = sbox4(w = 64, rounds = 2);
