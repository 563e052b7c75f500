# Rotation and shift test ciphers (not real ciphers): generalised Feistel rounds whose round function
# rotates u16 / u64 words by byte multiples (REV16, REV64, TBL byte permutations on NEON; PRMT / a
# register swap on CUDA) and by other amounts (SHL+SRI; SHF funnel shifts), with shifts, NOT, modular
# add/sub and constants that are (0xff00ff00...) or are not (0x0123...) byte masks.

family rot16(rounds) {
  block u16[4] little;
  key   u16[2] little;

  fn f(x: u16, y: u16) -> u16 = ((x <<< 8) ^ (y <<< 3)) + ((x >>> 5) & ~(y << 2)) - ((x >> 7) ^ 0x1234) + (y & 0xff00);

  key_schedule(K) -> rk: u16[rounds] {
    var T = K;
    for i in 0..rounds {
      rk[i] = T[0] ^ i;
      T = [T[1], (T[0] <<< 8) + T[1]];
    }
  }

  encrypt(X, rk) {
    for i in 0..rounds {
      X = [X[1], X[2], X[3], X[0] ^ f(X[1] ^ rk[i], X[2] + X[3])];
    }
  }

  decrypt(X, rk) {
    for r in 0..rounds {
      let i = rounds - 1 - r;
      X = [X[3] ^ f(X[0] ^ rk[i], X[1] + X[2]), X[0], X[1], X[2]];
    }
  }
}

family rot64(rounds) {
  block u64[2] big;
  key   u64[2] big;

  fn f(x: u64) -> u64 = (x <<< 8) ^ (x <<< 16) ^ (x <<< 24) ^ (x <<< 32) ^ ((x <<< 40) + (x <<< 48))
                        ^ ((x <<< 56) - (x <<< 1)) ^ (x <<< 13) ^ ~(x >>> 1) ^ (x << 7) ^ (x >> 63)
                        ^ (x & 0xff00ff00ffff0000) ^ (x | 0x0123456789abcdef);

  key_schedule(K) -> rk: u64[rounds] {
    var T = K;
    for i in 0..rounds {
      rk[i] = T[1] ^ i;
      T = [T[1], (T[0] <<< 17) + T[1]];
    }
  }

  encrypt(X, rk) {
    for i in 0..rounds {
      X = [X[1], X[0] ^ f(X[1] ^ rk[i])];
    }
  }

  decrypt(X, rk) {
    for r in 0..rounds {
      let i = rounds - 1 - r;
      X = [X[1] ^ f(X[0] ^ rk[i]), X[0]];
    }
  }
}

cipher rot16x6 = rot16(rounds = 6);
cipher rot64x4 = rot64(rounds = 4);
