/* GHASH on x86 registers (see ghash.c for the representation): shared by the library's GHASH variants
   and the AES kernels' fused CTR+GHASH (the same text compiled into both) */
#ifndef CS_TARGET
#define CS_TARGET(t) __attribute__((target(t)))
#endif
/* the byte reversal of each 16-byte lane */
#define CS_GH_BSWAP 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
static const uint8_t cs_gh_bswap[64] = {CS_GH_BSWAP, CS_GH_BSWAP, CS_GH_BSWAP, CS_GH_BSWAP};

/* MontRed of lo + mid * y^64 + hi * y^128 (the sums of the four 64x64 products) */
CS_TARGET("pclmul,ssse3") static __m128i cs_gh_reduce(__m128i lo, __m128i mid, __m128i hi)
{
    const __m128i c = _mm_set_epi64x(0, (long long)0xC200000000000000u);
    __m128i t = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
    hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
    t = _mm_xor_si128(_mm_shuffle_epi32(t, 0x4e), _mm_clmulepi64_si128(t, c, 0x00));
    t = _mm_xor_si128(_mm_shuffle_epi32(t, 0x4e), _mm_clmulepi64_si128(t, c, 0x00));
    return _mm_xor_si128(t, hi);
}

CS_TARGET("avx512f,avx512bw,avx2,pclmul,vpclmulqdq") static inline __m128i cs_gh_fold512(__m512i v)
{
    const __m256i y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    return _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
}

/* the key side of cs_gh512_regs, once per call: k[j] = hp[4j .. 4j + 3], kk[j] = k.lo ^ k.hi per lane in the
   low word (Karatsuba's middle operand)
       before: per 4 blocks  vpshufd + vpxor of the powers   after: per call */
CS_TARGET("avx512f,avx512bw,avx2,pclmul,vpclmulqdq") static inline __attribute__((always_inline)) void
cs_gh512_keys(const uint64_t (*hp)[2], __m512i *k, __m512i *kk, int nz)
{
    int j;
    for (j = 0; j < nz; j++) {
        k[j] = _mm512_loadu_si512((const void *)hp[4 * j]);
        kk[j] = _mm512_xor_si512(k[j], _mm512_shuffle_epi32(k[j], 0x4e));
    }
}

/* nz zmm registers of blocks as loaded (4 blocks each), acc added to the first, times k[0], k[1], ...
   (four powers each, from cs_gh512_keys): the sum, reduced */
CS_TARGET("avx512f,avx512bw,avx2,pclmul,vpclmulqdq") static inline __attribute__((always_inline)) __m128i
cs_gh512_regs(__m128i acc, const __m512i *k, const __m512i *kk, const __m512i *data, int nz)
{
    const __m512i bswap = _mm512_loadu_si512((const void *)cs_gh_bswap);
    __m512i lo = _mm512_setzero_si512(), mid = lo, hi = lo;
    int j;
    for (j = 0; j < nz; j++) {
        __m512i d = _mm512_shuffle_epi8(data[j], bswap);
        if (j == 0) d = _mm512_xor_si512(d, _mm512_maskz_mov_epi64(0x3, _mm512_castsi128_si512(acc)));
        /* Karatsuba: (d.lo ^ d.hi)(k.lo ^ k.hi) ^ lo ^ hi is the middle term */
        lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(d, k[j], 0x00));
        hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(d, k[j], 0x11));
        mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128(_mm512_xor_si512(d, _mm512_shuffle_epi32(d, 0x4e)), kk[j], 0x00));
    }
    mid = _mm512_xor_si512(mid, _mm512_xor_si512(lo, hi));
    return cs_gh_reduce(cs_gh_fold512(lo), cs_gh_fold512(mid), cs_gh_fold512(hi));
}

/* cs_gh512_regs for a loop that cannot keep the powers in registers: nz zmm registers of blocks read from
   data (4 blocks each), acc added to the first, times the powers hp[4j .. 4j + 3] read as memory operands
   of the multiplies (hp 64-byte aligned, else every operand splits a cache line): the sum, reduced once.
   Four products per lane (no Karatsuba operands to prepare), and each sum takes two registers' products
   in one VPTERNLOG (which GCC does not reassociate into a tree of live products).
       before (cs_gh512_regs): 2 * nz registers of powers and Karatsuba halves live; per register VPSHUFB,
               3 VPCLMULQDQ, VPSHUFD, 4 VPXOR
       after:  per register VPSHUFB, 4 VPCLMULQDQ zmm, zmm, [hp + 64j], 2 VPTERNLOG */
CS_TARGET("avx512f,avx512bw,avx2,pclmul,vpclmulqdq") static inline __attribute__((always_inline)) __m128i
cs_gh512_mem(__m128i acc, const uint64_t (*hp)[2], const uint8_t *data, int nz)
{
    const __m512i bswap = _mm512_loadu_si512((const void *)cs_gh_bswap);
    __m512i lo = _mm512_setzero_si512(), mid = lo, hi = lo, d0, d1, k0, k1;
    int j;
    for (j = 0; j < nz; j += 2) {
        k0 = _mm512_loadu_si512((const void *)hp[4 * j]);
        d0 = _mm512_shuffle_epi8(_mm512_loadu_si512((const void *)(data + 64 * j)), bswap);
        if (j == 0) d0 = _mm512_xor_si512(d0, _mm512_maskz_mov_epi64(0x3, _mm512_castsi128_si512(acc)));
        if (j + 1 < nz) {
            k1 = _mm512_loadu_si512((const void *)hp[4 * j + 4]);
            d1 = _mm512_shuffle_epi8(_mm512_loadu_si512((const void *)(data + 64 * j + 64)), bswap);
        } else {  /* an odd register out: times zero */
            k1 = _mm512_setzero_si512();
            d1 = k1;
        }
        lo = _mm512_ternarylogic_epi64(lo, _mm512_clmulepi64_epi128(d0, k0, 0x00), _mm512_clmulepi64_epi128(d1, k1, 0x00), 0x96);
        hi = _mm512_ternarylogic_epi64(hi, _mm512_clmulepi64_epi128(d0, k0, 0x11), _mm512_clmulepi64_epi128(d1, k1, 0x11), 0x96);
        mid = _mm512_ternarylogic_epi64(mid, _mm512_clmulepi64_epi128(d0, k0, 0x01), _mm512_clmulepi64_epi128(d0, k0, 0x10), 0x96);
        mid = _mm512_ternarylogic_epi64(mid, _mm512_clmulepi64_epi128(d1, k1, 0x01), _mm512_clmulepi64_epi128(d1, k1, 0x10), 0x96);
    }
    return cs_gh_reduce(cs_gh_fold512(lo), cs_gh_fold512(mid), cs_gh_fold512(hi));
}
