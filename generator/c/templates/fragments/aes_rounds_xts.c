#if CS_VBITS == 512

{% include "c/fragments/xts_x86.c" %}

/* XTS, whole batches of CS_IL * CS_BPR (32) blocks: each block XORed with its tweak, the AES rounds, XORed
   again, all in registers (one pass over the data).  The tweaks: CS_IL registers of four, each register
   stepping by alpha^32 from one batch to the next.  t: the first block's tweak as two little-endian words,
   moved past the blocks done.  Returns the blocks done: n rounded down to a whole batch. */
CS_HIDDEN size_t CS_KERNEL(xts)(const {{ P }}_key *ks, uint64_t t[2], const uint8_t *in, uint8_t *out, size_t n, int decrypt)
{
    cs_x ke[CS_NK_ENCRYPT], kd[CS_NK_DECRYPT], b[CS_IL], z[CS_IL];
    uint64_t first[2 * CS_BPR], lo = t[0], hi = t[1], m;
    size_t i;
    int j;
    if (n < CS_IL * CS_BPR) return 0;
    for (j = 0; j < CS_BPR; j++) {  /* T, T alpha, T alpha^2, T alpha^3 */
        first[2 * j] = lo;
        first[2 * j + 1] = hi;
        m = (uint64_t)0 - (hi >> 63);
        hi = hi << 1 | lo >> 63;
        lo = (lo << 1) ^ (m & 0x87u);
    }
    z[0] = CS_X_LOAD(first);
    for (j = 1; j < CS_IL; j++) {
        z[j] = z[j - 1];
        CS_XTS_MULK(z[j], 4);
    }
    if (decrypt)
        cs_decrypt_keys(ks, kd);
    else
        cs_encrypt_keys(ks, ke);
#define CS_XTS_LOOP(kind, k)                                                                                 \
    for (i = 0; i + CS_IL * CS_BPR <= n; i += CS_IL * CS_BPR) {                                              \
        for (j = 0; j < CS_IL; j++) b[j] = CS_X_XOR(CS_X_LOAD(in + (i + (size_t)j * CS_BPR) * 16), z[j]);   \
        cs_##kind##_regs(k, b, CS_IL);                                                                       \
        for (j = 0; j < CS_IL; j++) {                                                                        \
            CS_X_STORE(out + (i + (size_t)j * CS_BPR) * 16, CS_X_XOR(b[j], z[j]));                          \
            CS_XTS_MULK(z[j], 32);                                                                           \
        }                                                                                                    \
    }
    if (decrypt) {
        CS_XTS_LOOP(decrypt, kd)
    } else {
        CS_XTS_LOOP(encrypt, ke)
    }
#undef CS_XTS_LOOP
    CS_X_STORE(first, z[0]);  /* the next block's tweak: lane 0 of the first register */
    t[0] = first[0];
    t[1] = first[1];
    return i;
}
#endif
