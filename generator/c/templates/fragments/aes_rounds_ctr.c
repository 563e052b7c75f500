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
