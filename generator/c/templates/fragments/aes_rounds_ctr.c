/* n blocks of keystream from the big-endian 128-bit counter ctr (which becomes ctr + n), XORed into in.
   Counters are made in registers: lane l of a register holds (hi, lo + t) as two little-endian 64-bit
   words, byte-reversed by one shuffle; a batch whose low word would wrap takes the carry block by block. */
CS_HIDDEN void CS_KERNEL(ctr)(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in, uint8_t *out, size_t n)
{
    static const uint8_t bswap[16] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    const cs_x rev = CS_X_BCAST16(bswap);
    uint64_t hi = cs_load64be(ctr), lo = cs_load64be(ctr + 8), cv[2 * CS_BPR], step[2 * CS_BPR];
    uint8_t buf[CS_IL * CS_BPR * 16];
    cs_x k[CS_NK_ENCRYPT], b[CS_IL], c, inc;
    size_t i = 0, m, t;
    int j, l;
    cs_encrypt_keys(ks, k);
    for (l = 0; l < CS_BPR; l++) {
        step[2 * l] = CS_BPR;
        step[2 * l + 1] = 0;
    }
    inc = CS_X_LOAD(step);
    for (; i < n; i += m) {
        m = n - i < CS_IL * CS_BPR ? n - i : CS_IL * CS_BPR;
        if (lo <= UINT64_MAX - CS_IL * CS_BPR) {  /* no carry out of the low word in this batch */
            for (l = 0; l < CS_BPR; l++) {
                cv[2 * l] = lo + (uint64_t)l;
                cv[2 * l + 1] = hi;
            }
            c = CS_X_LOAD(cv);
            for (j = 0; j < CS_IL; j++) {
                b[j] = CS_X_SHUFFLE(c, rev);
                c = CS_X_ADD64(c, inc);
            }
        } else {
            for (j = 0; j < CS_IL; j++) {
                for (l = 0; l < CS_BPR; l++) {
                    t = (size_t)j * CS_BPR + (size_t)l;
                    cv[2 * l] = lo + (uint64_t)t;
                    cv[2 * l + 1] = hi + (cv[2 * l] < lo);
                }
                b[j] = CS_X_SHUFFLE(CS_X_LOAD(cv), rev);
            }
        }
        cs_encrypt_regs(k, b, CS_IL);
        if (m == CS_IL * CS_BPR) {
            for (j = 0; j < CS_IL; j++)
                CS_X_STORE(out + (i + (size_t)j * CS_BPR) * 16,
                           CS_X_XOR(b[j], CS_X_LOAD(in + (i + (size_t)j * CS_BPR) * 16)));
        } else {  /* the last, short batch */
            for (j = 0; j < CS_IL; j++) CS_X_STORE(buf + (size_t)j * CS_BPR * 16, b[j]);
            for (t = 0; t < m * 16; t++) out[i * 16 + t] = (uint8_t)(in[i * 16 + t] ^ buf[t]);
        }
        hi += (lo + m < lo);
        lo += m;
    }
    cs_store64be(ctr, hi);
    cs_store64be(ctr + 8, lo);
}
#if CS_VBITS == 512

{% include "c/fragments/ghash_x86.c" %}

/* GCM, stitched: whole batches of CS_IL * CS_BPR (32) blocks of CTR from ctr, each batch's AES rounds and
   a GHASH of 32 ciphertext blocks in one loop body, so that the out-of-order core runs the carry-less
   multiplies beside the AES rounds.  The GHASH reads its blocks back from memory: encryption the previous
   batch's output (in L1), decryption this batch's input before it is overwritten (in == out).  The powers
   of H are memory operands (cs_gh512_mem) from a 64-byte-aligned copy on the stack (the key's or the
   context's are not aligned: split loads made the loop 20% slower at 64 MiB).  So the loop keeps in
   registers only the round keys, the batch, the counter and the GHASH sums.
       before: b[], d[] (the previous batch), 8 powers and 8 Karatsuba halves live (43 zmm for 32): ~50
               zmm spill stores and reloads per batch in the loop (objdump)
       after:  one zmm spill store and reload per batch; the other stack reads are the powers' operands
   The caller keeps the counter's low 32 bits from wrapping (GCM's inc32).  x: the GHASH state; h: H^32'
   .. H^1' (ghash.c).  Returns the blocks done: n rounded down to a whole batch. */
CS_HIDDEN CS_TARGET("pclmul,vpclmulqdq") size_t CS_KERNEL(ctr_ghash)(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in,
                                                                 uint8_t *out, size_t n, uint64_t x[2],
                                                                 const uint64_t (*h)[2], int decrypt)
{
    static const uint8_t bswap[16] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    const cs_x rev = CS_X_BCAST16(bswap);
    uint64_t hi = cs_load64be(ctr), lo = cs_load64be(ctr + 8), cv[2 * CS_BPR], step[2 * CS_BPR];
    cs_x k[CS_NK_ENCRYPT], b[CS_IL], c, inc;
    uint64_t hs[32][2] __attribute__((aligned(64)));  /* the powers, aligned for the memory operands (above) */
    __m128i acc = _mm_loadu_si128((const __m128i *)x);
    size_t i;
    int j, l;
    cs_encrypt_keys(ks, k);
    memcpy(hs, h, sizeof hs);
    for (l = 0; l < CS_BPR; l++) {
        step[2 * l] = CS_BPR;
        step[2 * l + 1] = 0;
        cv[2 * l] = lo + (uint64_t)l;
        cv[2 * l + 1] = hi;
    }
    inc = CS_X_LOAD(step);
    c = CS_X_LOAD(cv);
    for (i = 0; i + CS_IL * CS_BPR <= n; i += CS_IL * CS_BPR) {
        for (j = 0; j < CS_IL; j++) {
            b[j] = CS_X_SHUFFLE(c, rev);
            c = CS_X_ADD64(c, inc);
        }
        cs_encrypt_regs(k, b, CS_IL);
        if (decrypt)
            acc = cs_gh512_mem(acc, hs, in + i * 16, CS_IL);
        else if (i)
            acc = cs_gh512_mem(acc, hs, out + (i - CS_IL * CS_BPR) * 16, CS_IL);
        for (j = 0; j < CS_IL; j++)
            CS_X_STORE(out + (i + (size_t)j * CS_BPR) * 16,
                       CS_X_XOR(b[j], CS_X_LOAD(in + (i + (size_t)j * CS_BPR) * 16)));
    }
    if (i && !decrypt) acc = cs_gh512_mem(acc, hs, out + (i - CS_IL * CS_BPR) * 16, CS_IL);
    memset(hs, 0, sizeof hs);  /* the stack copy of key-derived data wiped (the asm: not a dead store) */
    __asm__ __volatile__("" : : "r"(hs) : "memory");
    cs_store64be(ctr + 8, lo + i);  /* no carry out of the low word: the low 32 bits did not wrap */
    _mm_storeu_si128((__m128i *)x, acc);
    return i;
}
#endif
