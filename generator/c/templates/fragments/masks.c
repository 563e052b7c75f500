/* ---- S-boxes as Boolean circuits on uint64_t masks (bit i: lookup i): constant-time lookups for the key schedule ---- */
#define CS_M_XOR(a, b) ((a) ^ (b))
#define CS_M_AND(a, b) ((a) & (b))
#define CS_M_OR(a, b) ((a) | (b))
#define CS_M_NOT(a) (~(a))
#define CS_M_SPLAT(c) ((uint64_t)(c))
