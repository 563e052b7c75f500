/* ---- counter and XOR helpers ---- */
static void cs_xor_bytes(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) out[i] = (uint8_t)(a[i] ^ b[i]);
}

/* counter + 1, big-endian over the whole block, wrapping */
static void cs_ctr_increment(uint8_t *ctr)
{
    int i;
    for (i = CS_BLOCK - 1; i >= 0; i--) {
        ctr[i] = (uint8_t)(ctr[i] + 1);
        if (ctr[i] != 0) break;
    }
}
