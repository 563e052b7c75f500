/* An EVP client of one cipher algorithm, for the OpenSSL provider tests.
 *
 *   evp_stream MODULE_DIR ALGORITHM PROPQ KEYHEX IVHEX SEED < data > transcript
 *
 * Loads the providers "cipherspec" (from MODULE_DIR) and "default", fetches ALGORITHM with PROPQ
 * ("provider=cipherspec" or "provider=default": the same script runs on ours and on OpenSSL's own
 * ARIA/AES, and the tests compare the transcripts), then prints one line per step:
 *
 *   params ...               EVP_CIPHER_get_params: mode, block size, key/IV lengths, flags
 *   enc-pad <hex>            one-shot encryption with padding (ECB/CBC) -- compared with the oracle
 *   enc-nopad <hex>          one-shot encryption of the whole-block prefix without padding
 *   ctx ...                  ctx params after streaming (num, iv, updated-iv, padding, ...)
 *   reinit-noiv <hex>        re-init without key or IV, the data again
 *   reinit-iv <hex>          re-init with a new IV (the bit-inverted one)
 *   err <step>: <reason>     a refused call: it returned 0 and queued this OpenSSL error
 *   strict ...               steps that only our provider is asked to pass (beyond OpenSSL's own)
 *
 * Internal checks (exit 1 with the reason on stderr): streaming with random chunk sizes 1..4097
 * (out of place; in place with the output trailing the input by the bytes the context holds, as
 * OpenSSL's own ciphers need; and -- strict -- out == in while the context holds bytes, which
 * OpenSSL's own block ciphers get wrong) equals the one-shot output, in both directions and with and without padding; a context
 * duplicated mid-stream finishes like the original.  With -DCS_CIPHER=<library> (and that
 * library's source linked in) it also checks that freeing a context zeroizes its expanded key:
 * every block OpenSSL frees is searched for it through CRYPTO_set_mem_functions hooks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#define MAXB 32

static int strict;  /* set for provider=cipherspec */

static void fail(const char *what)
{
    fprintf(stderr, "evp_stream: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static uint64_t rng_state;

static uint64_t rng(void)  /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void hex(const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        printf("%02x", p[i]);
}

static void hexline(const char *tag, const unsigned char *p, size_t n)
{
    printf("%s ", tag);
    hex(p, n);
    printf("\n");
}

static size_t unhex(const char *s, unsigned char *out, size_t cap)
{
    size_t n = strlen(s) / 2, i;
    unsigned int v;
    if (n > cap)
        fail("hex argument too long");
    for (i = 0; i < n; i++) {
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            fail("bad hex argument");
        out[i] = (unsigned char)v;
    }
    return n;
}

/* The reason of the first queued error, or "NO ERROR QUEUED"; clears the queue. */
static const char *reason(void)
{
    static char buf[256];
    unsigned long e = ERR_peek_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    snprintf(buf, sizeof buf, "%s", e == 0 ? "NO ERROR QUEUED" : r ? r : "(no reason string)");
    ERR_clear_error();
    return buf;
}

static void expect_fail(int ok, const char *step)
{
    if (ok)
        printf("err %s: ACCEPTED\n", step);
    else
        printf("err %s: %s\n", step, reason());
}

/* modes of chunking for run() */
enum { ONESHOT, CHUNKS, INPLACE_LAG, INPLACE_SAME };

/* One whole operation (init, updates, final); returns the output length or -1. */
static long run(const EVP_CIPHER *c, int enc, int pad, const unsigned char *key, const unsigned char *iv,
                const unsigned char *in, size_t inl, unsigned char *out, int how)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    size_t inpos = 0, outpos = 0, b = (size_t)EVP_CIPHER_get_block_size(c);
    unsigned char *work = NULL;
    int n;

    if (ctx == NULL || !EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL) || !EVP_CIPHER_CTX_set_padding(ctx, pad))
        goto bad;
    if (how == INPLACE_LAG || how == INPLACE_SAME) {
        work = malloc(inl + 4097 + b + 1);
        if (work == NULL)
            goto bad;
        memcpy(work, in, inl);
    }
    while (inpos < inl || (how == ONESHOT && inpos == 0 && inl == 0)) {
        size_t chunk = how == ONESHOT ? inl : 1 + rng() % 4097;
        if (chunk > inl - inpos)
            chunk = inl - inpos;
        if (how == INPLACE_LAG) {          /* out trails in by the bytes the context holds */
            if (!EVP_CipherUpdate(ctx, work + outpos, &n, work + inpos, (int)chunk))
                goto bad;
            memcpy(out + outpos, work + outpos, (size_t)n);
        } else if (how == INPLACE_SAME) {  /* out == in although the context holds bytes */
            memcpy(work, in + inpos, chunk);
            if (!EVP_CipherUpdate(ctx, work, &n, work, (int)chunk))
                goto bad;
            memcpy(out + outpos, work, (size_t)n);
        } else if (!EVP_CipherUpdate(ctx, out + outpos, &n, in + inpos, (int)chunk)) {
            goto bad;
        }
        inpos += chunk;
        outpos += (size_t)n;
        if (inl == 0)
            break;
    }
    if (!EVP_CipherFinal_ex(ctx, out + outpos, &n))
        goto bad;
    outpos += (size_t)n;
    EVP_CIPHER_CTX_free(ctx);
    free(work);
    return (long)outpos;
bad:
    EVP_CIPHER_CTX_free(ctx);
    free(work);
    return -1;
}

static void same(const unsigned char *a, long an, const unsigned char *b, long bn, const char *what)
{
    if (an != bn || an < 0 || memcmp(a, b, (size_t)an) != 0) {
        fprintf(stderr, "evp_stream: %s differs (%ld vs %ld bytes)\n", what, an, bn);
        fail(what);
    }
}

static void print_params(const EVP_CIPHER *c)
{
    unsigned int mode = 0;
    size_t keylen = 0, ivlen = 0, block = 0;
    int aead = -1, custom = -1, cts = -1, multi = -1, randkey = -1;
    OSSL_PARAM p[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, &mode),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &keylen),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, &block),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, &aead),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, &custom),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, &cts),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, &multi),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, &randkey),
        OSSL_PARAM_END
    };
    if (!EVP_CIPHER_get_params((EVP_CIPHER *)c, p))
        fail("EVP_CIPHER_get_params");
    printf("params mode=%u keylen=%zu ivlen=%zu blocksize=%zu aead=%d custom-iv=%d cts=%d tls-multi=%d "
           "has-randkey=%d evp: block=%d key=%d iv=%d mode=%lu\n", mode, keylen, ivlen, block, aead, custom, cts,
           multi, randkey, EVP_CIPHER_get_block_size(c), EVP_CIPHER_get_key_length(c), EVP_CIPHER_get_iv_length(c),
           (unsigned long)EVP_CIPHER_get_mode(c));
}

static void print_ctx(const char *tag, EVP_CIPHER_CTX *ctx)
{
    unsigned int num = 99, padding = 99;
    size_t keylen = 0, ivlen = 0;
    unsigned char iv[MAXB] = {0}, uiv[MAXB] = {0};
    OSSL_PARAM p[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &keylen),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, iv, sizeof iv),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, uiv, sizeof uiv),
        OSSL_PARAM_END
    };
    if (!EVP_CIPHER_CTX_get_params(ctx, p))
        fail("EVP_CIPHER_CTX_get_params");
    printf("%s num=%u padding=%u keylen=%zu ivlen=%zu evp-num=%d iv=", tag, num, padding, keylen, ivlen,
           EVP_CIPHER_CTX_get_num(ctx));
    hex(iv, p[4].return_size);
    printf(" updated-iv=");
    hex(uiv, p[5].return_size);
    printf("\n");
}

#ifdef CS_CIPHER
/* ---- zeroization: every block OpenSSL frees is searched for the expanded key ---- */
#define CS_CAT_(a, b) a##_##b
#define CS_CAT(a, b) CS_CAT_(a, b)
static unsigned char secret[64];
static size_t secret_len;
static int leaked;

static int contains(const unsigned char *hay, size_t n, const unsigned char *needle, size_t k)
{
    size_t i;
    for (i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return 1;
    return 0;
}

static void *hook_malloc(size_t n, const char *file, int line)
{
    size_t *p = malloc(n + 16);
    (void)file, (void)line;
    if (p == NULL)
        return NULL;
    p[0] = n;
    return (char *)p + 16;
}

static void hook_free(void *ptr, const char *file, int line)
{
    size_t *p;
    (void)file, (void)line;
    if (ptr == NULL)
        return;
    p = (size_t *)((char *)ptr - 16);
    if (secret_len && contains(ptr, p[0], secret, secret_len))
        leaked++;
    free(p);
}

static void *hook_realloc(void *ptr, size_t n, const char *file, int line)
{
    void *q = hook_malloc(n, file, line);
    if (q != NULL && ptr != NULL) {
        size_t old = ((size_t *)((char *)ptr - 16))[0];
        memcpy(q, ptr, old < n ? old : n);
    }
    hook_free(ptr, file, line);
    return q;
}

static void check_zeroized(const EVP_CIPHER *c, const unsigned char *key)
{
    CS_CAT(CS_CIPHER, key) ks;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *dup = EVP_CIPHER_CTX_new();
    unsigned char out[64];
    int n;
    if (CS_CAT(CS_CIPHER, set_key)(&ks, key, (size_t)EVP_CIPHER_get_key_length(c)) != 0)
        fail("set_key");
    secret_len = sizeof(ks) < 48 ? sizeof(ks) : 48;
    memcpy(secret, &ks, secret_len);
    if (ctx == NULL || dup == NULL || !EVP_CipherInit_ex2(ctx, c, key, NULL, 1, NULL)
        || !EVP_CipherUpdate(ctx, out, &n, key, 16) || !EVP_CIPHER_CTX_copy(dup, ctx))
        fail("zeroize setup");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_CTX_free(dup);
    printf("strict zeroized %s\n", leaked ? "NO: the expanded key was freed uncleared" : "yes");
    secret_len = 0;
}
#endif

int main(int argc, char **argv)
{
    unsigned char key[64], iv[MAXB], iv2[MAXB], *data, *ref, *got, *dec;
    size_t keylen, ivlen, n = 0, cap = 1 << 16, got_n, b, i, whole;
    long rn, gn;
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx, *dup;
    OSSL_PROVIDER *ours, *theirs;
    int mode, k;

#ifdef CS_CIPHER
    if (!CRYPTO_set_mem_functions(hook_malloc, hook_realloc, hook_free))
        fail("CRYPTO_set_mem_functions");
#endif
    if (argc != 7)
        fail("usage: evp_stream MODULE_DIR ALGORITHM PROPQ KEYHEX IVHEX SEED < data");
    strict = strstr(argv[3], "cipherspec") != NULL;
    keylen = unhex(argv[4], key, sizeof key);
    ivlen = unhex(argv[5], iv, sizeof iv);
    rng_state = strtoull(argv[6], NULL, 10);
    data = malloc(cap);
    while (data != NULL && (got_n = fread(data + n, 1, cap - n, stdin)) > 0)
        if ((n += got_n) == cap)
            data = realloc(data, cap *= 2);
    if (data == NULL)
        fail("out of memory");
    if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[1])
        || (ours = OSSL_PROVIDER_load(NULL, "cipherspec")) == NULL
        || (theirs = OSSL_PROVIDER_load(NULL, "default")) == NULL)
        fail("loading the providers");
    c = EVP_CIPHER_fetch(NULL, argv[2], argv[3]);
    if (c == NULL)
        fail("EVP_CIPHER_fetch");
    printf("provider %s\n", OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)));
    print_params(c);
    mode = (int)EVP_CIPHER_get_mode(c);
    b = (size_t)EVP_CIPHER_get_block_size(c);
    if ((size_t)EVP_CIPHER_get_key_length(c) != keylen)
        fail("the key argument does not have the cipher's key length");
    for (i = 0; i < ivlen; i++)
        iv2[i] = (unsigned char)~iv[i];
    ref = malloc(n + 2 * MAXB);
    got = malloc(n + 2 * MAXB);
    dec = malloc(n + 2 * MAXB);
    if (ref == NULL || got == NULL || dec == NULL)
        fail("out of memory");

    /* one shot, then every streaming flavour against it, both paddings, both directions */
    for (k = 1; k >= 0; k--) {
        size_t len = k ? n : n - n % b;   /* without padding: whole blocks only */
        rn = run(c, 1, k, key, iv, data, len, ref, ONESHOT);
        if (rn < 0)
            fail("one-shot encryption");
        hexline(k ? "enc-pad" : "enc-nopad", ref, (size_t)rn);
        gn = run(c, 1, k, key, iv, data, len, got, CHUNKS);
        same(ref, rn, got, gn, "chunked encryption");
        gn = run(c, 1, k, key, iv, data, len, got, INPLACE_LAG);
        same(ref, rn, got, gn, "in-place (lagging) encryption");
        gn = run(c, 0, k, key, iv, ref, (size_t)rn, dec, CHUNKS);
        same(data, (long)len, dec, gn, "chunked decryption");
        gn = run(c, 0, k, key, iv, ref, (size_t)rn, dec, INPLACE_LAG);
        same(data, (long)len, dec, gn, "in-place (lagging) decryption");
        if (strict) {
            gn = run(c, 1, k, key, iv, data, len, got, INPLACE_SAME);
            same(ref, rn, got, gn, "in-place (same pointer) encryption");
            gn = run(c, 0, k, key, iv, ref, (size_t)rn, dec, INPLACE_SAME);
            same(data, (long)len, dec, gn, "in-place (same pointer) decryption");
            printf("strict in-place-same ok (padding %d)\n", k);
        }
    }
    printf("streaming ok\n");

    /* ctx state after an odd-length stream, dupctx mid-stream, re-init with and without an IV */
    ctx = EVP_CIPHER_CTX_new();
    dup = EVP_CIPHER_CTX_new();
    whole = n < 37 ? n : 37;
    if (ctx == NULL || dup == NULL || !EVP_CipherInit_ex2(ctx, c, key, iv, 1, NULL))
        fail("init");
    print_ctx("ctx-fresh", ctx);
    if (!EVP_CipherUpdate(ctx, got, &k, data, (int)whole))
        fail("update");
    print_ctx("ctx-after-37", ctx);
    if (!EVP_CIPHER_CTX_copy(dup, ctx))
        fail("EVP_CIPHER_CTX_copy");
    {
        int a = 0, a2 = 0, d = 0, d2 = 0;
        unsigned char *x = malloc(n + 2 * MAXB), *y = malloc(n + 2 * MAXB);
        if (x == NULL || y == NULL || !EVP_CipherUpdate(ctx, x, &a, data + whole, (int)(n - whole))
            || !EVP_CipherFinal_ex(ctx, x + a, &a2) || !EVP_CipherUpdate(dup, y, &d, data + whole, (int)(n - whole))
            || !EVP_CipherFinal_ex(dup, y + d, &d2))
            fail("finishing the original and the duplicate");
        same(x, a + a2, y, d + d2, "duplicated context");
        free(x);
        free(y);
    }
    printf("dupctx ok\n");
    if (!EVP_CipherInit_ex2(ctx, NULL, NULL, NULL, 1, NULL) || !EVP_CIPHER_CTX_set_padding(ctx, 0))
        fail("re-init without IV");
    if (!EVP_CipherUpdate(ctx, got, &k, data, (int)whole))
        fail("update after re-init");
    hexline("reinit-noiv", got, (size_t)k);
    if (!EVP_CipherInit_ex2(ctx, NULL, NULL, mode == EVP_CIPH_ECB_MODE ? NULL : iv2, 1, NULL)
        || !EVP_CIPHER_CTX_set_padding(ctx, 0) || !EVP_CipherUpdate(ctx, got, &k, data, (int)whole))
        fail("re-init with a new IV");
    hexline("reinit-iv", got, (size_t)k);
    print_ctx("ctx-reinit", ctx);

    /* refused calls: each returns 0 and queues an error */
    EVP_CIPHER_CTX_reset(ctx);
    if (!EVP_CipherInit_ex2(ctx, c, NULL, NULL, 1, NULL))
        fail("init without key");
    expect_fail(EVP_CipherUpdate(ctx, got, &k, data, 16), "update-without-key");
    expect_fail(EVP_CIPHER_CTX_set_key_length(ctx, (int)keylen + 1), "set-key-length");
    if (!EVP_CipherInit_ex2(ctx, NULL, key, iv, 0, NULL))
        fail("init for decryption");
    if (mode != EVP_CIPH_CTR_MODE) {
        /* a final block whose padding is wrong: a zero block, decrypted */
        unsigned char z[MAXB] = {0};
        int zl = 0;
        if (!EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, NULL) || !EVP_CIPHER_CTX_set_padding(ctx, 0)
            || !EVP_CipherUpdate(ctx, got, &zl, z, (int)b))
            fail("making a badly padded block");
        memcpy(z, got, b);  /* it decrypts to zeros: a last pad byte of 0 is invalid */
        if (!EVP_CipherInit_ex2(ctx, NULL, key, iv, 0, NULL) || !EVP_CIPHER_CTX_set_padding(ctx, 1)
            || !EVP_CipherUpdate(ctx, got, &zl, z, (int)b))
            fail("decrypt update");
        expect_fail(EVP_CipherFinal_ex(ctx, got, &zl), "bad-padding");
        if (!EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, NULL) || !EVP_CIPHER_CTX_set_padding(ctx, 0)
            || !EVP_CipherUpdate(ctx, got, &zl, data, 5))
            fail("partial block without padding");
        expect_fail(EVP_CipherFinal_ex(ctx, got, &zl), "nopad-partial-final");
        if (!EVP_CipherInit_ex2(ctx, NULL, key, iv, 0, NULL) || !EVP_CipherUpdate(ctx, got, &zl, data, 5))
            fail("partial block to decrypt");
        expect_fail(EVP_CipherFinal_ex(ctx, got, &zl), "decrypt-partial-final");
    }
    if (strict) {
        OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
        unsigned int big = (unsigned int)(mode == EVP_CIPH_CTR_MODE ? ivlen : b);  /* the cipher's block */
        size_t wrong = (size_t)(mode == EVP_CIPH_ECB_MODE ? 1 : b + 1);
        p[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_NUM, &big);
        expect_fail(EVP_CIPHER_CTX_set_params(ctx, p), "strict num-too-big");
        p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &wrong);
        expect_fail(EVP_CIPHER_CTX_set_params(ctx, p), "strict ivlen");
        p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &wrong);
        expect_fail(EVP_CIPHER_CTX_set_params(ctx, p), "strict keylen");
        if (mode != EVP_CIPH_CTR_MODE)
            expect_fail(EVP_Cipher(ctx, got, data, 5) > 0, "strict evp-cipher-partial");
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_CTX_free(dup);
#ifdef CS_CIPHER
    check_zeroized(c, key);
#endif
    EVP_CIPHER_free(c);
    OSSL_PROVIDER_unload(ours);
    OSSL_PROVIDER_unload(theirs);
    free(data);
    free(ref);
    free(got);
    free(dec);
    printf("done\n");
    return 0;
}
