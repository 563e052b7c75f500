/* ---- authenticated and storage modes over the same kernels: {% if block_bytes == 16 %}GCM/GMAC (SP 800-38D), CCM (SP 800-38C),
 * XTS (IEEE 1619, SP 800-38E), {% endif %}CMAC (SP 800-38B).  Arguments are checked before anything is written; a failed
 * decryption zeroes its output; contexts and stack copies of key-dependent values are wiped when they end. ---- */

{% if block_bytes == 16 or cmac_rb %}
/* a memset the compiler cannot drop as a dead store */
static void *(*const volatile cs_memset_v)(void *, int, size_t) = memset;

static void cs_wipe(void *p, size_t n)
{
    cs_memset_v(p, 0, n);
}

{% if block_bytes == 16 %}
/* 1 if the n bytes are equal, else 0, in time that depends on n only */
static int cs_equal_ct(const uint8_t *a, const uint8_t *b, size_t n)
{
    unsigned d = 0;
    size_t i;
    for (i = 0; i < n; i++) d |= (unsigned)(a[i] ^ b[i]);
    return (int)(((d - 1u) >> 8) & 1u);
}
{% endif %}

/* CBC-MAC state x absorbs whole blocks */
static void cs_cbcmac(const cs_kernels *k, const {{ P }}_key *ks, uint8_t x[CS_BLOCK], const uint8_t *data, size_t blocks)
{
{% if block_bytes == 16 %}
    if (blocks) k = cs_kernels_short(ks, k, 1);  /* a serial chain: one-block calls, on the narrowest run */
    if (k->ccm != NULL && blocks) {  /* the kernel's own chain, the round keys in registers */
        k->ccm(ks, x, NULL, data, NULL, blocks, 0);
        return;
    }
{% else %}
    if (blocks) k = cs_kernels_short(ks, k, 1);  /* a serial chain: one-block calls, on the narrowest run */
{% endif %}
    for (; blocks; blocks--, data += CS_BLOCK) {
        cs_xor_bytes(x, x, data, CS_BLOCK);
        k->ecb_encrypt(ks, x, x, 1);
    }
}
{% endif %}

{% if block_bytes == 16 %}
#define CS_GCM_CHUNK 256  /* blocks per stitched step: CTR of 4 KiB, then GHASH of it while it is in L1 (8 KiB left less of L1 to the loop; bench/results/aead-gcm-ctr.md) */
#define CS_GCM_MAX_TEXT (((uint64_t)1 << 36) - 32)   /* 2^39 - 256 bits */
#define CS_GCM_MAX_AAD (((uint64_t)1 << 61) - 1)     /* under 2^64 bits */
#define CS_GCM_MAGIC 0x47434d31u
#define CS_GCM_KEY_MAGIC 0x47434b31u

/* ---- GCM ---- */
static int cs_gcm_tag_len_ok(size_t t)
{
    return t == 16 || t == 15 || t == 14 || t == 13 || t == 12 || t == 8 || t == 4;
}

static const cs_kernels *cs_gcm_kernels(const {{ P }}_gcm *c)
{
    return c->magic == CS_GCM_MAGIC && c->ghash < CS_NGHASH ? cs_kernels_of(c->ks) : NULL;
}

/* the powers of H a context reads: its key's, in place (set_key derived them; the context copies none)
       before: per message, gcm_init / gcm_init_key copied 512 bytes of powers in and finish wiped them
       after:  ctx->ks->gh read where they are (the key outlives the context: it already holds ks) */
#define CS_GCM_H(c) ((const uint64_t (*)[2])(c)->ks->gh)

/* GHASH under variant g with the powers h: whole blocks into the state x */
static void cs_gcm_ghash(uint32_t g, const uint64_t (*h)[2], uint64_t x[2], const uint8_t *data, size_t blocks)
{
    cs_ghash_variants[g].fn(x, h, data, blocks);
}

/* n blocks of CTR with inc32: only the counter's low 32 bits count (the kernel's full-width carry out of
   them is undone, the kernel call split where they wrap) */
static void cs_gcm_ctr(const {{ P }}_key *ks, const cs_kernels *k, uint8_t ctr[16], const uint8_t *in, uint8_t *out, size_t n)
{
    uint8_t top[12];
    memcpy(top, ctr, 12);
    while (n) {
        const uint64_t room = ((uint64_t)1 << 32) - cs_load32be(ctr + 12);
        const size_t m = (uint64_t)n < room ? n : (size_t)room;
        k->ctr(ks, ctr, in, out, m);
        memcpy(ctr, top, 12);
        in += 16 * m;
        out += 16 * m;
        n -= m;
    }
}

/* whole blocks, stitched: per chunk, the kernel's keystream then GHASH of the ciphertext (decryption:
   GHASH first, so that in == out works); ctr and x advance */
static void cs_gcm_blocks(const {{ P }}_key *ks, const cs_kernels *k, uint32_t g, const uint64_t (*h)[2], uint8_t ctr[16],
                          uint64_t x[2], const uint8_t *in, uint8_t *out, size_t n, int decrypt)
{
    const int fused = k->ctr_ghash != NULL && (cs_ghash_variants[g].features & CS_F_V4) != 0;
    while (n) {
        size_t m = n < CS_GCM_CHUNK ? n : CS_GCM_CHUNK;
        if (fused) {  /* the kernel's own stitched loop, up to where the counter's low 32 bits wrap */
            const uint64_t room = ((uint64_t)1 << 32) - cs_load32be(ctr + 12);
            uint8_t top[12];  /* inc32: a loop that ends exactly at the wrap must not carry into them */
            memcpy(top, ctr, 12);
            m = k->ctr_ghash(ks, ctr, in, out, (uint64_t)n < room ? n : (size_t)room, x, h, decrypt);
            memcpy(ctr, top, 12);
            if (m) {
                in += 16 * m;
                out += 16 * m;
                n -= m;
                continue;
            }
            m = n < CS_GCM_CHUNK ? n : CS_GCM_CHUNK;  /* under a batch left, or the wrap: below */
        }
        if (decrypt) cs_gcm_ghash(g, h, x, in, m);
        cs_gcm_ctr(ks, k, ctr, in, out, m);
        if (!decrypt) cs_gcm_ghash(g, h, x, out, m);
        in += 16 * m;
        out += 16 * m;
        n -= m;
    }
}

/* GHASH of a zero-padded partial block */
static void cs_gcm_pad(uint32_t g, const uint64_t (*h)[2], uint64_t x[2], const uint8_t *data, size_t n)
{
    uint8_t b[16];
    memset(b, 0, 16);
    memcpy(b, data, n);
    cs_gcm_ghash(g, h, x, b, 1);
}

/* GHASH of the length block */
static void cs_gcm_lengths(uint32_t g, const uint64_t (*h)[2], uint64_t x[2], uint64_t a_bytes, uint64_t t_bytes)
{
    uint8_t b[16];
    cs_store64be(b, a_bytes * 8);
    cs_store64be(b + 8, t_bytes * 8);
    cs_gcm_ghash(g, h, x, b, 1);
}

/* H' and the powers the GHASH variant g reads (h[32 - n] .. h[31] = H'), under the key; the rest zero */
static void cs_gcm_powers(const cs_kernels *k, const {{ P }}_key *ks, uint32_t g, uint64_t (*h)[2])
{
    uint8_t b[16];
    uint64_t h1[2];
    uint32_t i, n = cs_ghash_variants[g].powers;
    int wide = 0;
    memset(h, 0, sizeof(uint64_t[CS_GH_POWERS][2]));
    memset(b, 0, 16);
    cs_kernels_short(ks, k, 1)->ecb_encrypt(ks, b, b, 1);  /* H = E_K(0) */
    cs_ghash_key(h1, b);
    h[CS_GH_POWERS - 1][0] = h1[0];
    h[CS_GH_POWERS - 1][1] = h1[1];
    memset(b, 0, 16);
#ifdef CS_X86
    if (n == CS_GH_POWERS && (cs_ghash_variants[g].features & CS_F_V4)) {
        wide = 1;
        n = 1;  /* the rest: below, four lanes at a time */
    }
#endif
    for (i = 1; i < n; i++) {  /* H^(i+1)' = MontRed(H^i' * H'): GHASH of a zero block from the state H^i' */
        h[CS_GH_POWERS - 1 - i][0] = h[CS_GH_POWERS - i][0];
        h[CS_GH_POWERS - 1 - i][1] = h[CS_GH_POWERS - i][1];
        cs_ghash_variants[g].fn(h[CS_GH_POWERS - 1 - i], (const uint64_t (*)[2])h, b, 1);
    }
#ifdef CS_X86
    if (wide) cs_ghash_powers512(h);  /* H^2' .. H^32' */
#else
    (void)wide;
#endif
    cs_wipe(b, sizeof b);
    cs_wipe(h1, sizeof h1);
}

/* set_key's part for GCM: the key carries H and its powers (ks->gh), so that no message derives them */
static void cs_gcm_key_powers({{ P }}_key *ks)
{
    cs_gcm_powers(cs_kernels_of(ks), ks, ks->ghash, ks->gh);
}

/* J0 from the IV (12 bytes: IV || 0^31 || 1; else GHASH(IV || 0-pad || [0]64 || [len(IV)]64)) */
static void cs_gcm_j0(uint32_t g, const uint64_t (*h)[2], const uint8_t *iv, size_t iv_len, uint8_t j0[16])
{
    if (iv_len == 12) {
        memcpy(j0, iv, 12);
        cs_store32be(j0 + 12, 1);
    } else {
        uint64_t x[2] = {0, 0};
        cs_gcm_ghash(g, h, x, iv, iv_len / 16);
        if (iv_len % 16) cs_gcm_pad(g, h, x, iv + iv_len - iv_len % 16, iv_len % 16);
        cs_gcm_lengths(g, h, x, 0, iv_len);
        cs_store64be(j0, x[1]);
        cs_store64be(j0 + 8, x[0]);
    }
}

/* the per-message part of init, the H powers in place: J0 from the IV, the first counter block */
static void cs_gcm_start_iv({{ P }}_gcm *ctx, const uint8_t *iv, size_t iv_len)
{
    cs_gcm_j0(ctx->ghash, CS_GCM_H(ctx), iv, iv_len, ctx->j0);
    memcpy(ctx->ctr, ctx->j0, 16);
    cs_store32be(ctx->ctr + 12, cs_load32be(ctx->j0 + 12) + 1);  /* inc32 */
    ctx->magic = CS_GCM_MAGIC;
}

/* a context on the key ks (its powers read in place: CS_GCM_H), everything else zero */
static void cs_gcm_start({{ P }}_gcm *ctx, const {{ P }}_key *ks, uint32_t g, const uint8_t *iv, size_t iv_len)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->ks = ks;
    ctx->ghash = g;
    cs_gcm_start_iv(ctx, iv, iv_len);
}

int {{ P }}_gcm_init({{ P }}_gcm *ctx, const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len)
{
    if (ctx == NULL || ks == NULL || iv == NULL) return CIPHERSPEC_ERR_NULL;
    if (cs_kernels_of(ks) == NULL || ks->ghash >= CS_NGHASH) return CIPHERSPEC_ERR_ISA;
    if (iv_len == 0 || (uint64_t)iv_len > CS_GCM_MAX_AAD) return CIPHERSPEC_ERR_PARAM;
    cs_gcm_start(ctx, ks, ks->ghash, iv, iv_len);
    return CIPHERSPEC_OK;
}

int {{ P }}_gcm_key_init({{ P }}_gcm_key *gk, const {{ P }}_key *ks)
{
    if (gk == NULL || ks == NULL) return CIPHERSPEC_ERR_NULL;
    if (cs_kernels_of(ks) == NULL || ks->ghash >= CS_NGHASH) return CIPHERSPEC_ERR_ISA;
    memset(gk, 0, sizeof *gk);
    gk->ks = ks;
    gk->ghash = ks->ghash;
    gk->magic = CS_GCM_KEY_MAGIC;
    return CIPHERSPEC_OK;
}

int {{ P }}_gcm_init_key({{ P }}_gcm *ctx, const {{ P }}_gcm_key *gk, const uint8_t *iv, size_t iv_len)
{
    if (ctx == NULL || gk == NULL || iv == NULL || gk->ks == NULL) return CIPHERSPEC_ERR_NULL;
    if (gk->magic != CS_GCM_KEY_MAGIC) return CIPHERSPEC_ERR_PARAM;
    if (cs_kernels_of(gk->ks) == NULL || gk->ghash >= CS_NGHASH || gk->ghash != gk->ks->ghash) return CIPHERSPEC_ERR_ISA;
    if (iv_len == 0 || (uint64_t)iv_len > CS_GCM_MAX_AAD) return CIPHERSPEC_ERR_PARAM;
    cs_gcm_start(ctx, gk->ks, gk->ghash, iv, iv_len);
    return CIPHERSPEC_OK;
}

int {{ P }}_gcm_aad({{ P }}_gcm *ctx, const uint8_t *aad, size_t len)
{
    size_t t;
    if (ctx == NULL || aad == NULL) return CIPHERSPEC_ERR_NULL;
    if (cs_gcm_kernels(ctx) == NULL) return ctx->magic == CS_GCM_MAGIC ? CIPHERSPEC_ERR_ISA : CIPHERSPEC_ERR_PARAM;
    if (ctx->phase != 0 || (uint64_t)len > CS_GCM_MAX_AAD - ctx->aad_len) return CIPHERSPEC_ERR_PARAM;
    ctx->aad_len += len;
    if (ctx->used) {  /* complete a partial block */
        t = 16 - ctx->used < len ? 16 - ctx->used : len;
        memcpy(ctx->buf + ctx->used, aad, t);
        ctx->used += (uint32_t)t;
        aad += t;
        len -= t;
        if (ctx->used < 16) return CIPHERSPEC_OK;
        cs_gcm_ghash(ctx->ghash, CS_GCM_H(ctx), ctx->x, ctx->buf, 1);
        ctx->used = 0;
    }
    cs_gcm_ghash(ctx->ghash, CS_GCM_H(ctx), ctx->x, aad, len / 16);
    memcpy(ctx->buf, aad + len - len % 16, len % 16);
    ctx->used = (uint32_t)(len % 16);
    return CIPHERSPEC_OK;
}

/* the end of the AAD: its partial block, zero-padded */
static void cs_gcm_end_aad({{ P }}_gcm *c)
{
    if (c->phase == 0) {
        if (c->used) cs_gcm_pad(c->ghash, CS_GCM_H(c), c->x, c->buf, c->used);
        c->used = 0;
        c->phase = 1;
    }
}

static int cs_gcm_update({{ P }}_gcm *c, const uint8_t *in, uint8_t *out, size_t len, uint32_t dir)
{
    const cs_kernels *k;
    size_t whole;
    if (c == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if ((k = cs_gcm_kernels(c)) == NULL) return c->magic == CS_GCM_MAGIC ? CIPHERSPEC_ERR_ISA : CIPHERSPEC_ERR_PARAM;
    if ((c->dir != 0 && c->dir != dir) || (uint64_t)len > CS_GCM_MAX_TEXT - c->text_len) return CIPHERSPEC_ERR_PARAM;
    cs_gcm_end_aad(c);
    c->dir = dir;
    c->text_len += len;
    for (; len && c->used; len--) {  /* the rest of a partial block's keystream */
        const uint8_t v = *in++;
        *out++ = (uint8_t)(v ^ c->ksb[c->used]);
        c->buf[c->used] = dir == 2 ? v : (uint8_t)(v ^ c->ksb[c->used]);
        if (++c->used == 16) {
            cs_gcm_ghash(c->ghash, CS_GCM_H(c), c->x, c->buf, 1);
            c->used = 0;
        }
    }
    whole = len / 16;
    if (whole) cs_gcm_blocks(c->ks, k, c->ghash, CS_GCM_H(c), c->ctr, c->x, in, out, whole, dir == 2);
    in += 16 * whole;
    out += 16 * whole;
    len %= 16;
    if (len) {  /* a new partial block: its keystream is kept for the next call */
        memset(c->ksb, 0, 16);
        cs_gcm_ctr(c->ks, cs_kernels_short(c->ks, k, 1), c->ctr, c->ksb, c->ksb, 1);
        for (; c->used < len; c->used++) {
            const uint8_t v = in[c->used];
            out[c->used] = (uint8_t)(v ^ c->ksb[c->used]);
            c->buf[c->used] = dir == 2 ? v : (uint8_t)(v ^ c->ksb[c->used]);
        }
    }
    return CIPHERSPEC_OK;
}

int {{ P }}_gcm_encrypt_update({{ P }}_gcm *ctx, const uint8_t *in, uint8_t *out, size_t len)
{
    return cs_gcm_update(ctx, in, out, len, 1);
}

int {{ P }}_gcm_decrypt_update({{ P }}_gcm *ctx, const uint8_t *in, uint8_t *out, size_t len)
{
    return cs_gcm_update(ctx, in, out, len, 2);
}

/* the full tag E_K(J0) xor the GHASH state x into t */
static void cs_gcm_tag_of(const {{ P }}_key *ks, const cs_kernels *k, const uint8_t j0[16], const uint64_t x[2], uint8_t t[16])
{
    uint8_t s[16];
    cs_kernels_short(ks, k, 1)->ecb_encrypt(ks, j0, t, 1);
    cs_store64be(s, x[1]);
    cs_store64be(s + 8, x[0]);
    cs_xor_bytes(t, t, s, 16);
    cs_wipe(s, sizeof s);
}

/* the full tag of a context into t; the context is wiped */
static void cs_gcm_tag({{ P }}_gcm *c, const cs_kernels *k, uint8_t t[16])
{
    cs_gcm_end_aad(c);
    if (c->used) cs_gcm_pad(c->ghash, CS_GCM_H(c), c->x, c->buf, c->used);
    cs_gcm_lengths(c->ghash, CS_GCM_H(c), c->x, c->aad_len, c->text_len);
    cs_gcm_tag_of(c->ks, k, c->j0, c->x, t);
    cs_wipe(c, sizeof *c);
}

int {{ P }}_gcm_finish({{ P }}_gcm *ctx, uint8_t *tag, size_t tag_len)
{
    const cs_kernels *k;
    uint8_t t[16];
    if (ctx == NULL || tag == NULL) return CIPHERSPEC_ERR_NULL;
    if ((k = cs_gcm_kernels(ctx)) == NULL) return ctx->magic == CS_GCM_MAGIC ? CIPHERSPEC_ERR_ISA : CIPHERSPEC_ERR_PARAM;
    if (!cs_gcm_tag_len_ok(tag_len) || ctx->dir == 2) return CIPHERSPEC_ERR_PARAM;
    cs_gcm_tag(ctx, k, t);
    memcpy(tag, t, tag_len);
    cs_wipe(t, sizeof t);
    return CIPHERSPEC_OK;
}

int {{ P }}_gcm_verify({{ P }}_gcm *ctx, const uint8_t *tag, size_t tag_len)
{
    const cs_kernels *k;
    uint8_t t[16];
    int ok;
    if (ctx == NULL || tag == NULL) return CIPHERSPEC_ERR_NULL;
    if ((k = cs_gcm_kernels(ctx)) == NULL) return ctx->magic == CS_GCM_MAGIC ? CIPHERSPEC_ERR_ISA : CIPHERSPEC_ERR_PARAM;
    if (!cs_gcm_tag_len_ok(tag_len) || ctx->dir == 1) return CIPHERSPEC_ERR_PARAM;
    cs_gcm_tag(ctx, k, t);
    ok = cs_equal_ct(t, tag, tag_len);
    cs_wipe(t, sizeof t);
    return ok ? CIPHERSPEC_OK : CIPHERSPEC_ERR_AUTH;
}

/* the one-shot calls: the checks that need no context first, so that nothing is written on an error.  No
   context either: the key's powers read in place, J0, the counter and the GHASH state on the stack.
       before: per call, E_K(0) and 31 products for the powers (~115 ns of a 16 KiB record's ~1.6 us),
               a 660-byte context zeroed, filled and wiped
       after:  the powers from set_key (ks->gh); 64 bytes of state */
static int cs_gcm_oneshot(const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                          const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag, const uint8_t *expect,
                          size_t tag_len)
{
    const cs_kernels *k;
    const uint64_t (*h)[2];
    uint64_t x[2] = {0, 0};
    uint8_t j0[16], ctr[16], b[16], t[16];
    const size_t whole = len / 16, rest = len % 16;
    const int decrypt = expect != NULL;
    uint32_t g;
    size_t i;
    int rc;
    if (ks == NULL || iv == NULL || aad == NULL || in == NULL || out == NULL || (tag == NULL && expect == NULL))
        return CIPHERSPEC_ERR_NULL;
    if ((k = cs_kernels_of(ks)) == NULL || ks->ghash >= CS_NGHASH) return CIPHERSPEC_ERR_ISA;
    if (!cs_gcm_tag_len_ok(tag_len) || (uint64_t)aad_len > CS_GCM_MAX_AAD || (uint64_t)len > CS_GCM_MAX_TEXT)
        return CIPHERSPEC_ERR_PARAM;
    if (iv_len == 0 || (uint64_t)iv_len > CS_GCM_MAX_AAD) return CIPHERSPEC_ERR_PARAM;
    g = ks->ghash;
    h = (const uint64_t (*)[2])ks->gh;
    cs_gcm_j0(g, h, iv, iv_len, j0);
    memcpy(ctr, j0, 16);
    cs_store32be(ctr + 12, cs_load32be(j0 + 12) + 1);  /* inc32 */
    cs_gcm_ghash(g, h, x, aad, aad_len / 16);
    if (aad_len % 16) cs_gcm_pad(g, h, x, aad + aad_len - aad_len % 16, aad_len % 16);
    if (whole) cs_gcm_blocks(ks, k, g, h, ctr, x, in, out, whole, decrypt);
    if (rest) {  /* the last partial block: its keystream, and GHASH of its zero-padded ciphertext */
        memset(b, 0, 16);
        cs_gcm_ctr(ks, cs_kernels_short(ks, k, 1), ctr, b, b, 1);
        if (decrypt) cs_gcm_pad(g, h, x, in + 16 * whole, rest);
        for (i = 0; i < rest; i++) out[16 * whole + i] = (uint8_t)(in[16 * whole + i] ^ b[i]);
        if (!decrypt) cs_gcm_pad(g, h, x, out + 16 * whole, rest);
        cs_wipe(b, sizeof b);
    }
    cs_gcm_lengths(g, h, x, aad_len, len);
    cs_gcm_tag_of(ks, k, j0, x, t);
    if (!decrypt) {
        memcpy(tag, t, tag_len);
        rc = CIPHERSPEC_OK;
    } else if (cs_equal_ct(t, expect, tag_len)) {
        rc = CIPHERSPEC_OK;
    } else {
        memset(out, 0, len);  /* no plaintext without a valid tag */
        rc = CIPHERSPEC_ERR_AUTH;
    }
    cs_wipe(t, sizeof t);
    cs_wipe(x, sizeof x);
    cs_wipe(j0, sizeof j0);
    cs_wipe(ctr, sizeof ctr);
    return rc;
}

int {{ P }}_gcm_encrypt(const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag, size_t tag_len)
{
    return cs_gcm_oneshot(ks, iv, iv_len, aad, aad_len, in, out, len, tag, NULL, tag_len);
}

int {{ P }}_gcm_decrypt(const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, uint8_t *out, size_t len, const uint8_t *tag, size_t tag_len)
{
    if (tag == NULL) return CIPHERSPEC_ERR_NULL;
    return cs_gcm_oneshot(ks, iv, iv_len, aad, aad_len, in, out, len, NULL, tag, tag_len);
}

int {{ P }}_gmac(const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
              uint8_t *tag, size_t tag_len)
{
    uint8_t none[1] = {0};
    return cs_gcm_oneshot(ks, iv, iv_len, aad, aad_len, none, none, 0, tag, NULL, tag_len);
}

/* ---- CCM ---- */
/* CBC-MAC of n bytes, the last partial block zero-padded */
static void cs_cbcmac_padded(const cs_kernels *k, const {{ P }}_key *ks, uint8_t x[CS_BLOCK], const uint8_t *data, size_t n)
{
    uint8_t b[CS_BLOCK];
    cs_cbcmac(k, ks, x, data, n / CS_BLOCK);
    if (n % CS_BLOCK) {
        memset(b, 0, CS_BLOCK);
        memcpy(b, data + n - n % CS_BLOCK, n % CS_BLOCK);
        cs_cbcmac(k, ks, x, b, 1);
        cs_wipe(b, sizeof b);
    }
}

static int cs_ccm(const {{ P }}_key *ks, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                  const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag, const uint8_t *expect, size_t tag_len)
{
    const cs_kernels *k;
    uint8_t x[16], ctr[16], s0[16], b[16], hdr[10];
    size_t q, i, h, done, m;
    int rc = CIPHERSPEC_OK;
    if (ks == NULL || nonce == NULL || aad == NULL || in == NULL || out == NULL || (tag == NULL && expect == NULL))
        return CIPHERSPEC_ERR_NULL;
    if ((k = cs_kernels_of(ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    if (nonce_len < 7 || nonce_len > 13 || tag_len < 4 || tag_len > 16 || tag_len % 2) return CIPHERSPEC_ERR_PARAM;
    q = 15 - nonce_len;
    if (q < 8 && (uint64_t)len >> (8 * q) != 0) return CIPHERSPEC_ERR_PARAM;  /* the length must fit in q bytes */
    /* B0 = flags || N || [len]q, then the AAD's length encoding, the AAD, zero padding */
    x[0] = (uint8_t)((aad_len ? 64 : 0) | ((tag_len - 2) / 2) << 3 | (q - 1));
    memcpy(x + 1, nonce, nonce_len);
    for (i = 0; i < q; i++) x[15 - i] = (uint8_t)(i < 8 ? (uint64_t)len >> (8 * i) : 0);
    cs_kernels_short(ks, k, 1)->ecb_encrypt(ks, x, x, 1);
    if (aad_len) {
        if ((uint64_t)aad_len < 0xff00u) {
            hdr[0] = (uint8_t)(aad_len >> 8);
            hdr[1] = (uint8_t)aad_len;
            h = 2;
        } else if ((uint64_t)aad_len <= 0xffffffffu) {
            hdr[0] = 0xff;
            hdr[1] = 0xfe;
            cs_store32be(hdr + 2, (uint32_t)aad_len);
            h = 6;
        } else {
            hdr[0] = 0xff;
            hdr[1] = 0xff;
            cs_store64be(hdr + 2, (uint64_t)aad_len);
            h = 10;
        }
        /* the first block: the header and the AAD's first bytes */
        memset(b, 0, 16);
        memcpy(b, hdr, h);
        m = aad_len < 16 - h ? aad_len : 16 - h;
        memcpy(b + h, aad, m);
        cs_cbcmac(k, ks, x, b, 1);
        cs_cbcmac_padded(k, ks, x, aad + m, aad_len - m);
    }
    /* counter blocks: flags q-1 || N || [i]q; S0 from i = 0, the payload from i = 1 */
    memset(ctr, 0, 16);
    ctr[0] = (uint8_t)(q - 1);
    memcpy(ctr + 1, nonce, nonce_len);
    cs_kernels_short(ks, k, 1)->ecb_encrypt(ks, ctr, s0, 1);
    ctr[15] = 1;
    done = 0;
    if (cs_kernels_short(ks, k, 1)->ccm != NULL && len >= 16)  /* the whole blocks in one pass: CBC-MAC and CTR */
        done = 16 * cs_kernels_short(ks, k, 1)->ccm(ks, x, ctr, in, out, len / 16, expect != NULL);  /* interleaved */
    for (; done < len; done += m) {  /* per chunk: MAC the plaintext, CTR (decryption: the reverse) */
        m = len - done < CS_GCM_CHUNK * 16 ? len - done : CS_GCM_CHUNK * 16;
        if (expect == NULL) cs_cbcmac_padded(k, ks, x, in + done, m);
        if (m >= 16) k->ctr(ks, ctr, in + done, out + done, m / 16);
        if (m % 16) {
            memset(b, 0, 16);
            memcpy(b, in + done + m - m % 16, m % 16);
            k->ctr(ks, ctr, b, b, 1);
            memcpy(out + done + m - m % 16, b, m % 16);
        }
        if (expect != NULL) cs_cbcmac_padded(k, ks, x, out + done, m);
    }
    cs_xor_bytes(x, x, s0, 16);
    if (expect == NULL) {
        memcpy(tag, x, tag_len);
    } else if (!cs_equal_ct(x, expect, tag_len)) {
        memset(out, 0, len);  /* no plaintext without a valid tag */
        rc = CIPHERSPEC_ERR_AUTH;
    }
    cs_wipe(x, sizeof x);
    cs_wipe(s0, sizeof s0);
    cs_wipe(b, sizeof b);
    return rc;
}

int {{ P }}_ccm_encrypt(const {{ P }}_key *ks, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag, size_t tag_len)
{
    if (tag == NULL) return CIPHERSPEC_ERR_NULL;
    return cs_ccm(ks, nonce, nonce_len, aad, aad_len, in, out, len, tag, NULL, tag_len);
}

int {{ P }}_ccm_decrypt(const {{ P }}_key *ks, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, uint8_t *out, size_t len, const uint8_t *tag, size_t tag_len)
{
    if (tag == NULL) return CIPHERSPEC_ERR_NULL;
    return cs_ccm(ks, nonce, nonce_len, aad, aad_len, in, out, len, NULL, tag, tag_len);
}

/* ---- XTS ---- */
#define CS_XTS_BATCH 128  /* blocks per ECB kernel call */
#define CS_XTS_MAX_BLOCKS ((uint64_t)1 << 20)  /* SP 800-38E: a data unit is at most 2^20 blocks */

int {{ P }}_xts_set_key_isa({{ P }}_xts_key *xk, const uint8_t *key, size_t key_len, const char *isa)
{
    int rc;
    if (xk == NULL || key == NULL) return CIPHERSPEC_ERR_NULL;
    xk->data.variant = xk->tweak.variant = 0;
    if (key_len != 2 * {{ P_UP }}_KEY_BYTES) return CIPHERSPEC_ERR_KEY_LENGTH;
    if (cs_equal_ct(key, key + {{ P_UP }}_KEY_BYTES, {{ P_UP }}_KEY_BYTES)) return CIPHERSPEC_ERR_PARAM;
    if ((rc = {{ P }}_set_key_isa(&xk->data, key, {{ P_UP }}_KEY_BYTES, isa)) != CIPHERSPEC_OK) return rc;
    if ((rc = {{ P }}_set_key_isa(&xk->tweak, key + {{ P_UP }}_KEY_BYTES, {{ P_UP }}_KEY_BYTES, isa)) != CIPHERSPEC_OK) {
        cs_wipe(xk, sizeof *xk);
        return rc;
    }
    return CIPHERSPEC_OK;
}

int {{ P }}_xts_set_key({{ P }}_xts_key *xk, const uint8_t *key, size_t key_len)
{
    return {{ P }}_xts_set_key_isa(xk, key, key_len, NULL);
}

/* t = t * alpha in GF(2^128), the block read as a little-endian integer (IEEE 1619) */
static void cs_xts_double(uint64_t t[2])
{
    const uint64_t m = (uint64_t)0 - (t[1] >> 63);
    t[1] = t[1] << 1 | t[0] >> 63;
    t[0] = (t[0] << 1) ^ (m & 0x87u);
}

#ifdef CS_X86
/* AVX-512 (a key whose GHASH variant needs x86-64-v4: its ISA ceiling allows it): m (a multiple of 4)
   tweaks from t into tw, four per register, each register the previous times alpha^4 (per 128-bit lane:
   a 4-bit shift, the 4 bits out folded back with 0x87), and out = in ^ tw; t moves past them */
{% include "c/fragments/xts_x86.c" %}

CS_TARGET("avx512f,avx512bw") static void cs_xts_pre512(uint8_t *tw, const uint8_t *in, uint8_t *out, size_t m, uint64_t t[2])
{
    uint64_t first[8];
    __m512i z[4];
    size_t j;
    int c;
    for (j = 0; j < 4; j++) {
        first[2 * j] = t[0];
        first[2 * j + 1] = t[1];
        cs_xts_double(t);
    }
    z[0] = _mm512_loadu_si512((const void *)first);
    for (c = 1; c < 4; c++) {
        z[c] = z[c - 1];
        CS_XTS_MULK(z[c], 4);
    }
    for (j = 0; j < m; j += 4) {  /* four independent chains of 4 tweaks, each stepping by alpha^16 */
        c = (int)(j / 4 % 4);
        _mm512_storeu_si512((void *)(tw + 16 * j), z[c]);
        _mm512_storeu_si512((void *)(out + 16 * j), _mm512_xor_si512(z[c], _mm512_loadu_si512((const void *)(in + 16 * j))));
        CS_XTS_MULK(z[c], 16);
    }
    t[0] = cs_load64le(tw + 16 * (m - 1));
    t[1] = cs_load64le(tw + 16 * (m - 1) + 8);
    cs_xts_double(t);
    cs_wipe(first, sizeof first);
}

CS_TARGET("avx512f,avx512bw") static void cs_xts_post512(uint8_t *out, const uint8_t *tw, size_t m)
{
    size_t j;
    for (j = 0; j < m; j += 4)
        _mm512_storeu_si512((void *)(out + 16 * j), _mm512_xor_si512(_mm512_loadu_si512((const void *)(out + 16 * j)),
                                                                     _mm512_loadu_si512((const void *)(tw + 16 * j))));
}
#endif

/* n whole blocks with consecutive tweaks from t (which moves past them): xor, ECB kernel, xor */
static void cs_xts_blocks(const cs_kernels *k, const {{ P }}_key *ks, int decrypt, uint64_t t[2], const uint8_t *in,
                          uint8_t *out, size_t n)
{
    uint8_t tw[CS_XTS_BATCH * 16];
    size_t i = 0, m, j;
    if (k->xts != NULL) i = k->xts(ks, t, in, out, n, decrypt);  /* the kernel's own one-pass loop */
    for (; i < n; i += m) {
        m = n - i < CS_XTS_BATCH ? n - i : CS_XTS_BATCH;
#ifdef CS_X86
        if (m % 4 == 0 && (cs_ghash_variants[ks->ghash].features & CS_F_V4)) {
            cs_xts_pre512(tw, in + 16 * i, out + 16 * i, m, t);
            (decrypt ? k->ecb_decrypt : k->ecb_encrypt)(ks, out + 16 * i, out + 16 * i, m);
            cs_xts_post512(out + 16 * i, tw, m);
            continue;
        }
#endif
        for (j = 0; j < m && j < 8; j++) {  /* T, T a, ..., T a^7 */
            cs_store64le(tw + 16 * j, t[0]);
            cs_store64le(tw + 16 * j + 8, t[1]);
            cs_xts_double(t);
        }
        for (; j < m; j++) {  /* then eight independent chains: T_j = T_(j-8) a^8 */
            const uint64_t lo = cs_load64le(tw + 16 * (j - 8)), hi = cs_load64le(tw + 16 * (j - 8) + 8), c = hi >> 56;
            cs_store64le(tw + 16 * j, (lo << 8) ^ c ^ (c << 1) ^ (c << 2) ^ (c << 7));
            cs_store64le(tw + 16 * j + 8, hi << 8 | lo >> 56);
        }
        if (m > 8) {  /* t: the tweak after the batch */
            t[0] = cs_load64le(tw + 16 * (m - 1));
            t[1] = cs_load64le(tw + 16 * (m - 1) + 8);
            cs_xts_double(t);
        }
        cs_xor_bytes(out + 16 * i, in + 16 * i, tw, 16 * m);
        (decrypt ? k->ecb_decrypt : k->ecb_encrypt)(ks, out + 16 * i, out + 16 * i, m);
        cs_xor_bytes(out + 16 * i, out + 16 * i, tw, 16 * m);
    }
    cs_wipe(tw, sizeof tw);
}

static int cs_xts(const {{ P }}_xts_key *xk, const uint8_t *tweak, const uint8_t *in, uint8_t *out, size_t len, int decrypt)
{
    const cs_kernels *k;
    uint64_t t[2], t2[2];
    uint8_t b[16], cc[16];
    size_t n, r;
    if (xk == NULL || tweak == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if ((k = cs_kernels_of(&xk->data)) == NULL || cs_kernels_of(&xk->tweak) == NULL || xk->data.ghash >= CS_NGHASH)
        return CIPHERSPEC_ERR_ISA;
    if (len < 16 || (uint64_t)len > CS_XTS_MAX_BLOCKS * 16) return CIPHERSPEC_ERR_PARAM;
    n = len / 16;
    r = len % 16;
    cs_kernels_short(&xk->tweak, cs_kernels_of(&xk->tweak), 1)->ecb_encrypt(&xk->tweak, tweak, b, 1);  /* T = E_K2(tweak) */
    t[0] = cs_load64le(b);
    t[1] = cs_load64le(b + 8);
    cs_xts_blocks(k, &xk->data, decrypt, t, in, out, r ? n - 1 : n);
    if (r) {  /* ciphertext stealing over the last whole block and the partial one */
        const uint8_t *li = in + 16 * (n - 1);
        uint8_t *lo = out + 16 * (n - 1);
        t2[0] = t[0];
        t2[1] = t[1];
        cs_xts_double(t2);  /* the tweak after the last whole block's */
        memcpy(b, li, 16);
        /* encryption: CC = E(P[n-1]) under T[n-1]; decryption: PP = D(C[n-1]) under T[n] */
        cs_xts_blocks(k, &xk->data, decrypt, decrypt ? t2 : t, b, cc, 1);
        memcpy(b, li + 16, r);   /* the partial input block, then the stolen tail */
        memcpy(b + r, cc + r, 16 - r);
        memcpy(lo + 16, cc, r);
        cs_xts_blocks(k, &xk->data, decrypt, decrypt ? t : t2, b, lo, 1);
        cs_wipe(cc, sizeof cc);
    }
    cs_wipe(b, sizeof b);
    cs_wipe(t, sizeof t);
    cs_wipe(t2, sizeof t2);
    return CIPHERSPEC_OK;
}

int {{ P }}_xts_encrypt(const {{ P }}_xts_key *xk, const uint8_t *tweak, const uint8_t *in, uint8_t *out, size_t len)
{
    return cs_xts(xk, tweak, in, out, len, 0);
}

int {{ P }}_xts_decrypt(const {{ P }}_xts_key *xk, const uint8_t *tweak, const uint8_t *in, uint8_t *out, size_t len)
{
    return cs_xts(xk, tweak, in, out, len, 1);
}

const char *{{ P }}_ghash_variant(void)
{
    return {{ P }}_ghash_variant_for({{ default_isa | default('getenv("CIPHERSPEC_X86_ISA")') }});
}

const char *{{ P }}_ghash_variant_for(const char *isa)
{
    const char *why = "";
    unsigned allowed;
    if (cs_choose_allowed(isa, &allowed, &why) < 0) return NULL;
    return cs_ghash_variants[cs_ghash_choose(allowed)].name;
}

size_t {{ P }}_gcm_size(void) { return sizeof({{ P }}_gcm); }
size_t {{ P }}_gcm_key_size(void) { return sizeof({{ P }}_gcm_key); }
size_t {{ P }}_xts_key_size(void) { return sizeof({{ P }}_xts_key); }
{% endif %}
{% if cmac_rb %}

/* ---- CMAC ---- */
#define CS_CMAC_MAGIC 0x434d4131u

/* d = s * x in GF(2^(8 CS_BLOCK)) (the block big-endian; R = {{ cmac_rb }}) */
static void cs_cmac_double(uint8_t *d, const uint8_t *s)
{
    const uint8_t m = (uint8_t)(0u - (unsigned)(s[0] >> 7));
    int i;
    for (i = 0; i < CS_BLOCK - 1; i++) d[i] = (uint8_t)(s[i] << 1 | s[i + 1] >> 7);
    d[CS_BLOCK - 1] = (uint8_t)((s[CS_BLOCK - 1] << 1) ^ (m & {{ cmac_rb }}u));
}

int {{ P }}_cmac_init({{ P }}_cmac_ctx *ctx, const {{ P }}_key *ks)
{
    const cs_kernels *k;
    if (ctx == NULL || ks == NULL) return CIPHERSPEC_ERR_NULL;
    if ((k = cs_kernels_of(ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    memset(ctx, 0, sizeof *ctx);
    ctx->ks = ks;
    cs_kernels_short(ks, k, 1)->ecb_encrypt(ks, ctx->k1, ctx->k1, 1);  /* L = E_K(0) */
    cs_cmac_double(ctx->k1, ctx->k1);
    cs_cmac_double(ctx->k2, ctx->k1);
    ctx->magic = CS_CMAC_MAGIC;
    return CIPHERSPEC_OK;
}

int {{ P }}_cmac_update({{ P }}_cmac_ctx *ctx, const uint8_t *msg, size_t len)
{
    const cs_kernels *k;
    size_t t, n;
    if (ctx == NULL || msg == NULL) return CIPHERSPEC_ERR_NULL;
    if (ctx->magic != CS_CMAC_MAGIC) return CIPHERSPEC_ERR_PARAM;
    if ((k = cs_kernels_of(ctx->ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    if (len == 0) return CIPHERSPEC_OK;
    /* the last block is held back (it gets K1 or K2): a full buffer is absorbed only when more follows */
    if (ctx->used == CS_BLOCK) {
        cs_cbcmac(k, ctx->ks, ctx->x, ctx->buf, 1);
        ctx->used = 0;
    }
    t = CS_BLOCK - ctx->used < len ? CS_BLOCK - ctx->used : len;
    memcpy(ctx->buf + ctx->used, msg, t);
    ctx->used += (uint32_t)t;
    msg += t;
    len -= t;
    if (len == 0) return CIPHERSPEC_OK;
    cs_cbcmac(k, ctx->ks, ctx->x, ctx->buf, 1);
    n = (len - 1) / CS_BLOCK;  /* whole blocks that are certainly not the last */
    cs_cbcmac(k, ctx->ks, ctx->x, msg, n);
    msg += n * CS_BLOCK;
    len -= n * CS_BLOCK;
    memcpy(ctx->buf, msg, len);
    ctx->used = (uint32_t)len;
    return CIPHERSPEC_OK;
}

int {{ P }}_cmac_final({{ P }}_cmac_ctx *ctx, uint8_t *tag, size_t tag_len)
{
    const cs_kernels *k;
    size_t i;
    if (ctx == NULL || tag == NULL) return CIPHERSPEC_ERR_NULL;
    if (ctx->magic != CS_CMAC_MAGIC) return CIPHERSPEC_ERR_PARAM;
    if ((k = cs_kernels_of(ctx->ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    if (tag_len < 1 || tag_len > CS_BLOCK) return CIPHERSPEC_ERR_PARAM;
    if (ctx->used == CS_BLOCK) {
        cs_xor_bytes(ctx->buf, ctx->buf, ctx->k1, CS_BLOCK);
    } else {  /* padded: 10...0, and K2 */
        ctx->buf[ctx->used] = 0x80;
        for (i = ctx->used + 1; i < CS_BLOCK; i++) ctx->buf[i] = 0;
        cs_xor_bytes(ctx->buf, ctx->buf, ctx->k2, CS_BLOCK);
    }
    cs_cbcmac(k, ctx->ks, ctx->x, ctx->buf, 1);
    memcpy(tag, ctx->x, tag_len);
    cs_wipe(ctx, sizeof *ctx);
    return CIPHERSPEC_OK;
}

int {{ P }}_cmac(const {{ P }}_key *ks, const uint8_t *msg, size_t len, uint8_t *tag, size_t tag_len)
{
    {{ P }}_cmac_ctx c;
    int rc;
    if (ks == NULL || msg == NULL || tag == NULL) return CIPHERSPEC_ERR_NULL;
    if (cs_kernels_of(ks) == NULL) return CIPHERSPEC_ERR_ISA;
    if (tag_len < 1 || tag_len > CS_BLOCK) return CIPHERSPEC_ERR_PARAM;
    if ((rc = {{ P }}_cmac_init(&c, ks)) == CIPHERSPEC_OK && (rc = {{ P }}_cmac_update(&c, msg, len)) == CIPHERSPEC_OK)
        rc = {{ P }}_cmac_final(&c, tag, tag_len);
    cs_wipe(&c, sizeof c);
    return rc;
}

size_t {{ P }}_cmac_ctx_size(void) { return sizeof({{ P }}_cmac_ctx); }
{% endif %}
