/* ---- x86 vectors: CS_VBITS = 128 (SSE4.1 + AES-NI), 256 (AVX2 + VAES) or 512 (AVX-512 + VAES) ---- */
#include <immintrin.h>
#ifndef CS_VBITS
#define CS_VBITS 128
#endif
#define CS_BPR (CS_VBITS / 128)  /* 16-byte lanes (AES states) per register */
#if CS_VBITS == 128
typedef __m128i cs_x;
#define CS_X_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define CS_X_STORE(p, x) _mm_storeu_si128((__m128i *)(void *)(p), x)
#define CS_X_BCAST16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))  /* one 16-byte pattern in every lane */
#define CS_X_SPLAT8(c) _mm_set1_epi8((char)(c))
#define CS_X_XOR(a, b) _mm_xor_si128(a, b)
#define CS_X_AND(a, b) _mm_and_si128(a, b)
#define CS_X_OR(a, b) _mm_or_si128(a, b)
#define CS_X_ANDNOT(a, b) _mm_andnot_si128(a, b)  /* ~a & b */
#define CS_X_ADD8(a, b) _mm_add_epi8(a, b)
#define CS_X_SUB8(a, b) _mm_sub_epi8(a, b)
#define CS_X_ADD64(a, b) _mm_add_epi64(a, b)
#define CS_X_SLL16(a, k) _mm_slli_epi16(a, k)
#define CS_X_SRL16(a, k) _mm_srli_epi16(a, k)
#define CS_X_SHUFFLE(t, i) _mm_shuffle_epi8(t, i)  /* per 16-byte lane: t[i & 15], 0 where i has bit 7 */
#define CS_X_UNPACKLO8(a, b) _mm_unpacklo_epi8(a, b)
#define CS_X_UNPACKHI8(a, b) _mm_unpackhi_epi8(a, b)
#define CS_X_UNPACKLO16(a, b) _mm_unpacklo_epi16(a, b)
#define CS_X_UNPACKHI16(a, b) _mm_unpackhi_epi16(a, b)
#define CS_X_UNPACKLO32(a, b) _mm_unpacklo_epi32(a, b)
#define CS_X_UNPACKHI32(a, b) _mm_unpackhi_epi32(a, b)
#define CS_X_UNPACKLO64(a, b) _mm_unpacklo_epi64(a, b)
#define CS_X_UNPACKHI64(a, b) _mm_unpackhi_epi64(a, b)
#define CS_X_AESENC(a, k) _mm_aesenc_si128(a, k)
#define CS_X_AESENCLAST(a, k) _mm_aesenclast_si128(a, k)
#define CS_X_AESDEC(a, k) _mm_aesdec_si128(a, k)
#define CS_X_AESDECLAST(a, k) _mm_aesdeclast_si128(a, k)
#define CS_X_FROM128(x) (x)
#define CS_X_ZERO() _mm_setzero_si128()
#define CS_X_LOAD_LANES(p, stride) CS_X_LOAD(p)  /* lane g <- the 16 bytes at p + g * stride */
#define CS_X_STORE_LANES(p, stride, x) CS_X_STORE(p, x)
#elif CS_VBITS == 256
typedef __m256i cs_x;
#define CS_X_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define CS_X_STORE(p, x) _mm256_storeu_si256((__m256i *)(void *)(p), x)
#define CS_X_BCAST16(p) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define CS_X_SPLAT8(c) _mm256_set1_epi8((char)(c))
#define CS_X_XOR(a, b) _mm256_xor_si256(a, b)
#define CS_X_AND(a, b) _mm256_and_si256(a, b)
#define CS_X_OR(a, b) _mm256_or_si256(a, b)
#define CS_X_ANDNOT(a, b) _mm256_andnot_si256(a, b)
#define CS_X_ADD8(a, b) _mm256_add_epi8(a, b)
#define CS_X_SUB8(a, b) _mm256_sub_epi8(a, b)
#define CS_X_ADD64(a, b) _mm256_add_epi64(a, b)
#define CS_X_SLL16(a, k) _mm256_slli_epi16(a, k)
#define CS_X_SRL16(a, k) _mm256_srli_epi16(a, k)
#define CS_X_SHUFFLE(t, i) _mm256_shuffle_epi8(t, i)
#define CS_X_UNPACKLO8(a, b) _mm256_unpacklo_epi8(a, b)
#define CS_X_UNPACKHI8(a, b) _mm256_unpackhi_epi8(a, b)
#define CS_X_UNPACKLO16(a, b) _mm256_unpacklo_epi16(a, b)
#define CS_X_UNPACKHI16(a, b) _mm256_unpackhi_epi16(a, b)
#define CS_X_UNPACKLO32(a, b) _mm256_unpacklo_epi32(a, b)
#define CS_X_UNPACKHI32(a, b) _mm256_unpackhi_epi32(a, b)
#define CS_X_UNPACKLO64(a, b) _mm256_unpacklo_epi64(a, b)
#define CS_X_UNPACKHI64(a, b) _mm256_unpackhi_epi64(a, b)
#define CS_X_AESENC(a, k) _mm256_aesenc_epi128(a, k)
#define CS_X_AESENCLAST(a, k) _mm256_aesenclast_epi128(a, k)
#define CS_X_AESDEC(a, k) _mm256_aesdec_epi128(a, k)
#define CS_X_AESDECLAST(a, k) _mm256_aesdeclast_epi128(a, k)
#define CS_X_FROM128(x) _mm256_broadcastsi128_si256(x)
#define CS_X_ZERO() _mm256_setzero_si256()
#define CS_X_LOAD_LANES(p, stride) _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128( \
    (const __m128i *)(const void *)(p))), _mm_loadu_si128((const __m128i *)(const void *)((p) + (stride))), 1)
#define CS_X_STORE_LANES(p, stride, x)                                                                   \
    do {                                                                                                 \
        _mm_storeu_si128((__m128i *)(void *)(p), _mm256_castsi256_si128(x));                             \
        _mm_storeu_si128((__m128i *)(void *)((p) + (stride)), _mm256_extracti128_si256(x, 1));           \
    } while (0)
#elif CS_VBITS == 512
typedef __m512i cs_x;
#define CS_X_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define CS_X_STORE(p, x) _mm512_storeu_si512((void *)(p), x)
#define CS_X_BCAST16(p) _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define CS_X_SPLAT8(c) _mm512_set1_epi8((char)(c))
#define CS_X_XOR(a, b) _mm512_xor_si512(a, b)
#define CS_X_AND(a, b) _mm512_and_si512(a, b)
#define CS_X_OR(a, b) _mm512_or_si512(a, b)
#define CS_X_ANDNOT(a, b) _mm512_andnot_si512(a, b)
#define CS_X_ADD8(a, b) _mm512_add_epi8(a, b)
#define CS_X_SUB8(a, b) _mm512_sub_epi8(a, b)
#define CS_X_ADD64(a, b) _mm512_add_epi64(a, b)
#define CS_X_SLL16(a, k) _mm512_slli_epi16(a, k)
#define CS_X_SRL16(a, k) _mm512_srli_epi16(a, k)
#define CS_X_SHUFFLE(t, i) _mm512_shuffle_epi8(t, i)
#define CS_X_UNPACKLO8(a, b) _mm512_unpacklo_epi8(a, b)
#define CS_X_UNPACKHI8(a, b) _mm512_unpackhi_epi8(a, b)
#define CS_X_UNPACKLO16(a, b) _mm512_unpacklo_epi16(a, b)
#define CS_X_UNPACKHI16(a, b) _mm512_unpackhi_epi16(a, b)
#define CS_X_UNPACKLO32(a, b) _mm512_unpacklo_epi32(a, b)
#define CS_X_UNPACKHI32(a, b) _mm512_unpackhi_epi32(a, b)
#define CS_X_UNPACKLO64(a, b) _mm512_unpacklo_epi64(a, b)
#define CS_X_UNPACKHI64(a, b) _mm512_unpackhi_epi64(a, b)
#define CS_X_AESENC(a, k) _mm512_aesenc_epi128(a, k)
#define CS_X_AESENCLAST(a, k) _mm512_aesenclast_epi128(a, k)
#define CS_X_AESDEC(a, k) _mm512_aesdec_epi128(a, k)
#define CS_X_AESDECLAST(a, k) _mm512_aesdeclast_epi128(a, k)
#define CS_X_FROM128(x) _mm512_broadcast_i32x4(x)
#define CS_X_ZERO() _mm512_setzero_si512()
#define CS_X_LOAD_LANES(p, stride)                                                                       \
    _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(_mm_loadu_si128(     \
    (const __m128i *)(const void *)(p))), _mm_loadu_si128((const __m128i *)(const void *)((p) + (stride))), 1), \
    _mm_loadu_si128((const __m128i *)(const void *)((p) + 2 * (stride))), 2),                           \
    _mm_loadu_si128((const __m128i *)(const void *)((p) + 3 * (stride))), 3)
#define CS_X_STORE_LANES(p, stride, x)                                                                   \
    do {                                                                                                 \
        _mm_storeu_si128((__m128i *)(void *)(p), _mm512_castsi512_si128(x));                             \
        _mm_storeu_si128((__m128i *)(void *)((p) + (stride)), _mm512_extracti32x4_epi32(x, 1));          \
        _mm_storeu_si128((__m128i *)(void *)((p) + 2 * (stride)), _mm512_extracti32x4_epi32(x, 2));      \
        _mm_storeu_si128((__m128i *)(void *)((p) + 3 * (stride)), _mm512_extracti32x4_epi32(x, 3));      \
    } while (0)
#else
#error "CS_VBITS must be 128, 256 or 512"
#endif
/* the 16-byte AES state at p in every lane of a register; ..._IMC: InvMixColumns of it (AESDEC's round keys) */
#define CS_X_KEY(p) CS_X_FROM128(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define CS_X_KEY_IMC(p) CS_X_FROM128(_mm_aesimc_si128(_mm_loadu_si128((const __m128i *)(const void *)(p))))
