CS_HIDDEN void CS_KERNEL(ecb_{{ kind }})(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t n)
{
    size_t i = 0;
{{ loops }}
}
