/* ---- bit planes: {{ lanes }} blocks, one bit per block in each plane ---- */
#define CS_LANES {{ lanes }}
#define CS_PW {{ plane_words }}  /* 64-bit words per plane */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CS_NO_VECTOR_EXT)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef uint64_t cs_p __attribute__((vector_size({{ plane_words * 8 }})));
#define CS_P_XOR(a, b) ((a) ^ (b))
#define CS_P_AND(a, b) ((a) & (b))
#define CS_P_OR(a, b) ((a) | (b))
#define CS_P_NOT(a) (~(a))
#define CS_P_SHL(a, k) ((a) << (k))
#define CS_P_SHR(a, k) ((a) >> (k))
#define CS_P_SPLAT(c) (cs_p_splat((uint64_t)(c)))
#define CS_P_GET(v, k) ((v)[k])
#define CS_P_SET(v, k, x) ((v)[k] = (x))
static inline cs_p cs_p_splat(uint64_t c)
{
    cs_p r = {0};
    return r + c;
}
#else /* plain arrays: any C99 compiler */
typedef struct { uint64_t l[CS_PW]; } cs_p;
static inline cs_p cs_p_xor(cs_p a, cs_p b)
{
    cs_p r; int i;
    for (i = 0; i < CS_PW; i++) r.l[i] = a.l[i] ^ b.l[i];
    return r;
}
#define CS_P_XOR(a, b) cs_p_xor(a, b)
static inline cs_p cs_p_and(cs_p a, cs_p b)
{
    cs_p r; int i;
    for (i = 0; i < CS_PW; i++) r.l[i] = a.l[i] & b.l[i];
    return r;
}
#define CS_P_AND(a, b) cs_p_and(a, b)
static inline cs_p cs_p_or(cs_p a, cs_p b)
{
    cs_p r; int i;
    for (i = 0; i < CS_PW; i++) r.l[i] = a.l[i] | b.l[i];
    return r;
}
#define CS_P_OR(a, b) cs_p_or(a, b)
static inline cs_p cs_p_not(cs_p a, int k)
{
    cs_p r; int i;
    (void)k;
    for (i = 0; i < CS_PW; i++) r.l[i] = ~a.l[i];
    return r;
}
static inline cs_p cs_p_shl(cs_p a, int k)
{
    cs_p r; int i;
    (void)k;
    for (i = 0; i < CS_PW; i++) r.l[i] = a.l[i] << k;
    return r;
}
static inline cs_p cs_p_shr(cs_p a, int k)
{
    cs_p r; int i;
    (void)k;
    for (i = 0; i < CS_PW; i++) r.l[i] = a.l[i] >> k;
    return r;
}
#define CS_P_NOT(a) cs_p_not(a, 0)
#define CS_P_SHL(a, k) cs_p_shl(a, k)
#define CS_P_SHR(a, k) cs_p_shr(a, k)
static inline cs_p cs_p_splat(uint64_t c)
{
    cs_p r; int i;
    for (i = 0; i < CS_PW; i++) r.l[i] = c;
    return r;
}
#define CS_P_SPLAT(c) cs_p_splat((uint64_t)(c))
#define CS_P_GET(v, k) ((v).l[k])
#define CS_P_SET(v, k, x) ((v).l[k] = (x))
#endif

/* Six SWAR swap stages exchange the 6 bit-in-word index bits (byte j mod 8, bit b) with the 6 low
   plane-index bits (block l div CS_PW): s[(8h+jl)*8+b] lane k bit t = bit b of byte 8h+jl of block
   CS_PW*t+k (the CS_PW lanes of a plane are CS_PW consecutive blocks: whole vectors of blocks in memory).
   Stage v swaps, between planes r and r | d (d = 1 << v), the bits at positions with bit v = 1 of the
   first and bit v = 0 of the second.  The stages act on distinct index bits, so they commute, and each
   is an involution: they run in two register-sized passes -- stages 0..3 within each 16 consecutive
   planes (fused with the gather from the blocks, or the scatter to them), stages 4 and 5 within each
   4 planes r, r + 16, r + 32, r + 48 -- and store runs the same passes in the other order. */
static const uint64_t cs_bs_mask[6] = {
    UINT64_C(0x5555555555555555), UINT64_C(0x3333333333333333), UINT64_C(0x0f0f0f0f0f0f0f0f),
    UINT64_C(0x00ff00ff00ff00ff), UINT64_C(0x0000ffff0000ffff), UINT64_C(0x00000000ffffffff)
};

static inline void cs_bs_swap(cs_p *a, cs_p *b, int v)
{
    const int d = 1 << v;
    const cs_p t = CS_P_AND(CS_P_XOR(CS_P_SHR(*a, d), *b), CS_P_SPLAT(cs_bs_mask[v]));
    *b = CS_P_XOR(*b, t);
    *a = CS_P_XOR(*a, CS_P_SHL(t, d));
}

/* stages 0..3 on 16 consecutive planes (unrolled: constant shifts) */
static inline void cs_bs_low(cs_p x[16])
{
{% for v in range(4) %}
{{ "    " }}{% for r in range(16) if not r // 2 ** v % 2 %}cs_bs_swap(&x[{{ r }}], &x[{{ r + 2 ** v }}], {{ v }});{{ " " if not loop.last }}{% endfor %}

{% endfor %}
}

/* stages 4 and 5 on the planes r, r + 16, r + 32, r + 48 of the 64 planes of block word h (bytes 8h..8h+7) */
static void cs_bs_high_word(cs_p *s, int h)
{
    int r;
    for (r = 0; r < 16; r++) {
        cs_p *q = s + h * 64 + r;
        cs_p x0 = q[0], x1 = q[16], x2 = q[32], x3 = q[48];
        cs_bs_swap(&x0, &x1, 4);
        cs_bs_swap(&x2, &x3, 4);
        cs_bs_swap(&x0, &x2, 5);
        cs_bs_swap(&x1, &x3, 5);
        q[0] = x0; q[16] = x1; q[32] = x2; q[48] = x3;
    }
}

/* stages 4 and 5 on every block word */
static void cs_bs_high(cs_p *s)
{
    int h;
    for (h = 0; h < CS_BLOCK / 8; h++) cs_bs_high_word(s, h);
}

/* in: CS_LANES blocks -> s: CS_BLOCK * 8 planes */
static void cs_bs_load(cs_p *s, const uint8_t *in)
{
    int h, g, i, k;
    for (h = 0; h < CS_BLOCK / 8; h++)
        for (g = 0; g < 64; g += 16) {
            cs_p x[16];
            for (i = 0; i < 16; i++)
                for (k = 0; k < CS_PW; k++)
                    CS_P_SET(x[i], k, cs_load64le(in + (CS_PW * (g + i) + k) * CS_BLOCK + 8 * h));
            cs_bs_low(x);
            for (i = 0; i < 16; i++) s[h * 64 + g + i] = x[i];
        }
    cs_bs_high(s);
}

/* s: CS_BLOCK * 8 planes (clobbered) -> out: CS_LANES blocks */
static void cs_bs_store(uint8_t *out, cs_p *s)
{
    int h, g, i, k;
    cs_bs_high(s);
    for (h = 0; h < CS_BLOCK / 8; h++)
        for (g = 0; g < 64; g += 16) {
            cs_p x[16];
            for (i = 0; i < 16; i++) x[i] = s[h * 64 + g + i];
            cs_bs_low(x);
            for (i = 0; i < 16; i++)
                for (k = 0; k < CS_PW; k++)
                    cs_store64le(out + (CS_PW * (g + i) + k) * CS_BLOCK + 8 * h, CS_P_GET(x[i], k));
        }
}

{% if counter %}
/* CTR without counter blocks in memory: s = the planes of the CS_LANES counter blocks ctr, ctr + 1, ...
   (big-endian over the block; the caller checked that the low 64 bits do not carry in this run).  The
   block words above the last are the same in every block: their planes are all-zero or all-one, set
   directly; only the last word (the counter's low 64 bits) is transposed.
       before: 256 counter blocks written, then 2 x 64 planes transposed
       after:  64 planes splatted from the counter's bytes 0..7, 64 planes transposed */
static void cs_bs_load_ctr(cs_p *s, const uint8_t *ctr)
{
    const int last = CS_BLOCK / 8 - 1;
    const uint64_t lo = cs_load64be(ctr + CS_BLOCK - 8);
    int j, b, g, i, k;
    for (j = 0; j < 8 * last; j++)
        for (b = 0; b < 8; b++) s[j * 8 + b] = CS_P_SPLAT((uint64_t)0 - (uint64_t)(ctr[j] >> b & 1));
    for (g = 0; g < 64; g += 16) {
        cs_p x[16];
        for (i = 0; i < 16; i++)
            for (k = 0; k < CS_PW; k++) {  /* block CS_PW(g + i) + k: its last word as the bytes in memory read it */
                uint8_t w[8];
                cs_store64be(w, lo + (uint64_t)(CS_PW * (g + i) + k));
                CS_P_SET(x[i], k, cs_load64le(w));
            }
        cs_bs_low(x);
        for (i = 0; i < 16; i++) s[last * 64 + g + i] = x[i];
    }
    cs_bs_high_word(s, last);
}

/* The next run's input and output lines, a share before each piece of the core (part of parts): a run
   reads its input and writes its output in one burst at its end, long after the previous burst, which
   the hardware prefetcher does not run ahead of; from DRAM that burst stalled (AES-128, 64 MiB: -12%).
   Addresses only (public); a prefetch past the end of the buffers is a hint that does not fault. */
static inline void cs_bs_prefetch(const uint8_t *in, const uint8_t *out, int part, int parts)
{
#if defined(__GNUC__) || defined(__clang__)
    const size_t lines = CS_LANES * CS_BLOCK / 64, per = (lines + (size_t)parts - 1) / (size_t)parts;
    size_t q;
    for (q = (size_t)part * per; q < (size_t)(part + 1) * per && q < lines; q++) {
        __builtin_prefetch((const void *)((uintptr_t)in + CS_LANES * CS_BLOCK + 64 * q), 0, 3);
        __builtin_prefetch((const void *)((uintptr_t)out + CS_LANES * CS_BLOCK + 64 * q), 1, 3);
    }
#else
    (void)in, (void)out, (void)part, (void)parts;
#endif
}

/* The scatter below as scalar 64-bit loads, XORs and stores: the vector units are what a bitsliced kernel
   is bound by, and gcc's vectorized form of this loop (lane interleaves behind an aliasing check) took
   vector slots the integer units can do instead (AES-128 avx2 CTR, 64 MiB: +2-3%). */
#if defined(__GNUC__) && !defined(__clang__)
#define CS_SCALAR_LOOP __attribute__((optimize("no-tree-loop-vectorize")))
#else
#define CS_SCALAR_LOOP
#endif

/* out = in ^ the CS_LANES blocks of the planes s (clobbered): cs_bs_store with the keystream XORed into
   the input on the way out (no keystream buffer; in == out allowed) */
CS_SCALAR_LOOP static void cs_bs_store_xor(uint8_t *out, cs_p *s, const uint8_t *in)
{
    int h, g, i, k;
    cs_bs_high(s);
    for (g = 0; g < 64; g += 16) {
        cs_p x[CS_BLOCK / 8][16];  /* every word of the blocks CS_PW*g .. CS_PW*(g + 16) - 1: whole blocks */
        for (h = 0; h < CS_BLOCK / 8; h++) {
            for (i = 0; i < 16; i++) x[h][i] = s[h * 64 + g + i];
            cs_bs_low(x[h]);
        }
        for (i = 0; i < 16; i++)
            for (k = 0; k < CS_PW; k++)
                for (h = 0; h < CS_BLOCK / 8; h++) {
                    const size_t at = (size_t)(CS_PW * (g + i) + k) * CS_BLOCK + 8 * (size_t)h;
                    cs_store64le(out + at, CS_P_GET(x[h][i], k) ^ cs_load64le(in + at));
                }
    }
}
{% endif %}
