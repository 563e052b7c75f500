/* n whole blocks of keystream from the big-endian counter ctr (which becomes ctr + n), XORed into in */
CS_HIDDEN void CS_KERNEL(ctr)(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in, uint8_t *out, size_t n)
{
    uint8_t stream[{{ buffer }}];
    size_t i = 0;
{{ loops }}
}
