
/* CCM in one pass: CBC-MAC and CTR block by block in one loop, each CBC-MAC block's AES rounds beside a
   CTR block's (two independent chains through the same rounds), so the CTR work hides in the latency of
   the serial MAC chain.  x: the CBC-MAC state, ctr: the next counter block (big-endian, full width: CCM's
   q-byte counter never carries out of its field); both move past the n blocks.  The MAC absorbs the
   plaintext: in when encrypting, out (computed first) when decrypting.  out == NULL: CBC-MAC of in alone
   (AAD, CMAC), ctr unused.  in == out is allowed.  Returns n, or 0 (nothing done) where the counter's low
   64 bits would carry (CCM's counter field never does; the caller's generic path takes that case).
       before: for each block  ecb(x ^ p_i) ; then ctr(all blocks)   (one kernel call per MAC block)
       after:  for each block  [E(x ^ p_i), E(ctr_i)] in one register pass */
CS_HIDDEN size_t CS_KERNEL(ccm)(const {{ P }}_key *ks, uint8_t x[16], uint8_t *ctr, const uint8_t *in, uint8_t *out,
                                 size_t n, int decrypt)
{
    static const uint8_t bswap[16] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    static const uint64_t one[2] = {1, 0};
    uint8_t buf[CS_BPR * 16];
    uint64_t cv[2];
    cs_x k[CS_NK_ENCRYPT], kz[CS_NK_ENCRYPT], b[2], c, rev, inc;
    size_t i;
    int j;
    if (out != NULL && cs_load64be(ctr + 8) > UINT64_MAX - (uint64_t)n - 1) return 0;  /* would carry: not here */
    cs_encrypt_keys(ks, k);
    for (j = 1; j < CS_NK_ENCRYPT; j++) kz[j] = k[j];
    kz[0] = CS_X_ZERO();  /* the first round key is added off the chain, to each input (the XOR with 0 folds away) */
    b[0] = CS_X_BCAST16(x);
    if (out == NULL) {  /* CBC-MAC only */
        for (i = 0; i < n; i++) {
            b[0] = CS_X_XOR(b[0], CS_X_XOR(CS_X_BCAST16(in + 16 * i), k[0]));
            cs_encrypt_regs(kz, b, 1);
        }
    } else {
        /* the counter in registers, byte-reversed: (lo, hi) as little-endian words, lo + 1 per block */
        cv[0] = cs_load64be(ctr + 8);
        cv[1] = cs_load64be(ctr);
        rev = CS_X_BCAST16(bswap);
        inc = CS_X_BCAST16(one);
        c = CS_X_BCAST16(cv);
        if (decrypt) {  /* the keystream one block ahead: block i's plaintext before its MAC step */
            b[1] = CS_X_SHUFFLE(c, rev);
            c = CS_X_ADD64(c, inc);
            cs_encrypt_regs(k, b + 1, 1);
        }
        for (i = 0; i < n; i++) {
            const cs_x p = decrypt ? CS_X_XOR(b[1], CS_X_BCAST16(in + 16 * i)) : CS_X_BCAST16(in + 16 * i);
            b[0] = CS_X_XOR(b[0], CS_X_XOR(p, k[0]));
            b[1] = CS_X_XOR(CS_X_SHUFFLE(c, rev), k[0]);  /* encrypting: block i's counter; decrypting: block i + 1's */
            c = CS_X_ADD64(c, inc);
            if (decrypt) {
                CS_X_STORE(buf, p);
                memcpy(out + 16 * i, buf, 16);
            }
            cs_encrypt_regs(kz, b, 2);
            if (!decrypt) {
                CS_X_STORE(buf, CS_X_XOR(b[1], p));
                memcpy(out + 16 * i, buf, 16);
            }
        }
        cs_store64be(ctr + 8, cv[0] + n);
    }
    CS_X_STORE(buf, b[0]);
    memcpy(x, buf, 16);
    return n;
}
