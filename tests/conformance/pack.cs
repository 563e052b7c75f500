# Conformance: packing bytes into words and back (pack_le/pack_be, unpack_le/unpack_be), width changes
# (u8(x), u32(x): truncation and zero extension) and whole-array rotations (rotl_be/rotr_be).

family pack8(rounds) {
  block u8[16];
  key   u8[16];
  key_schedule(K) -> rk: u8[rounds][16] {
    for i in 0..rounds { rk[i] = rotl_be(K, 8 * i + 3); }
  }
  encrypt(X, rk) {
    for i in 0..rounds {
      let a = [pack_le([X[4 * j], X[4 * j + 1], X[4 * j + 2], X[4 * j + 3]]) <<< 7 for j in 0..4];
      let b = [pack_be([X[2 * j], X[2 * j + 1]]) + u16(X[(j + 3) % 16]) for j in 0..8];
      X = [unpack_be(a[j / 4], 4)[j % 4] ^ u8(b[j / 2] >> (8 * (j % 2))) for j in 0..16] ^ rk[i];
    }
  }
  decrypt(X, rk) {
    for i in 0..rounds { X = rotr_be(X ^ rk[i], 13); }
  }
}

family pack32(rounds) {
  block u32[4] big;
  key   u32[4] big;
  key_schedule(K) -> rk: u32[rounds][4] {
    for i in 0..rounds { rk[i] = [k ^ i for k in K]; }
  }
  encrypt(X, rk) {
    for i in 0..rounds {
      X = [pack_le([b + 1 for b in unpack_be(x, 4)]) ^ u32(u16(x >> 5)) for x in X ^ rk[i]];
      X = [unpack_le((u64(X[j]) << 17) | u64(X[(j + 1) % 4]), 2)[1] ^ u32(u64(X[j]) >> 3) for j in 0..4];
    }
  }
  decrypt(X, rk) {
    for i in 0..rounds { X = rotl_be(X, 40) ^ rk[i]; }
  }
}

cipher pack_u8  = pack8(rounds = 2);
cipher pack_u32 = pack32(rounds = 2);
