/* {{ table }}[v[i]] for i < n through AESENCLAST, 16 lookups per run: {{ table }}(x) = A·inv(B·x ^ b) ^ a
   (cipherspec/sbox.py), B·x ^ b and the output map as PSHUFB nibble tables held in registers, so no memory
   access depends on v; set_key takes this route when the CPU (under the ISA ceiling) has AES-NI */
CS_KS_AESNI_TARGET static void cs_ctn_aesni_{{ table }}(const uint8_t *v, uint8_t *r, int n)
{
    static const uint8_t isr[16] = {{ isr }};
{% for tag, lo, hi in maps %}
    static const uint8_t {{ tag }}_lo[16] = {{ lo }};
    static const uint8_t {{ tag }}_hi[16] = {{ hi }};
{% endfor %}
    const __m128i m = _mm_set1_epi8(0x0f);
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
