/* ---- bit-linear layers as GF2P8AFFINEQB 8x8 bit matrices where this variant has GFNI (gfnilayers.py) ---- */
/* CS_GFNI_OR(g, p): g, the GFNI form, where the u8 lane vector ({{ nbytes }} bytes) has a GFNI instruction in this
   variant; else p, the IR's shifts and masks.  Either is constant-time: the matrices are constants. */
#if defined(CS_VECTOR_SHUFFLE) && defined(__GFNI__) && ({{ nbytes }} == 16 || ({{ nbytes }} == 32 && defined(__AVX__)) || ({{ nbytes }} == 64 && defined(__AVX512F__)))
#include <immintrin.h>
#define CS_GFNI_LAYERS 1
{% if nbytes == 16 %}#define CS_V8_GFA(x, m, c) ((cs_v8)_mm_gf2p8affine_epi64_epi8((__m128i)(x), _mm_set1_epi64x((long long)(m)), c))
{% elif nbytes == 32 %}#define CS_V8_GFA(x, m, c) ((cs_v8)_mm256_gf2p8affine_epi64_epi8((__m256i)(x), _mm256_set1_epi64x((long long)(m)), c))
{% else %}#define CS_V8_GFA(x, m, c) ((cs_v8)_mm512_gf2p8affine_epi64_epi8((__m512i)(x), _mm512_set1_epi64((long long)(m)), c))
{% endif %}#define CS_GFNI_OR(g, p) (g)
#else
#define CS_GFNI_OR(g, p) (p)
#endif
