/* ---- S-boxes as Boolean circuits on 0/all-ones masks: constant-time lookups for the key schedule ---- */
#define CS_M_XOR(a, b) ((a) ^ (b))
#define CS_M_AND(a, b) ((a) & (b))
#define CS_M_OR(a, b) ((a) | (b))
#define CS_M_NOT(a) (~(a))
#define CS_M_SPLAT(c) ((uint64_t)(c))
#define CS_M_BIT(x, b) ((uint64_t)0 - (uint64_t)(((x) >> (b)) & 1u))  /* bit b of a byte as a 0/all-ones mask */
