# Conformance: block and key words in both byte orders (the load/store paths), u16, u32 and u64.

family order_le(w, rounds) {
  block word(w)[128 / w] little;
  key   word(w)[128 / w] little;
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [k + i for k in K]; }
  }
  encrypt(X, rk) { for i in 0..rounds { X = [(x + 1) <<< 3 for x in X] ^ rk[i]; } }
  decrypt(X, rk) { for i in 0..rounds { X = [(x <<< 1) - 1 for x in X ^ rk[i]]; } }
}

family order_be(w, rounds) {
  block word(w)[128 / w] big;
  key   word(w)[128 / w] big;
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [k + i for k in K]; }
  }
  encrypt(X, rk) { for i in 0..rounds { X = [(x + 1) <<< 3 for x in X] ^ rk[i]; } }
  decrypt(X, rk) { for i in 0..rounds { X = [(x <<< 1) - 1 for x in X ^ rk[i]]; } }
}

cipher order_u16_le = order_le(w = 16, rounds = 2);
cipher order_u32_le = order_le(w = 32, rounds = 2);
cipher order_u64_le = order_le(w = 64, rounds = 2);
cipher order_u16_be = order_be(w = 16, rounds = 2);
cipher order_u32_be = order_be(w = 32, rounds = 2);
cipher order_u64_be = order_be(w = 64, rounds = 2);
