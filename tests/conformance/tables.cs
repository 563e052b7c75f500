# Conformance: const arrays as values (element-wise with an array: MK ^ FK, as SM4's key schedule) and a
# const table of wider words indexed by a byte (a T-table: u8 -> u32).

family tables(rounds) {
  block u32[4] little;
  key   u32[4] little;
  const FK: u32[4] = [0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc];
  const T: u32[256] = [(x * 0x01010101) ^ (x << 9) for x in 0..256];
  key_schedule(K) -> rk: u32[rounds][4] {
    var k = K ^ FK;
    for i in 0..rounds { k = [x <<< 3 for x in k] ^ FK; rk[i] = k; }
  }
  encrypt(X, rk) {
    for i in 0..rounds {
      X = [T[u8(x)] ^ T[u8(x >> 8)] ^ (x >>> 16) for x in X ^ rk[i]];
    }
  }
  decrypt(X, rk) {
    for i in 0..rounds { X = (X ^ FK) ^ rk[i]; }
  }
}

cipher tables_u32 = tables(rounds = 2);
