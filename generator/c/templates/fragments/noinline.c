#if defined(__GNUC__) || defined(__clang__)
#define CS_NOINLINE __attribute__((noinline))
#else
#define CS_NOINLINE
#endif
