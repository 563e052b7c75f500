# Conformance: a byte S-box on the bytes of wider words (SM4, SEED, Camellia style): unpack the word,
# look up every byte, pack it again; u16, u32 and u64 words, little- and big-endian blocks.

family bytesub_le(w, rounds) {
  block word(w)[128 / w] little;
  key   word(w)[128 / w] little;
  sbox L = [(7 * x + 3) % 256 for x in 0..256];
  fn tau(x: word(w)) -> word(w) = pack_be([L[b] for b in unpack_be(x, w / 8)]);
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [tau(k) ^ i for k in K]; }
  }
  encrypt(X, rk) { for i in 0..rounds { X = [tau(x) <<< 3 for x in X ^ rk[i]]; } }
  decrypt(X, rk) { for i in 0..rounds { X = [tau(x >>> 3) for x in X] ^ rk[i]; } }
}

family bytesub_be(w, rounds) {
  block word(w)[128 / w] big;
  key   word(w)[128 / w] big;
  sbox L = [(7 * x + 3) % 256 for x in 0..256];
  fn tau(x: word(w)) -> word(w) = pack_le([L[b] for b in unpack_le(x, w / 8)]);
  key_schedule(K) -> rk: word(w)[rounds][128 / w] {
    for i in 0..rounds { rk[i] = [tau(k) ^ i for k in K]; }
  }
  encrypt(X, rk) { for i in 0..rounds { X = [tau(x) <<< 3 for x in X ^ rk[i]]; } }
  decrypt(X, rk) { for i in 0..rounds { X = [tau(x >>> 3) for x in X] ^ rk[i]; } }
}

cipher bytesub_u16_le = bytesub_le(w = 16, rounds = 2);
cipher bytesub_u32_le = bytesub_le(w = 32, rounds = 2);
cipher bytesub_u64_le = bytesub_le(w = 64, rounds = 2);
cipher bytesub_u32_be = bytesub_be(w = 32, rounds = 2);
