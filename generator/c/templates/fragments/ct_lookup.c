/* {{ table }}[v] without a memory access that depends on v: the circuit on the 8 bits of v as masks */
static uint8_t cs_ct_{{ table }}(uint8_t v)
{
    uint64_t x[8], y[8];
    int b, r = 0;
    for (b = 0; b < 8; b++) x[b] = CS_M_BIT(v, b);
    cs_ksbox_{{ table }}(x, y);
    for (b = 0; b < 8; b++) r |= (int)(y[b] & 1u) << b;
    return (uint8_t)r;
}
