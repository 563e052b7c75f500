/* ---- {{ lanes }}-lane vectors: one lane per block ---- */
#define CS_LANES {{ lanes }}
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CS_NO_VECTOR_EXT)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
