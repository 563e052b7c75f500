/* the round keys as bit planes for the bitsliced kernels: bit b of key byte k as a 0/all-ones mask in bs[k*8+b] */
static void cs_key_planes({{ P }}_key *ks)
{
    size_t k;
    int b;
{{ loops }}
}
