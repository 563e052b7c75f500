/* set_key's AES-NI route (x86-64, GCC/Clang): S-boxes affine-equivalent to GF(2^8) inversion through
   AESENCLAST; compiled here with a target attribute, taken only when the CPU has AES-NI and SSSE3 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(CS_PORTABLE_ONLY)
#define CS_KS_AESNI 1
#define CS_KS_AESNI_TARGET __attribute__((target("aes,ssse3")))
#include <immintrin.h>
#endif
