#if CS_VBITS == 512

{% include "c/fragments/ghash_x86.c" %}

/* o[j] (byte j of every block, lane i of each 16 holding block order[i] of those 16) -> q[m]: blocks
   4m .. 4m + 3 of the run, in memory order, without going through memory: the 16x16 byte transposition of
   cs_slice_store (register k then holds block 16g + order[k] in its 128-bit lane g), then 4x4 transposes
   of 128-bit lanes among the registers of blocks 16g + 4a .. 16g + 4a + 3 (two VSHUFI64X2 stages).
       before: cs_slice_store (64 lane stores) + 16 loads of the keystream
       after:  32 VSHUFI64X2 on registers */
static void cs_slice_regs(cs_x *q, const cs_x *o, const uint8_t *order)
{
    cs_x r[16], t[16];
    int k, a;
    for (k = 0; k < 16; k++) r[k] = o[cs_bitrev4[k]];
    cs_transpose16(r);
    for (k = 0; k < 16; k++) t[order[k]] = r[k];  /* t[j]: lane g = block 16g + j */
    for (a = 0; a < 4; a++) {
        const cs_x t0 = _mm512_shuffle_i64x2(t[4 * a], t[4 * a + 1], 0x44);      /* A0 A1 B0 B1 */
        const cs_x t1 = _mm512_shuffle_i64x2(t[4 * a], t[4 * a + 1], 0xee);      /* A2 A3 B2 B3 */
        const cs_x t2 = _mm512_shuffle_i64x2(t[4 * a + 2], t[4 * a + 3], 0x44);  /* C0 C1 D0 D1 */
        const cs_x t3 = _mm512_shuffle_i64x2(t[4 * a + 2], t[4 * a + 3], 0xee);  /* C2 C3 D2 D3 */
        q[a] = _mm512_shuffle_i64x2(t0, t2, 0x88);                              /* A0 B0 C0 D0 */
        q[4 + a] = _mm512_shuffle_i64x2(t0, t2, 0xdd);                          /* A1 B1 C1 D1 */
        q[8 + a] = _mm512_shuffle_i64x2(t1, t3, 0x88);                          /* A2 B2 C2 D2 */
        q[12 + a] = _mm512_shuffle_i64x2(t1, t3, 0xdd);                         /* A3 B3 C3 D3 */
    }
}

/* GCM, stitched, for the byte-sliced core: whole runs of CS_LANES blocks of CTR from ctr, each run's
   keystream left in registers (cs_encrypt_o, then cs_slice_regs: block order without a store), XORed with
   the input 8 registers at a time and those registers (decryption: the input's) hashed at once, before the
   next run.  A run whose counter carries past byte 14 (rare) makes its keystream through memory (cs_ctr_run).
   The caller keeps the counter's low 32 bits from wrapping (GCM's inc32).  x: the GHASH state; h: H^32' ..
   H^1' (ghash.c).  Returns the blocks done: n rounded down to a run.
       before: per 8 KiB  ctr (keystream, cs_xor_bytes: out stored)  then GHASH (out loaded again)
       after:  per run    keystream in registers, then load in, xor, store out and GHASH the same registers */
CS_HIDDEN CS_TARGET("pclmul,vpclmulqdq") size_t CS_KERNEL(ctr_ghash)(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in,
                                                                 uint8_t *out, size_t n, uint64_t x[2],
                                                                 const uint64_t (*h)[2], int decrypt)
{
    cs_x hk[8], hkk[8], d[8], q[16];
    __m128i acc = _mm_loadu_si128((const __m128i *)x);
    size_t i;
    int g, j;
    cs_gh512_keys(h, hk, hkk, 8);
    for (i = 0; i + CS_LANES <= n; i += CS_LANES) {
        const uint64_t lo = cs_load64be(ctr + CS_BLOCK - 8);
        cs_x s[16], o[16];
        if (lo <= UINT64_MAX - CS_LANES && cs_ctr_s(ctr, s)) {  /* the core makes the counter blocks */
            cs_encrypt_o(ks, s, o);
            cs_slice_regs(q, o, cs_encrypt_order);
            cs_store64be(ctr + CS_BLOCK - 8, lo + CS_LANES);
        } else {
            uint8_t stream[CS_LANES * CS_BLOCK];
            cs_ctr_run(ks, ctr, stream);  /* fragments/ctr_run.c */
            for (j = 0; j < 16; j++) q[j] = CS_X_LOAD(stream + 64 * (size_t)j);
        }
        for (g = 0; g < CS_LANES / 32; g++) {  /* 32 blocks: 8 registers, one aggregated reduction */
            for (j = 0; j < 8; j++) {
                const size_t at = (i + 32 * (size_t)g) * CS_BLOCK + 64 * (size_t)j;
                const cs_x v = CS_X_LOAD(in + at);
                const cs_x c = CS_X_XOR(v, q[8 * g + j]);
                CS_X_STORE(out + at, c);
                d[j] = decrypt ? v : c;
            }
            acc = cs_gh512_regs(acc, hk, hkk, d, 8);
        }
    }
    _mm_storeu_si128((__m128i *)x, acc);
    return i;
}
#endif
