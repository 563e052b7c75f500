/* a 64-bit byte swap (the counter's low 64 bits as a little-endian block word); GCC/Clang vectorize the
   builtin over a lane array (one byte shuffle) */
#if defined(__GNUC__) || defined(__clang__)
#define cs_bswap64(v) __builtin_bswap64(v)
#else
static uint64_t cs_bswap64(uint64_t v)
{
    v = ((v & UINT64_C(0x00ff00ff00ff00ff)) << 8) | ((v >> 8) & UINT64_C(0x00ff00ff00ff00ff));
    v = ((v & UINT64_C(0x0000ffff0000ffff)) << 16) | ((v >> 16) & UINT64_C(0x0000ffff0000ffff));
    return (v << 32) | (v >> 32);
}
#endif
