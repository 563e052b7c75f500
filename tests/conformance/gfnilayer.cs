# Conformance: a bit-linear layer on byte words (generator/c/gfnilayers.py).  gfnilayer_u8: after a 4-bit
# S-box layer, each byte becomes a binary matrix of itself and its neighbour, written as shifts and
# rotations (each term a few word ops; on GFNI one 8x8 bit-matrix multiply): the sliced kernel's GFNI
# variants compute it with GF2P8AFFINEQB.  gfnilayer_u16: the same map on u16 words, which almost has it
# and must not get it (GF2P8AFFINEQB works on bytes): every variant keeps the shifts.

family gfnilayer(w, rounds) {
  block word(w)[64 / w] little;
  key   word(w)[64 / w] little;
  sbox S = [0x6, 0x5, 0xc, 0xa, 0x1, 0xe, 0x7, 0x9, 0xb, 0x0, 0x3, 0xd, 0x8, 0xf, 0x4, 0x2];
  key_schedule(K) -> rk: word(w)[rounds][64 / w] {
    for i in 0..rounds { rk[i] = [S[k] ^ i for k in K]; }
  }
  encrypt(X, rk) {
    let n = len(X);
    for i in 0..rounds {
      X = [S[x] for x in X ^ rk[i]];
      X = [X[j] ^ (X[j] <<< 1) ^ (X[j] >> 3) ^ (X[(j + 1) % n] <<< 5) ^ ((X[(j + 1) % n] << 2) & 0x5a) for j in 0..n];
    }
  }
  decrypt(X, rk) {
    let n = len(X);
    for i in 0..rounds {
      X = [(X[j] >>> 3) ^ (X[j] << 1) ^ ((X[(j + n - 1) % n] >> 1) & 0x33) ^ (X[(j + n - 1) % n] <<< 2) for j in 0..n];
      X = [S[x] for x in X] ^ rk[i];
    }
  }
}

cipher gfnilayer_u8  = gfnilayer(w = 8, rounds = 3);
cipher gfnilayer_u16 = gfnilayer(w = 16, rounds = 3);
