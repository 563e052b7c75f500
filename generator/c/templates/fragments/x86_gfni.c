/* ---- GFNI (where the variant is compiled with -mgfni): 8x8 bit-matrix maps on every byte ---- */
#if defined(__GFNI__)
#if CS_VBITS == 128
#define CS_X_GF2P8AFFINE(x, m, c) _mm_gf2p8affine_epi64_epi8(x, _mm_set1_epi64x((long long)(m)), c)
#define CS_X_GF2P8AFFINEINV(x, m, c) _mm_gf2p8affineinv_epi64_epi8(x, _mm_set1_epi64x((long long)(m)), c)
#elif CS_VBITS == 256
#define CS_X_GF2P8AFFINE(x, m, c) _mm256_gf2p8affine_epi64_epi8(x, _mm256_set1_epi64x((long long)(m)), c)
#define CS_X_GF2P8AFFINEINV(x, m, c) _mm256_gf2p8affineinv_epi64_epi8(x, _mm256_set1_epi64x((long long)(m)), c)
#else
#define CS_X_GF2P8AFFINE(x, m, c) _mm512_gf2p8affine_epi64_epi8(x, _mm512_set1_epi64((long long)(m)), c)
#define CS_X_GF2P8AFFINEINV(x, m, c) _mm512_gf2p8affineinv_epi64_epi8(x, _mm512_set1_epi64((long long)(m)), c)
#endif
#endif
