# Byte lookups on wider words (test ciphers, not real ones), the shapes of SEED / Twofish (a u8 -> u32
# table on chosen bytes of a 32-bit word) and Camellia (a 64-bit word split into 8 bytes, a different
# S-box per byte position, byte XORs across positions, then packed back; 32-bit halves of a 64-bit word),
# and a u8 -> u64 table.
# Feistel rounds, so the round functions need not be invertible and the tables are formulas.

family ttab(rounds) {
  block u32[2] big;
  key   u32[2] big;
  const T: u32[256] = [((i * 0x9e3779b1) ^ (i << 13) ^ (i * i * 0x01000193)) % 0x100000000 for i in 0..256];
  sbox S = [(i * i * 37 + i * 11 + 5) % 256 for i in 0..256];

  fn G(x: u32) -> u32 {
    let b = unpack_be(x, 4);
    return T[b[0]] ^ (T[b[3]] <<< 8) ^ (u32(S[b[1]]) << 16) ^ u32(S[b[2]]);
  }

  key_schedule(K) -> rk: u32[rounds] {
    for i in 0..rounds { rk[i] = (K[i % 2] <<< (3 * i % 32)) ^ i; }
  }
  encrypt(X, rk) {
    for i in 0..rounds { X = [X[1] ^ G(X[0] + rk[i]), X[0]]; }
  }
  decrypt(X, rk) {
    for r in 0..rounds { let i = rounds - 1 - r; X = [X[1], X[0] ^ G(X[1] + rk[i])]; }
  }
}

family camlike(rounds) {
  block u64[2] big;
  key   u64[2] big;
  sbox S1 = [(i * i * 37 + i * 11 + 5) % 256 for i in 0..256];
  sbox S2 = [(i * i * i + 3 * i + 0x5a) % 256 for i in 0..256];
  sbox S3 = [(i * 167 + 13) % 256 for i in 0..256];
  sbox S4 = [((i ^ 0x3c) * 29 + (i >> 4)) % 256 for i in 0..256];

  fn F(x: u64, k: u64) -> u64 {
    let t = unpack_be(x ^ k, 8);
    let y = [S1[t[0]], S2[t[1]], S3[t[2]], S4[t[3]], S2[t[4]], S3[t[5]], S4[t[6]], S1[t[7]]];
    return pack_be([y[0] ^ y[2] ^ y[3] ^ y[5] ^ y[6] ^ y[7], y[0] ^ y[1] ^ y[3] ^ y[4] ^ y[6] ^ y[7],
                    y[0] ^ y[1] ^ y[2] ^ y[4] ^ y[5] ^ y[7], y[1] ^ y[2] ^ y[3] ^ y[4] ^ y[5] ^ y[6],
                    y[0] ^ y[1] ^ y[5] ^ y[6] ^ y[7], y[1] ^ y[2] ^ y[4] ^ y[6] ^ y[7],
                    y[2] ^ y[3] ^ y[4] ^ y[5] ^ y[7], (y[0] + y[3]) ^ y[4] ^ y[5] ^ (y[6] <<< 3)]);
  }
  # FL-like: 32-bit halves of a 64-bit word (trunc.u32, ops in 32-bit lanes, zext back)
  fn FL(x: u64, k: u64) -> u64 {
    let l = u32(x >> 32);
    let r = u32(x) ^ ((l & u32(k)) <<< 1);
    return (u64(l ^ (r | u32(k >> 32))) << 32) | u64(r);
  }
  fn FLi(y: u64, k: u64) -> u64 {
    let r = u32(y);
    let l = u32(y >> 32) ^ (r | u32(k >> 32));
    return (u64(l) << 32) | u64(r ^ ((l & u32(k)) <<< 1));
  }

  key_schedule(K) -> rk: u64[rounds], kl: u64[2] {
    for i in 0..rounds { rk[i] = (K[i % 2] <<< (15 * i % 64)) ^ i; }
    kl = [K[0] ^ K[1], K[1] <<< 17];
  }
  encrypt(X, rk, kl) {
    for i in 0..rounds {
      X = [X[1] ^ F(X[0], rk[i]), X[0]];
      if i == rounds / 2 { X = [FL(X[0], kl[0]), FLi(X[1], kl[1])]; }
    }
  }
  decrypt(X, rk, kl) {
    for r in 0..rounds {
      let i = rounds - 1 - r;
      if i == rounds / 2 { X = [FLi(X[0], kl[0]), FL(X[1], kl[1])]; }
      X = [X[1], X[0] ^ F(X[1], rk[i])];
    }
  }
}

# a u8 -> u64 table (Whirlpool / Kuznyechik-style lookups on 64-bit words): NEON looks it up as 8 byte
# planes, CUDA as two u32 tables (split_u64)
family t64(rounds) {
  block u64[2] little;
  key   u64[2] little;
  const T: u64[256] = [((i * 0x9e3779b97f4a7c15) ^ (i << 29) ^ (i * i * 0x100000001b3)) % 0x10000000000000000
                       for i in 0..256];

  fn G(x: u64) -> u64 {
    let b = unpack_le(x, 8);
    return T[b[0]] ^ (T[b[5]] <<< 24) ^ x;
  }

  key_schedule(K) -> rk: u64[rounds] {
    for i in 0..rounds { rk[i] = (K[i % 2] <<< (7 * i % 64)) + i; }
  }
  encrypt(X, rk) {
    for i in 0..rounds { X = [X[1] ^ G(X[0] - rk[i]), X[0]]; }
  }
  decrypt(X, rk) {
    for r in 0..rounds { let i = rounds - 1 - r; X = [X[1], X[0] ^ G(X[1] - rk[i])]; }
  }
}

cipher ttab6 = ttab(rounds = 6);
cipher camlike6 = camlike(rounds = 6);
cipher t64x4 = t64(rounds = 4);
