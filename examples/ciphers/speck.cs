# SPECK-128/128 — Beaulieu, Shors, Smith, Treatman-Clark, Weeks, Wingers, "The SIMON and SPECK Families of
# Lightweight Block Ciphers", IACR ePrint 2013/404; byte order of the "SIMON and SPECK Implementation
# Guide" (2019): the block is the words (y, x) and the key the words (k0, l0), each 64-bit word
# little-endian — the paper prints them the other way round, most significant word first.
# 128-bit block, 128-bit key, 32 rounds, rotations alpha = 8, beta = 3.

family speck(rounds) {
  block u64[2] little;              # X[0] = y, X[1] = x
  key   u64[2] little;              # K[0] = k0, K[1] = l0

  # the key schedule is the round function itself, with the round index as the key
  key_schedule(K) -> rk: u64[rounds] {
    var k = K[0];
    var l = K[1];
    for i in 0..rounds {
      rk[i] = k;
      l = (k + (l >>> 8)) ^ i;
      k = (k <<< 3) ^ l;
    }
  }

  encrypt(X, rk) {
    for i in 0..rounds {
      let x = ((X[1] >>> 8) + X[0]) ^ rk[i];
      X = [(X[0] <<< 3) ^ x, x];
    }
  }

  decrypt(X, rk) {
    for r in 0..rounds {
      let y = (X[0] ^ X[1]) >>> 3;
      X = [y, ((X[1] ^ rk[rounds - 1 - r]) - y) <<< 8];
    }
  }
}

cipher speck128_128 = speck(rounds = 32);
