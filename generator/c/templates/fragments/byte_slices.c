/* ---- byte slicing: CS_LANES blocks <-> 16 registers, register j = byte j of every block ----
   Lane i of 16-byte lane g holds block 16g + i.  The transposition is the perfect-shuffle network (four
   stages of unpacks, 64 instructions per 16 blocks), fed in bit-reversed block order so that its output
   lanes come out in block order.  AESENCLAST/AESDECLAST permute the lanes of a register (ShiftRows); the
   kernel tracks the permutation and the store writes each block back where it belongs (order[]). */
static const uint8_t cs_bitrev4[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};

static void cs_transpose16(cs_x *r)
{
    cs_x t[16];
    int k;
    for (k = 0; k < 8; k++) {
        t[2 * k] = CS_X_UNPACKLO8(r[k], r[k + 8]);
        t[2 * k + 1] = CS_X_UNPACKHI8(r[k], r[k + 8]);
    }
    for (k = 0; k < 8; k++) {
        r[2 * k] = CS_X_UNPACKLO16(t[k], t[k + 8]);
        r[2 * k + 1] = CS_X_UNPACKHI16(t[k], t[k + 8]);
    }
    for (k = 0; k < 8; k++) {
        t[2 * k] = CS_X_UNPACKLO32(r[k], r[k + 8]);
        t[2 * k + 1] = CS_X_UNPACKHI32(r[k], r[k + 8]);
    }
    for (k = 0; k < 8; k++) {
        r[2 * k] = CS_X_UNPACKLO64(t[k], t[k + 8]);
        r[2 * k + 1] = CS_X_UNPACKHI64(t[k], t[k + 8]);
    }
}

/* in: CS_LANES blocks -> s[j]: byte j of every block */
static void cs_slice_load(cs_x *s, const uint8_t *in)
{
    int k;
    for (k = 0; k < 16; k++) s[k] = CS_X_LOAD_LANES(in + 16 * cs_bitrev4[k], 256);
    cs_transpose16(s);
}

/* s[j]: byte j of every block, lane i holding block order[i] of its 16 -> out: CS_LANES blocks (s is clobbered) */
static void cs_slice_store(uint8_t *out, const cs_x *s, const uint8_t *order)
{
    cs_x r[16];
    int k;
    for (k = 0; k < 16; k++) r[k] = s[cs_bitrev4[k]];
    cs_transpose16(r);
    for (k = 0; k < 16; k++) CS_X_STORE_LANES(out + 16 * order[k], 256, r[k]);
}
