# Conformance: bit permutations of one word (bitperm, u8/u16/u32/u64) and of a whole byte array read as
# one big-endian or little-endian integer (bitperm_be / bitperm_le: PRESENT's pLayer).

family bitperm(w, rounds) {
  block word(w)[128 / w] little;
  key   word(w)[128 / w] little;
  const P = [(5 * i + 3) % w for i in 0..w];                 # 5 is coprime to every width
  const Q = [(16 * i) % 127 + (i / 127) * 127 for i in 0..128];
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [bitperm(k, P) ^ i for k in K]; }
  }
  encrypt(X, rk) {
    for i in 0..rounds { X = [bitperm(x, P) for x in X ^ rk[i]]; }
  }
  decrypt(X, rk) {
    for i in 0..rounds {
      X = bitperm_be(X, Q) ^ rk[i];
      X = bitperm_le(X, Q);
    }
  }
}

cipher bitperm_u8  = bitperm(w = 8, rounds = 2);
cipher bitperm_u16 = bitperm(w = 16, rounds = 2);
cipher bitperm_u32 = bitperm(w = 32, rounds = 2);
cipher bitperm_u64 = bitperm(w = 64, rounds = 2);
