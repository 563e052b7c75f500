/* {{ table }}[v] without a memory access that depends on v: the circuit on the {{ nin }} index bits of v as masks
   (output bits the table never varies are the constant {{ const }}) */
static uint{{ out_bits }}_t cs_ct_{{ table }}(uint{{ in_bits }}_t v)
{
    uint64_t x[{{ nin }}], y[{{ nlive }}];
    uint32_t r = {{ const }}u;
    int b;
    for (b = 0; b < {{ nin }}; b++) x[b] = CS_M_BIT(v, b);
    cs_ksbox_{{ table }}(x, y);
{{ gather }}
    return (uint{{ out_bits }}_t)r;
}
