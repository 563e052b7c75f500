/* ---- GHASH (GCM's universal hash), run-time dispatched like the kernels ----
 * Representation: a block b0..b127 (b0 the top bit of byte 0, the coefficient of x^0) is held as the
 * 128-bit integer of its bytes in big-endian order (the byte-reversed block: integer bit 127 = b0), in
 * two 64-bit words {lo, hi}.  In that form a GCM product a*b is (A*B) * y^-127 mod G'(y), G' = y^128 +
 * y^127 + y^126 + y^121 + 1 (the reflected polynomial), where A*B is the plain carry-less product.
 * With H' = H * y mod G' precomputed, a*h = MontRed(A * H'), MontRed(T) = T * y^-128 mod G': two folds
 * of the low 64-bit word by the constant C = y^63 + y^62 + y^57 (0xC2000000_00000000), no bit shifts.
 * Aggregated reduction: sum(X_i * H^(n-i)') over n blocks, unreduced, then one MontRed; each 128x128
 * product as three 64x64 ones (Karatsuba: the middle term from (a.lo ^ a.hi)(b.lo ^ b.hi)).
 * the key's gh holds H^32' .. H^1' (h[31] = H'), so a run of n <= 32 blocks uses h[32 - n] ...
 * Variants (best first; CIPHERSPEC_X86_ISA caps them like the kernels, see cs_levels):
 *     vpclmul_avx512  VPCLMULQDQ on zmm (4 blocks per instruction), 32 blocks per reduction
 *     vpclmul_avx2    VPCLMULQDQ on ymm (2 blocks per instruction), 16 blocks per reduction
 *     pclmul          PCLMULQDQ, 8 blocks per reduction
{% if pmull | default(false) %}
 *     pmull           AArch64 PMULL/PMULL2 (ghash_pmull.c), 8 blocks per reduction
{% endif %}
 *     portable        C: 64x64 carry-less products from integer multiplies on bits 4 apart (the
 *                     "holes" take the carries), no tables, no secret-dependent branches or addresses */
#define CS_GH_POWERS 32  /* the powers of H a context holds (the most blocks per reduction) */
typedef void (*cs_ghash_fn)(uint64_t x[2], const uint64_t (*h)[2], const uint8_t *data, size_t blocks);

/* 32x32 -> 64 carry-less: operands split into the bits at positions = 0, 1, 2, 3 mod 4; an integer
   product of two such parts has at most 8 terms per result bit, so its sums (< 16) stay within their
   4-bit field and the result bit of the field's class is the parity */
static uint64_t cs_clmul32(uint32_t a, uint32_t b)
{
    const uint64_t a0 = a & 0x11111111u, a1 = a & 0x22222222u, a2 = a & 0x44444444u, a3 = a & 0x88888888u;
    const uint64_t b0 = b & 0x11111111u, b1 = b & 0x22222222u, b2 = b & 0x44444444u, b3 = b & 0x88888888u;
    const uint64_t z0 = (a0 * b0) ^ (a1 * b3) ^ (a2 * b2) ^ (a3 * b1);
    const uint64_t z1 = (a0 * b1) ^ (a1 * b0) ^ (a2 * b3) ^ (a3 * b2);
    const uint64_t z2 = (a0 * b2) ^ (a1 * b1) ^ (a2 * b0) ^ (a3 * b3);
    const uint64_t z3 = (a0 * b3) ^ (a1 * b2) ^ (a2 * b1) ^ (a3 * b0);
    return (z0 & 0x1111111111111111u) | (z1 & 0x2222222222222222u) | (z2 & 0x4444444444444444u)
           | (z3 & 0x8888888888888888u);
}

/* 64x64 -> 128 carry-less (Karatsuba over 32-bit halves): r[0] low word, r[1] high */
static void cs_clmul64(uint64_t a, uint64_t b, uint64_t r[2])
{
    const uint64_t lo = cs_clmul32((uint32_t)a, (uint32_t)b), hi = cs_clmul32((uint32_t)(a >> 32), (uint32_t)(b >> 32));
    const uint64_t mid = cs_clmul32((uint32_t)(a ^ (a >> 32)), (uint32_t)(b ^ (b >> 32))) ^ lo ^ hi;
    r[0] = lo ^ (mid << 32);
    r[1] = hi ^ (mid >> 32);
}

/* x = MontRed(x * h) (h in the H' form): a GCM product */
static void cs_gf_mul(uint64_t x[2], const uint64_t h[2])
{
    uint64_t lo[2], hi[2], mid[2], t0, t1, t2, t3;
    cs_clmul64(x[0], h[0], lo);
    cs_clmul64(x[1], h[1], hi);
    cs_clmul64(x[0] ^ x[1], h[0] ^ h[1], mid);
    t0 = lo[0];
    t1 = lo[1] ^ mid[0] ^ lo[0] ^ hi[0];
    t2 = hi[0] ^ mid[1] ^ lo[1] ^ hi[1];
    t3 = hi[1];
    /* fold t0: T' = T / y^64 + t0 * y^64 + t0 * C */
    t1 ^= (t0 << 63) ^ (t0 << 62) ^ (t0 << 57);
    t2 ^= t0 ^ (t0 >> 1) ^ (t0 >> 2) ^ (t0 >> 7);
    /* fold t1 */
    x[0] = t2 ^ (t1 << 63) ^ (t1 << 62) ^ (t1 << 57);
    x[1] = t3 ^ t1 ^ (t1 >> 1) ^ (t1 >> 2) ^ (t1 >> 7);
}

static void cs_ghash_portable(uint64_t x[2], const uint64_t (*h)[2], const uint8_t *data, size_t blocks)
{
    for (; blocks; blocks--, data += 16) {
        x[1] ^= cs_load64be(data);
        x[0] ^= cs_load64be(data + 8);
        cs_gf_mul(x, h[CS_GH_POWERS - 1]);
    }
}

/* H' = H * y mod G' from the block E_K(0): the integer shifted left once, G' added where bit 127 fell out */
static void cs_ghash_key(uint64_t h[2], const uint8_t *e0)
{
    const uint64_t hi = cs_load64be(e0), lo = cs_load64be(e0 + 8), m = (uint64_t)0 - (hi >> 63);
    h[1] = (hi << 1 | lo >> 63) ^ (m & 0xC200000000000000u);
    h[0] = (lo << 1) ^ (m & 1u);
}

#ifdef CS_X86
#include <immintrin.h>
#define CS_TARGET(t) __attribute__((target(t)))

{% include "c/fragments/ghash_x86.c" %}

CS_TARGET("pclmul,ssse3") static void cs_ghash_pclmul(uint64_t x[2], const uint64_t (*h)[2], const uint8_t *data, size_t blocks)
{
    const __m128i bswap = _mm_loadu_si128((const __m128i *)cs_gh_bswap);
    __m128i acc = _mm_loadu_si128((const __m128i *)x);
    while (blocks) {
        const size_t n = blocks < 8 ? blocks : 8;  /* 8 blocks per reduction, then what is left */
        const uint64_t (*hp)[2] = h + CS_GH_POWERS - n;
        __m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;
        size_t j;
        for (j = 0; j < n; j++) {
            __m128i d = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * j)), bswap);
            const __m128i k = _mm_loadu_si128((const __m128i *)hp[j]);
            if (j == 0) d = _mm_xor_si128(d, acc);
            lo = _mm_xor_si128(lo, _mm_clmulepi64_si128(d, k, 0x00));
            hi = _mm_xor_si128(hi, _mm_clmulepi64_si128(d, k, 0x11));
            mid = _mm_xor_si128(mid, _mm_clmulepi64_si128(_mm_xor_si128(d, _mm_shuffle_epi32(d, 0x4e)),
                                                          _mm_xor_si128(k, _mm_shuffle_epi32(k, 0x4e)), 0x00));
        }
        mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));  /* Karatsuba's middle term */
        acc = cs_gh_reduce(lo, mid, hi);
        data += 16 * n;
        blocks -= n;
    }
    _mm_storeu_si128((__m128i *)x, acc);
}

CS_TARGET("avx2,pclmul,vpclmulqdq") static void cs_ghash_vpclmul256(uint64_t x[2], const uint64_t (*h)[2], const uint8_t *data, size_t blocks)
{
    const __m256i bswap = _mm256_loadu_si256((const __m256i *)cs_gh_bswap);
    __m128i acc = _mm_loadu_si128((const __m128i *)x);
    for (; blocks >= 16; blocks -= 16, data += 256) {
        __m256i lo = _mm256_setzero_si256(), mid = lo, hi = lo;
        int j;
        for (j = 0; j < 8; j++) {
            __m256i d = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(data + 32 * j)), bswap);
            const __m256i k = _mm256_loadu_si256((const __m256i *)h[CS_GH_POWERS - 16 + 2 * j]);
            if (j == 0) d = _mm256_xor_si256(d, _mm256_blend_epi32(_mm256_setzero_si256(), _mm256_castsi128_si256(acc), 0x0f));
            lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128(d, k, 0x00));
            hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128(d, k, 0x11));
            mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128(_mm256_xor_si256(d, _mm256_shuffle_epi32(d, 0x4e)),
                                                                 _mm256_xor_si256(k, _mm256_shuffle_epi32(k, 0x4e)), 0x00));
        }
        mid = _mm256_xor_si256(mid, _mm256_xor_si256(lo, hi));  /* Karatsuba's middle term */
        acc = cs_gh_reduce(_mm_xor_si128(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1)),
                           _mm_xor_si128(_mm256_castsi256_si128(mid), _mm256_extracti128_si256(mid, 1)),
                           _mm_xor_si128(_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1)));
    }
    _mm_storeu_si128((__m128i *)x, acc);
    if (blocks) cs_ghash_pclmul(x, h, data, blocks);
}

/* nz zmm registers of blocks (4 each) from data, acc added to the first, times k[0 ..] (cs_gh512_keys): reduced */
CS_TARGET("avx512f,avx512bw,avx2,pclmul,vpclmulqdq") static inline __attribute__((always_inline)) __m128i
cs_gh512_run(__m128i acc, const __m512i *k, const __m512i *kk, const uint8_t *data, int nz)
{
    __m512i d[8];
    int j;
    for (j = 0; j < nz; j++) d[j] = _mm512_loadu_si512((const void *)(data + 64 * j));
    return cs_gh512_regs(acc, k, kk, d, nz);
}

/* per 128-bit lane: MontRed(a * b) (the GCM product of two operands in H' form gives the next H' power) */
CS_TARGET("avx512f,avx512bw,avx2,pclmul,vpclmulqdq") static __m512i cs_gh512_mul_lanes(__m512i a, __m512i b)
{
    const __m512i c = _mm512_set_epi64(0, (long long)0xC200000000000000u, 0, (long long)0xC200000000000000u, 0,
                                       (long long)0xC200000000000000u, 0, (long long)0xC200000000000000u);
    const __m512i lo = _mm512_clmulepi64_epi128(a, b, 0x00), hi = _mm512_clmulepi64_epi128(a, b, 0x11);
    const __m512i mid = _mm512_xor_si512(_mm512_clmulepi64_epi128(_mm512_xor_si512(a, _mm512_shuffle_epi32(a, 0x4e)),
                                                                  _mm512_xor_si512(b, _mm512_shuffle_epi32(b, 0x4e)), 0x00),
                                         _mm512_xor_si512(lo, hi));
    __m512i t = _mm512_xor_si512(lo, _mm512_bslli_epi128(mid, 8));
    t = _mm512_xor_si512(_mm512_shuffle_epi32(t, 0x4e), _mm512_clmulepi64_epi128(t, c, 0x00));
    t = _mm512_xor_si512(_mm512_shuffle_epi32(t, 0x4e), _mm512_clmulepi64_epi128(t, c, 0x00));
    return _mm512_xor_si512(t, _mm512_xor_si512(hi, _mm512_bsrli_epi128(mid, 8)));
}

/* h[31] (H') given: h[0..30], by doubling: H^2', then (H^4', H^3', H^2') from it in one product, then the 4
   known times H^4', the 8 known times H^8', the 16 times H^16' (lane by lane; set_key runs this for every
   key of a 128-bit-block cipher)
       before: 3 one-block GHASH calls, then 7 dependent products (H^4' each)   after: 5 rounds of products */
CS_TARGET("avx512f,avx512bw,avx2,pclmul,vpclmulqdq") static void cs_ghash_powers512(uint64_t (*h)[2])
{
    const __m512i b1 = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)h[CS_GH_POWERS - 1]));
    const __m512i b2 = cs_gh512_mul_lanes(b1, b1);                                           /* H^2' x 4 */
    const __m512i a = _mm512_mask_blend_epi64(0xf0, b2, b1), c = _mm512_mask_blend_epi64(0xfc, b2, b1);
    const __m512i p1 = _mm512_mask_blend_epi64(0xc0, cs_gh512_mul_lanes(a, c), b1);     /* H^4' .. H^1' */
    const __m512i p2 = cs_gh512_mul_lanes(p1, _mm512_broadcast_i32x4(_mm512_castsi512_si128(p1)));
    const __m512i b8 = _mm512_broadcast_i32x4(_mm512_castsi512_si128(p2));
    const __m512i p3 = cs_gh512_mul_lanes(p1, b8), p4 = cs_gh512_mul_lanes(p2, b8);
    const __m512i b16 = _mm512_broadcast_i32x4(_mm512_castsi512_si128(p4));
    _mm512_storeu_si512((void *)h[CS_GH_POWERS - 4], p1);
    _mm512_storeu_si512((void *)h[CS_GH_POWERS - 8], p2);   /* H^8' .. H^5' */
    _mm512_storeu_si512((void *)h[CS_GH_POWERS - 12], p3);  /* H^12' .. H^9' */
    _mm512_storeu_si512((void *)h[CS_GH_POWERS - 16], p4);  /* H^16' .. H^13' */
    _mm512_storeu_si512((void *)h[CS_GH_POWERS - 20], cs_gh512_mul_lanes(p1, b16));
    _mm512_storeu_si512((void *)h[CS_GH_POWERS - 24], cs_gh512_mul_lanes(p2, b16));
    _mm512_storeu_si512((void *)h[CS_GH_POWERS - 28], cs_gh512_mul_lanes(p3, b16));
    _mm512_storeu_si512((void *)h[CS_GH_POWERS - 32], cs_gh512_mul_lanes(p4, b16));
}

CS_TARGET("avx512f,avx512bw,avx2,pclmul,vpclmulqdq") static void cs_ghash_vpclmul512(uint64_t x[2], const uint64_t (*h)[2], const uint8_t *data, size_t blocks)
{
    __m128i acc = _mm_loadu_si128((const __m128i *)x);
    __m512i k[8], kk[8];
    if (blocks >= 32) {
        cs_gh512_keys(h, k, kk, 8);
        for (; blocks >= 32; blocks -= 32, data += 512) acc = cs_gh512_run(acc, k, kk, data, 8);
    }
    if (blocks >= 16) {
        cs_gh512_keys(h + CS_GH_POWERS - 16, k, kk, 4);
        acc = cs_gh512_run(acc, k, kk, data, 4);
        blocks -= 16;
        data += 256;
    }
    _mm_storeu_si128((__m128i *)x, acc);
    if (blocks) cs_ghash_pclmul(x, h, data, blocks);
}
#endif
{% if pmull | default(false) %}

{% include "c/fragments/ghash_pmull.c" %}
{% endif %}

/* The GHASH variants, best first: what each needs (CS_F_*), and how many powers of H it reads */
static const struct {
    const char *name;
    unsigned features;
    unsigned powers;
    cs_ghash_fn fn;
} cs_ghash_variants[] = {
#ifdef CS_X86
    {"vpclmul_avx512", CS_F_V4 | CS_F_VCLMUL, 32, cs_ghash_vpclmul512},
    {"vpclmul_avx2", CS_F_V3 | CS_F_VCLMUL, 16, cs_ghash_vpclmul256},
    {"pclmul", CS_F_V2 | CS_F_CLMUL, 8, cs_ghash_pclmul},
#endif
{% if pmull | default(false) %}
#ifdef CS_PMULL
    {"pmull", CS_F_PMULL, 8, cs_ghash_pmull},  /* AArch64: ghash_pmull.c (the NEON libraries' modes) */
#endif
{% endif %}
    {"portable", 0, 1, cs_ghash_portable},
};
#define CS_NGHASH ((uint32_t)(sizeof cs_ghash_variants / sizeof cs_ghash_variants[0]))

/* The GHASH variant for the features an ISA ceiling allows (the CPU's own where there is none) */
static uint32_t cs_ghash_choose(unsigned allowed)
{
    uint32_t i;
    for (i = 0; i + 1 < CS_NGHASH; i++)
        if ((cs_ghash_variants[i].features & allowed) == cs_ghash_variants[i].features) break;
    return i;
}
