# Conformance: 64-bit ARX in 64-bit lanes (generator/c/lanes64.py): add, sub, xor, and, or, not, rotations
# by a byte multiple (a byte shuffle) and by other amounts, shifts, on u64 words (big-endian u64 ARX is
# byteorder.cs's order_u64_be); and a near miss, the same round with one byte S-box lookup, which must keep
# the schedule's own layout (lanes64.why_not names the lookup).

family arx64_le(rounds) {
  block u64[2] little;
  key   u64[2] little;
  key_schedule(K) -> rk: u64[rounds][2] {
    for i in 0..rounds { rk[i] = [(K[0] <<< 7) + i, K[1] ^ (K[0] >> 5)]; }
  }
  encrypt(X, rk) {
    for i in 0..rounds {
      let x = ((X[1] >>> 8) + X[0]) ^ rk[i][0];
      let y = ((X[0] <<< 3) ^ x) - (~X[1] & rk[i][1]);
      X = [y | (x << 1), x ^ (y >> 7) ^ (x <<< 16)];
    }
  }
  decrypt(X, rk) {
    for i in 0..rounds {
      let y = (X[0] ^ X[1]) >>> 3;
      X = [y, ((X[1] ^ rk[i][0]) - y) <<< 8];
    }
  }
}

family arx64_lut(rounds) {
  block u64[2] little;
  key   u64[2] little;
  sbox S = [(5 * x + 1) % 256 for x in 0..256];
  key_schedule(K) -> rk: u64[rounds][2] {
    for i in 0..rounds { rk[i] = [K[0] + i, K[1] ^ i]; }
  }
  encrypt(X, rk) {
    for i in 0..rounds {
      let x = ((X[1] >>> 8) + X[0]) ^ rk[i][0];
      X = [(X[0] <<< 3) ^ x ^ u64(S[u8(x)]), x];
    }
  }
  decrypt(X, rk) {
    for i in 0..rounds {
      let y = (X[0] ^ X[1]) >>> 3;
      X = [y, ((X[1] ^ rk[i][1]) - y) <<< 8];
    }
  }
}

cipher arx64_u64_le  = arx64_le(rounds = 2);
cipher arx64_lut_u64 = arx64_lut(rounds = 2);
