static inline cs_v{{ b }} cs_cvt_{{ a }}_{{ b }}(cs_v{{ a }} x)
{
    uint{{ a }}_t in[{{ vl }}];
    uint{{ b }}_t res[{{ vl }}];
    cs_v{{ b }} r;
    int i;
    memcpy(in, &x, sizeof in);
    for (i = 0; i < {{ vl }}; i++) res[i] = (uint{{ b }}_t)in[i];
    memcpy(&r, res, sizeof r);
    return r;
}
