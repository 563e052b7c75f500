# SPECK-128-style test ciphers (64-bit-word ARX; the SPECK round and key schedule, fewer rounds):
# x = ((x >>> 8) + y) ^ k;  y = (y <<< 3) ^ x.  Little- and big-endian words: the language has no
# endianness parameter, so the family is written twice.  Tests 64-bit words (NEON .2d lanes, CUDA
# register pairs); not checked against SPECK's vectors.
family speck128le(rounds) {
  block u64[2] little;
  key   u64[2] little;

  key_schedule(K) -> rk: u64[rounds] {
    var l = K[1];
    var k = K[0];
    for i in 0..rounds {
      rk[i] = k;
      l = ((l >>> 8) + k) ^ i;
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
      let i = rounds - 1 - r;
      let y = (X[0] ^ X[1]) >>> 3;
      X = [y, ((X[1] ^ rk[i]) - y) <<< 8];
    }
  }
}

# the same, words read big-endian
family speck128be(rounds) {
  block u64[2] big;
  key   u64[2] big;

  key_schedule(K) -> rk: u64[rounds] {
    var l = K[1];
    var k = K[0];
    for i in 0..rounds {
      rk[i] = k;
      l = ((l >>> 8) + k) ^ i;
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
      let i = rounds - 1 - r;
      let y = (X[0] ^ X[1]) >>> 3;
      X = [y, ((X[1] ^ rk[i]) - y) <<< 8];
    }
  }
}

cipher speck128le = speck128le(rounds = 8);
cipher speck128be = speck128be(rounds = 8);
