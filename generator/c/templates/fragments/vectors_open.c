/* ---- {{ vlanes or lanes }}-lane vectors: one lane per block ---- */
#define CS_LANES {{ lanes }}
{% if vlanes %}#define CS_VLANES {{ vlanes }}  /* blocks per vector: a core call runs CS_LANES / CS_VLANES interleaved groups */
{% endif %}#if (defined(__GNUC__) || defined(__clang__)) && !defined(CS_NO_VECTOR_EXT)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
/* two-vector constant shuffles (lane i of the result: lane idx[i] of a ++ b), for the block transposition */
#define CS_VECTOR_SHUFFLE 1
#if defined(__clang__)
#define CS_SHUF2(t, a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define CS_SHUF2(t, a, b, ...) __builtin_shuffle(a, b, (t){__VA_ARGS__})
#endif
