/* {{ table }}[v[i]] for i < n (n <= 64) without a memory access that depends on v: the circuit run once on
   the index bits as masks, lookup i in bit i of every mask (n is public); output bits the table never varies
   are the constant {{ const }} */
static void cs_ctn_{{ table }}(const uint{{ in_bits }}_t *v, uint{{ out_bits }}_t *r, int n)
{
    uint64_t x[{{ nin }}], y[{{ nlive }}];
    int b, i;
    for (b = 0; b < {{ nin }}; b++) {
        x[b] = 0;
        for (i = 0; i < n; i++) x[b] |= (uint64_t)((v[i] >> b) & 1u) << i;
    }
    cs_ksbox_{{ table }}(x, y);
    for (i = 0; i < n; i++) {
        uint32_t o = {{ const }}u;
{{ gather_lane }}
        r[i] = (uint{{ out_bits }}_t)o;
    }
}
