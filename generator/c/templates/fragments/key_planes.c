/* the round keys as bit planes for the bitsliced kernels: bit b of key word k (of w bits) as a 0/all-ones mask in bs[first + k*w + b] */
static void cs_key_planes({{ P }}_key *ks)
{
    size_t k;
    int b;
{{ loops }}
}
