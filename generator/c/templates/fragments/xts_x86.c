/* XTS tweaks on AVX-512 registers: shared by the library's XTS and the AES kernels' own XTS loop */
#ifndef CS_XTS_MULK
/* each 128-bit lane (a little-endian tweak) times alpha^k, 0 < k < 57: shifted left k bits, the k bits
   out folded back times 0x87 (x^7 + x^2 + x + 1) */
#define CS_XTS_MULK(z, k)                                                                                      \
    do {                                                                                                       \
        const __m512i s_ = _mm512_shuffle_epi32(_mm512_srli_epi64(z, 64 - (k)), 0x4e);                         \
        const __m512i f_ = _mm512_xor_si512(_mm512_xor_si512(s_, _mm512_slli_epi64(s_, 1)),                    \
                                            _mm512_xor_si512(_mm512_slli_epi64(s_, 2), _mm512_slli_epi64(s_, 7))); \
        z = _mm512_xor_si512(_mm512_slli_epi64(z, k), _mm512_mask_blend_epi64(0xAA, f_, s_));                 \
    } while (0)
#endif
