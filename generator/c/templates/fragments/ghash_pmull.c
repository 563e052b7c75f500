/* ---- GHASH with PMULL/PMULL2 (AArch64 FEAT_PMULL; Linux: getauxval(AT_HWCAP) & HWCAP_PMULL) ----
 * The operand form of ghash.c (included there; a block as the 128-bit integer of its bytes in big-endian order, in
 * {lo, hi} 64-bit lanes; H^i' = H^i * y; MontRed by two folds with C = 0xC2000000_00000000), so the
 * powers gcm_init computes serve it unchanged (the last 8 of h[CS_GH_POWERS]).  Per block: one TBL (byte reversal), three 64x64
 * carry-less products (Karatsuba: PMULL lo*lo, PMULL2 hi*hi, PMULL (lo^hi)*(lo^hi)); per 8 blocks one
 * reduction (aggregated over H^8' .. H^1', kept in registers with their Karatsuba halves, two per register).
 *     x = 8 blocks:  sum_j  X_j * H^(8-j)'  ->  lo, mid, hi  ->  MontRed  ->  x
 * Constant-time: no table lookups in memory, no data-dependent branches (PMULL has fixed latency). */
#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#include <arm_neon.h>
#define CS_PMULL 1
#if defined(__clang__)
#define CS_PMULL_TARGET __attribute__((target("aes")))
#else
#define CS_PMULL_TARGET __attribute__((target("+crypto")))
#endif

/* PMULL: the low 64-bit lanes' carry-less product */
CS_PMULL_TARGET static inline uint8x16_t cs_pm_lo(uint8x16_t a, uint8x16_t b)
{
    return vreinterpretq_u8_p128(vmull_p64(vgetq_lane_p64(vreinterpretq_p64_u8(a), 0), vgetq_lane_p64(vreinterpretq_p64_u8(b), 0)));
}

/* PMULL2: the high 64-bit lanes' carry-less product */
CS_PMULL_TARGET static inline uint8x16_t cs_pm_hi(uint8x16_t a, uint8x16_t b)
{
    return vreinterpretq_u8_p128(vmull_high_p64(vreinterpretq_p64_u8(a), vreinterpretq_p64_u8(b)));
}

/* lane 0 = lo ^ hi (Karatsuba's middle operand) */
static inline uint8x16_t cs_pm_fold(uint8x16_t a)
{
    return veorq_u8(a, vextq_u8(a, a, 8));
}

/* MontRed of lo + mid * y^64 + hi * y^128 (mid already Karatsuba-corrected) */
CS_PMULL_TARGET static inline uint8x16_t cs_pm_reduce(uint8x16_t lo, uint8x16_t mid, uint8x16_t hi)
{
    const uint8x16_t c = vreinterpretq_u8_u64(vdupq_n_u64(0xC200000000000000u)), z = vdupq_n_u8(0);
    uint8x16_t t = veorq_u8(lo, vextq_u8(z, mid, 8));  /* + mid * y^64: its low half into lane 1 */
    hi = veorq_u8(hi, vextq_u8(mid, z, 8));             /* its high half into hi's lane 0 */
    t = veorq_u8(vextq_u8(t, t, 8), cs_pm_lo(t, c));    /* fold lane 0 */
    t = veorq_u8(vextq_u8(t, t, 8), cs_pm_lo(t, c));    /* fold the new lane 0 */
    return veorq_u8(t, hi);
}

/* Karatsuba's (lo ^ hi) * (lo' ^ hi') for power i: the middle operands of powers 2m and 2m + 1 share one
   register (kk[m]: lane 0, lane 1), and fold(d) holds lo ^ hi in both lanes, so PMULL takes an even
   power's and PMULL2 an odd one's */
CS_PMULL_TARGET static inline uint8x16_t cs_pm_mid(uint8x16_t fd, const uint8x16_t *kk, size_t i)
{
    return i & 1 ? cs_pm_hi(fd, kk[i >> 1]) : cs_pm_lo(fd, kk[i >> 1]);
}

/* blocks first..7 against H^(8-first)' .. H^1' (k[i] = H^(8-i)'), x added into the first: one reduction */
CS_PMULL_TARGET static inline uint8x16_t cs_pm_run(uint8x16_t acc, const uint8x16_t *k, const uint8x16_t *kk,
                                                   const uint8_t *data, size_t first, uint8x16_t rev)
{
    uint8x16_t d = veorq_u8(vqtbl1q_u8(vld1q_u8(data), rev), acc);
    uint8x16_t lo = cs_pm_lo(d, k[first]), hi = cs_pm_hi(d, k[first]), mid = cs_pm_mid(cs_pm_fold(d), kk, first);
    size_t i;
#pragma GCC unroll 8
    for (i = first + 1; i < 8; i++) {  /* first = 0: unrolled, the powers stay in registers */
        data += 16;
        d = vqtbl1q_u8(vld1q_u8(data), rev);
        lo = veorq_u8(lo, cs_pm_lo(d, k[i]));
        hi = veorq_u8(hi, cs_pm_hi(d, k[i]));
        mid = veorq_u8(mid, cs_pm_mid(cs_pm_fold(d), kk, i));
    }
    return cs_pm_reduce(lo, veorq_u8(mid, veorq_u8(lo, hi)), hi);
}

CS_PMULL_TARGET static void cs_ghash_pmull(uint64_t x[2], const uint64_t (*h)[2], const uint8_t *data, size_t blocks)
{
    static const uint8_t rev_bytes[16] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    const uint8x16_t rev = vld1q_u8(rev_bytes);
    uint8x16_t acc = vreinterpretq_u8_u64(vld1q_u64(x)), k[8], kk[4];
    size_t i;
    for (i = 0; i < 8; i++) k[i] = vreinterpretq_u8_u64(vld1q_u64(h[CS_GH_POWERS - 8 + i]));  /* H^8' .. H^1' */
    for (i = 0; i < 4; i++)
        kk[i] = vreinterpretq_u8_u64(vzip1q_u64(vreinterpretq_u64_u8(cs_pm_fold(k[2 * i])),
                                                vreinterpretq_u64_u8(cs_pm_fold(k[2 * i + 1]))));
    for (; blocks >= 8; blocks -= 8, data += 128) acc = cs_pm_run(acc, k, kk, data, 0, rev);
    if (blocks) acc = cs_pm_run(acc, k, kk, data, 8 - blocks, rev);
    vst1q_u64(x, vreinterpretq_u64_u8(acc));
}
#endif