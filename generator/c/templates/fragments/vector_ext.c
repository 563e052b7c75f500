typedef uint{{ w }}_t cs_v{{ w }} __attribute__((vector_size({{ nbytes }})));
#define CS_V{{ w }}_XOR(a, b) ((a) ^ (b))
#define CS_V{{ w }}_AND(a, b) ((a) & (b))
#define CS_V{{ w }}_OR(a, b) ((a) | (b))
#define CS_V{{ w }}_ADD(a, b) ((a) + (b))
#define CS_V{{ w }}_SUB(a, b) ((a) - (b))
#define CS_V{{ w }}_NOT(a) (~(a))
#define CS_V{{ w }}_SHL(a, k) ((a) << (k))
#define CS_V{{ w }}_SHR(a, k) ((a) >> (k))
#define CS_V{{ w }}_ROTL(a, k) (((a) << (k)) | ((a) >> ({{ w }} - (k))))
#define CS_V{{ w }}_SPLAT(c) (cs_v{{ w }}_splat((uint{{ w }}_t)(c)))
static inline cs_v{{ w }} cs_v{{ w }}_splat(uint{{ w }}_t c)
{
    cs_v{{ w }} r = {0};
    return r + c;
}
