/* CTR's counter blocks made byte-sliced in registers (no counter blocks stored, no input transposition):
   in a run of CS_LANES blocks from ctr, bytes 0..13 are the same in every block, byte 15 is ctr[15] + the
   block's index (mod 256: the slices hold block l at byte l, byte_slices.c), byte 14 is ctr[14] plus the
   carry out of byte 15.  A run whose carry would reach byte 13 (ctr[14] = 0xff, byte 15 wrapping) takes
   its blocks through memory.  stream = E(ctr), E(ctr + 1), ... (CS_LANES blocks); ctr is not advanced.
       before: cs_ctr_fill (CS_LANES blocks stored) + cs_slice_load (loads, 64 unpacks per 16 blocks)
       after:  16 broadcasts and two byte adds */
static const uint8_t cs_iota[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                                    32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                                    48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
/* 64 zeros, then 64 ones: CS_LANES bytes from 64 - t are 1 in the lanes l >= t */
static const uint8_t cs_carry_steps[128] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

/* s[j] = byte j of the counter blocks ctr, ctr + 1, ... (CS_LANES); 0 (s not set) where the run's carry
   would reach byte 13 */
static int cs_ctr_s(const uint8_t *ctr, cs_x *s)
{
    const unsigned c15 = ctr[15];
    const int wraps = c15 > 256 - CS_LANES;  /* byte 15 wraps inside the run (lanes 256 - c15 ..) */
    int j;
    if (wraps && ctr[14] == 0xff) return 0;
    for (j = 0; j < 15; j++) s[j] = CS_X_SPLAT8(ctr[j]);
    if (wraps) s[14] = CS_X_ADD8(s[14], CS_X_LOAD(cs_carry_steps + 64 - (256 - c15)));
    s[15] = CS_X_ADD8(CS_X_SPLAT8(c15), CS_X_LOAD(cs_iota));
    return 1;
}

static void cs_ctr_n(const {{ P }}_key *ks, const uint8_t *ctr, uint8_t *stream)
{
    cs_x s[16];
    if (!cs_ctr_s(ctr, s)) {  /* the carry reaches byte 13: the blocks through memory */
        uint8_t c[16];
        memcpy(c, ctr, 16);
        cs_ctr_fill(stream, c, CS_LANES);
        cs_encrypt_n(ks, stream, stream);
        return;
    }
    cs_encrypt_s(ks, s, stream);
}
