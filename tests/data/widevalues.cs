# Values wider than the block words (NEON: limbs of the word width, cipherspec/passes/split_wide.py).
# wide4: u32 sums, differences and rotations in a u16[4] cipher (carries and borrows across limbs);
# wide8: u32 and u64 values packed from the bytes of a u8[8] block.

family wide(rounds) {
  block u16[4] little;
  key   u16[4] little;
  fn f(a: u16, b: u16) -> u16 = u16((u32(a) + u32(b)) >> 1);
  fn g(a: u16, b: u16) -> u16 = u16((((u32(a) << 16) | u32(b)) - u32(a ^ 0x9e37)) <<< 7);
  key_schedule(K) -> rk: u16[rounds] { for i in 0..rounds { rk[i] = K[i % 4] ^ i; } }
  encrypt(X, rk) {
    for i in 0..rounds { X = [X[1], X[2], X[3], X[0] ^ f(X[1], X[2]) ^ g(X[2], X[3]) ^ rk[i]]; }
  }
  decrypt(X, rk) {
    for r in 0..rounds {
      let i = rounds - 1 - r;
      X = [X[3] ^ f(X[0], X[1]) ^ g(X[1], X[2]) ^ rk[i], X[0], X[1], X[2]];
    }
  }
}

family wide8(rounds) {
  block u8[8];
  key   u8[8];
  fn h(a: u8, b: u8, c: u8, d: u8) -> u8 = u8(((pack_le([a, b, c, d]) + 0x01020304) >>> 13) >> 8);
  fn q(x: u8[4]) -> u8 = u8(((u64(pack_be(x)) << 29) - 0xfedcba9876) >> 37);
  key_schedule(K) -> rk: u8[rounds][8] { for i in 0..rounds { rk[i] = [k ^ i for k in K]; } }
  encrypt(X, rk) {
    for i in 0..rounds {
      X = [X[1], X[2], X[3], X[4], X[5], X[6], X[7],
           X[0] ^ h(X[1], X[2], X[3], X[4]) ^ q([X[4], X[5], X[6], X[7]]) ^ rk[i][0]];
    }
  }
  decrypt(X, rk) {
    for r in 0..rounds {
      let i = rounds - 1 - r;
      X = [X[7] ^ h(X[0], X[1], X[2], X[3]) ^ q([X[3], X[4], X[5], X[6]]) ^ rk[i][0],
           X[0], X[1], X[2], X[3], X[4], X[5], X[6]];
    }
  }
}

cipher wide4 = wide(rounds = 4);
cipher wide8x3 = wide8(rounds = 3);
