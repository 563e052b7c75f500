/* per-lane table lookup: lane i of the result is t[lane i of x] (kept out of line: inlining
   hundreds of unrolled lane loops costs minutes of compile time and gains nothing measurable) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static cs_v{{ b }} cs_lut_{{ a }}_{{ b }}(const uint{{ b }}_t *t, cs_v{{ a }} x)
{
    uint{{ a }}_t in[{{ vl }}];
    uint{{ b }}_t res[{{ vl }}];
    cs_v{{ b }} r;
    int i;
    memcpy(in, &x, sizeof in);
    for (i = 0; i < {{ vl }}; i++) res[i] = t[in[i]];
    memcpy(&r, res, sizeof r);
    return r;
}
