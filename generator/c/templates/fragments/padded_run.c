/* {{ kind }}: k <= CS_LANES blocks, padded with zero blocks to a full run of the core */
static void cs_{{ kind }}_part(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t k)
{
    uint8_t buf[CS_LANES * CS_BLOCK];
    memset(buf, 0, sizeof buf);
    memcpy(buf, in, k * CS_BLOCK);
    cs_{{ kind }}_n(ks, buf, buf);
    memcpy(out, buf, k * CS_BLOCK);
}
