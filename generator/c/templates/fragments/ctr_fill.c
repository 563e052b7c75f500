/* dst = n counter blocks ctr, ctr + 1, ...; ctr becomes ctr + n */
static void cs_ctr_fill(uint8_t *dst, uint8_t *ctr, size_t n)
{
    size_t j;
#if CS_BLOCK >= 8
    uint64_t lo = cs_load64be(ctr + CS_BLOCK - 8);
    if (lo <= UINT64_MAX - n) {  /* no carry out of the low 64 bits in this run: add to them directly */
        for (j = 0; j < n; j++) {
            memcpy(dst + j * CS_BLOCK, ctr, CS_BLOCK - 8);
            cs_store64be(dst + j * CS_BLOCK + CS_BLOCK - 8, lo + j);
        }
        cs_store64be(ctr + CS_BLOCK - 8, lo + n);
        return;
    }
#endif
    for (j = 0; j < n; j++) {
        memcpy(dst + j * CS_BLOCK, ctr, CS_BLOCK);
        cs_ctr_increment(ctr);
    }
}
