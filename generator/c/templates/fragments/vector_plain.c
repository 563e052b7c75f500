typedef struct { uint{{ w }}_t l[{{ vl }}]; } cs_v{{ w }};
static inline cs_v{{ w }} cs_v{{ w }}_xor(cs_v{{ w }} a, cs_v{{ w }} b)
{
    cs_v{{ w }} r; int i;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(a.l[i] ^ b.l[i]);
    return r;
}
#define CS_V{{ w }}_XOR(a, b) cs_v{{ w }}_xor(a, b)
static inline cs_v{{ w }} cs_v{{ w }}_and(cs_v{{ w }} a, cs_v{{ w }} b)
{
    cs_v{{ w }} r; int i;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(a.l[i] & b.l[i]);
    return r;
}
#define CS_V{{ w }}_AND(a, b) cs_v{{ w }}_and(a, b)
static inline cs_v{{ w }} cs_v{{ w }}_or(cs_v{{ w }} a, cs_v{{ w }} b)
{
    cs_v{{ w }} r; int i;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(a.l[i] | b.l[i]);
    return r;
}
#define CS_V{{ w }}_OR(a, b) cs_v{{ w }}_or(a, b)
static inline cs_v{{ w }} cs_v{{ w }}_add(cs_v{{ w }} a, cs_v{{ w }} b)
{
    cs_v{{ w }} r; int i;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(a.l[i] + b.l[i]);
    return r;
}
#define CS_V{{ w }}_ADD(a, b) cs_v{{ w }}_add(a, b)
static inline cs_v{{ w }} cs_v{{ w }}_sub(cs_v{{ w }} a, cs_v{{ w }} b)
{
    cs_v{{ w }} r; int i;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(a.l[i] - b.l[i]);
    return r;
}
#define CS_V{{ w }}_SUB(a, b) cs_v{{ w }}_sub(a, b)
static inline cs_v{{ w }} cs_v{{ w }}_not(cs_v{{ w }} a, int k)
{
    cs_v{{ w }} r; int i;
    (void)k;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(~a.l[i]);
    return r;
}
static inline cs_v{{ w }} cs_v{{ w }}_shl(cs_v{{ w }} a, int k)
{
    cs_v{{ w }} r; int i;
    (void)k;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(a.l[i] << k);
    return r;
}
static inline cs_v{{ w }} cs_v{{ w }}_shr(cs_v{{ w }} a, int k)
{
    cs_v{{ w }} r; int i;
    (void)k;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(a.l[i] >> k);
    return r;
}
static inline cs_v{{ w }} cs_v{{ w }}_rotl(cs_v{{ w }} a, int k)
{
    cs_v{{ w }} r; int i;
    (void)k;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = (uint{{ w }}_t)(CS_ROTL{{ w }}(a.l[i], k));
    return r;
}
#define CS_V{{ w }}_NOT(a) cs_v{{ w }}_not(a, 0)
#define CS_V{{ w }}_SHL(a, k) cs_v{{ w }}_shl(a, k)
#define CS_V{{ w }}_SHR(a, k) cs_v{{ w }}_shr(a, k)
#define CS_V{{ w }}_ROTL(a, k) cs_v{{ w }}_rotl(a, k)
static inline cs_v{{ w }} cs_v{{ w }}_splat(uint{{ w }}_t c)
{
    cs_v{{ w }} r; int i;
    for (i = 0; i < {{ vl }}; i++) r.l[i] = c;
    return r;
}
#define CS_V{{ w }}_SPLAT(c) cs_v{{ w }}_splat((uint{{ w }}_t)(c))
