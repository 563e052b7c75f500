/* {{ table }}[v[i]] for i < n through AESENCLAST, 16 lookups per run: {{ table }}(x) = A·inv(B·x ^ b) ^ a
   (cipherspec/sbox.py), B·x ^ b and the output map as PSHUFB nibble tables held in registers, so no memory
   access depends on v; set_key takes this route when the CPU (under the ISA ceiling) has AES-NI */
CS_KS_AESNI_TARGET __attribute__((unused)) static inline void cs_ctn_aesni_{{ table }}(const uint8_t *v, uint8_t *r, int n)
{
    static const uint8_t isr[16] = {{ isr }};
{% for tag, lo, hi in maps %}
    static const uint8_t {{ tag }}_lo[16] = {{ lo }};
    static const uint8_t {{ tag }}_hi[16] = {{ hi }};
{% endfor %}
{% if has_in or has_out %}
    const __m128i m = _mm_set1_epi8(0x0f);
{% endif %}
    int i;
    for (i = 0; i < n; i += 16) {
        uint8_t buf[16] = {0};
        const int k = n - i < 16 ? n - i : 16;
        __m128i x;
        memcpy(buf, v + i, (size_t)k);
        x = _mm_loadu_si128((const __m128i *)buf);
{% if has_in %}
        x = _mm_xor_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)in_lo), _mm_and_si128(x, m)),
                          _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)in_hi), _mm_and_si128(_mm_srli_epi16(x, 4), m)));
{% endif %}
        x = _mm_shuffle_epi8(x, _mm_loadu_si128((const __m128i *)isr));  /* AESENCLAST's ShiftRows undone */
        x = _mm_aesenclast_si128(x, _mm_setzero_si128());                /* the AES S-box on every byte */
{% if has_out %}
        x = _mm_xor_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)out_lo), _mm_and_si128(x, m)),
                          _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)out_hi), _mm_and_si128(_mm_srli_epi16(x, 4), m)));
{% endif %}
        _mm_storeu_si128((__m128i *)buf, x);
        memcpy(r + i, buf, (size_t)k);
    }
}
/* the same for n <= 8 lookups packed in a word (byte i: lookup i) and returned the same way: the bytes travel in
   a register (MOVQ), not through a buffer in memory (a store-forwarding stall per batch) */
CS_KS_AESNI_TARGET __attribute__((unused)) static inline uint64_t cs_ctn8_aesni_{{ table }}(uint64_t v)
{
    static const uint8_t isr_b[16] = {{ isr }};
{% for tag, lo, hi in maps %}
    static const uint8_t {{ tag }}_lo_b[16] = {{ lo }};
    static const uint8_t {{ tag }}_hi_b[16] = {{ hi }};
    const __m128i {{ tag }}_lo = _mm_loadu_si128((const __m128i *){{ tag }}_lo_b), {{ tag }}_hi = _mm_loadu_si128((const __m128i *){{ tag }}_hi_b);
{% endfor %}
    const __m128i isr = _mm_loadu_si128((const __m128i *)isr_b);
{% if has_in or has_out %}
    const __m128i m = _mm_set1_epi8(0x0f);
{% endif %}
    __m128i x = _mm_cvtsi64_si128((long long)v);
{% if has_in %}
    x = _mm_xor_si128(_mm_shuffle_epi8(in_lo, _mm_and_si128(x, m)), _mm_shuffle_epi8(in_hi, _mm_and_si128(_mm_srli_epi16(x, 4), m)));
{% endif %}
    x = _mm_shuffle_epi8(x, isr);                     /* AESENCLAST's ShiftRows undone */
    x = _mm_aesenclast_si128(x, _mm_setzero_si128());  /* the AES S-box on every byte */
{% if has_out %}
    x = _mm_xor_si128(_mm_shuffle_epi8(out_lo, _mm_and_si128(x, m)), _mm_shuffle_epi8(out_hi, _mm_and_si128(_mm_srli_epi16(x, 4), m)));
{% endif %}
    return (uint64_t)_mm_cvtsi128_si64(x);
}
