#if CS_VBITS == 512

{% include "c/fragments/ghash_x86.c" %}

/* GCM, stitched, for the byte-sliced core: whole runs of CS_LANES blocks of CTR from ctr, each run's
   keystream (cs_ctr_n, in the stack buffer while it is in L1) XORed with the input 8 registers at a time
   and those registers (decryption: the input's) hashed at once, before the next run, instead of a
   second pass over the output.  The caller keeps the counter's low 32 bits from wrapping (GCM's inc32).
   x: the GHASH state; h: H^32' .. H^1' (ghash.c).  Returns the blocks done: n rounded down to a run.
       before: per 8 KiB  ctr (keystream, cs_xor_bytes: out stored)  then GHASH (out loaded again)
       after:  per run    keystream, then load in, xor, store out and GHASH from the same registers */
CS_HIDDEN CS_TARGET("pclmul,vpclmulqdq") size_t CS_KERNEL(ctr_ghash)(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in,
                                                                 uint8_t *out, size_t n, uint64_t x[2],
                                                                 const uint64_t (*h)[2], int decrypt)
{
    uint8_t stream[CS_LANES * CS_BLOCK];
    cs_x hk[8], hkk[8], d[8];
    __m128i acc = _mm_loadu_si128((const __m128i *)x);
    size_t i;
    int g, j;
    cs_gh512_keys(h, hk, hkk, 8);
    for (i = 0; i + CS_LANES <= n; i += CS_LANES) {
        const uint64_t lo = cs_load64be(ctr + CS_BLOCK - 8);
        if (lo <= UINT64_MAX - CS_LANES) {  /* no carry out of the low 64 bits: the core makes the blocks */
            cs_ctr_n(ks, ctr, stream);
            cs_store64be(ctr + CS_BLOCK - 8, lo + CS_LANES);
        } else {
            cs_ctr_fill(stream, ctr, CS_LANES);
            cs_encrypt_n(ks, stream, stream);
        }
        for (g = 0; g < CS_LANES / 32; g++) {  /* 32 blocks: 8 registers, one aggregated reduction */
            const size_t at = (i + 32 * (size_t)g) * CS_BLOCK;
            for (j = 0; j < 8; j++) {
                const cs_x v = CS_X_LOAD(in + at + 64 * (size_t)j);
                const cs_x o = CS_X_XOR(v, CS_X_LOAD(stream + (32 * (size_t)g) * CS_BLOCK + 64 * (size_t)j));
                CS_X_STORE(out + at + 64 * (size_t)j, o);
                d[j] = decrypt ? v : o;
            }
            acc = cs_gh512_regs(acc, hk, hkk, d, 8);
        }
    }
    _mm_storeu_si128((__m128i *)x, acc);
    return i;
}
#endif
