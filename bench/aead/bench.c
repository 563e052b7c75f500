/* One cipher's GCM and XTS from the generated C library vs OpenSSL 3's EVP, in one process, one thread.
 * Compiled per cipher by bench/aead/bench.py: -DCS_P=<cipher> -include <cipher>.h, linked with
 * lib<cipher>.a and -lcrypto.
 *     bench SIZE REPS EVP_GCM_NAME|- EVP_XTS_NAME|- [RECORD]
 * The buffer (SIZE bytes) is processed as records of RECORD bytes (default: one record), each with its own
 * call (GCM: one init-aad-update-final per record, a 13-byte AAD as TLS has; XTS: one data unit per record,
 * its tweak the record's offset; at most 16 MiB, OpenSSL's and SP 800-38E's limit of 2^20 blocks).  Every output is compared byte for byte with OpenSSL's (ciphertext and tag)
 * before anything is timed; each figure is the median of REPS runs, ours and OpenSSL's alternating.
 * Prints one line per measurement: "<what> <MB/s>" (10^6 bytes per second of this thread's CPU time: the
 * cores are shared, and time spent descheduled is not the code's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "timing.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t SIZE, RECORD, XREC;
static int REPS;
static unsigned char *in, *out, *ref, *dec, *tags, *reftags, key[64], iv[16], aad[13];
static F(key) ks;
static F(xts_key) xk;
static EVP_CIPHER *evp_gcm, *evp_xts;
static EVP_CIPHER_CTX *ctx;

static void die(const char *what)
{
    fprintf(stderr, "bench: %s\n", what);
    exit(1);
}

/* ---- the operations, over the whole buffer in records ---- */
static void ours_gcm(int decrypt)
{
    size_t o;
    for (o = 0; o < SIZE; o += RECORD) {
        unsigned char *t = tags + 16 * (o / RECORD);
        int rc = decrypt ? F(gcm_decrypt)(&ks, iv, 12, aad, 13, out + o, dec + o, RECORD, t, 16)
                         : F(gcm_encrypt)(&ks, iv, 12, aad, 13, in + o, out + o, RECORD, t, 16);
        if (rc != 0) die("our GCM failed");
    }
}

/* the same records through a key context (<P>_gcm_key: H powers once; per record init_key, aad, update,
   finish), as a record layer runs GCM */
static void ours_gcm_kc(void)
{
    static F(gcm_key) gk;
    static F(gcm) g;
    size_t o;
    if (F(gcm_key_init)(&gk, &ks) != 0) die("our GCM key context failed");
    for (o = 0; o < SIZE; o += RECORD) {
        if (F(gcm_init_key)(&g, &gk, iv, 12) != 0 || F(gcm_aad)(&g, aad, 13) != 0
            || F(gcm_encrypt_update)(&g, in + o, out + o, RECORD) != 0 || F(gcm_finish)(&g, tags + 16 * (o / RECORD), 16) != 0)
            die("our GCM (key context) failed");
    }
}

static void ours_ctr(void)
{
    unsigned char c[16];
    size_t o;
    for (o = 0; o < SIZE; o += RECORD) {
        memcpy(c, iv, 16);
        F(ctr)(&ks, c, in + o, out + o, RECORD);
    }
}

static void ours_xts(void)
{
    unsigned char t[16] = {0};
    size_t o;
    for (o = 0; o < SIZE; o += XREC) {
        memcpy(t, &o, sizeof o);
        if (F(xts_encrypt)(&xk, t, in + o, out + o, XREC) != 0) die("our XTS failed");
    }
}

static void evp_gcm_run(int decrypt)
{
    size_t o;
    int n;
    for (o = 0; o < SIZE; o += RECORD) {
        unsigned char *t = reftags + 16 * (o / RECORD);
        if (!EVP_CipherInit_ex(ctx, evp_gcm, NULL, key, iv, !decrypt)) die("EVP GCM init");
        if (!EVP_CipherUpdate(ctx, NULL, &n, aad, 13)) die("EVP GCM aad");
        if (!EVP_CipherUpdate(ctx, (decrypt ? dec : ref) + o, &n, (decrypt ? ref : in) + o, (int)RECORD)) die("EVP GCM");
        if (decrypt && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, t)) die("EVP GCM tag");
        if (!EVP_CipherFinal_ex(ctx, (decrypt ? dec : ref) + o + n, &n)) die("EVP GCM final (tag)");
        if (!decrypt) EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, t);
    }
}

static void evp_xts_run(void)
{
    unsigned char t[16] = {0};
    size_t o;
    int n;
    for (o = 0; o < SIZE; o += XREC) {
        memcpy(t, &o, sizeof o);
        if (!EVP_CipherInit_ex(ctx, evp_xts, NULL, key, t, 1)) die("EVP XTS init");
        if (!EVP_CipherUpdate(ctx, ref + o, &n, in + o, (int)XREC)) die("EVP XTS");
    }
}

typedef void (*op)(void);
static void o_gcm_enc(void) { ours_gcm(0); }
static void o_gcm_dec(void) { ours_gcm(1); }
static void e_gcm_enc(void) { evp_gcm_run(0); }
static void e_gcm_dec(void) { evp_gcm_run(1); }

/* median MB/s of a and b, alternating */
static void race(const char *name_a, op a, const char *name_b, op b)
{
    double ta[64], tb[64], t;
    int r;
    for (r = 0; r < REPS; r++) {
        t = now();
        a();
        ta[r] = now() - t;
        if (b != NULL) {
            t = now();
            b();
            tb[r] = now() - t;
        }
    }
    qsort(ta, (size_t)REPS, sizeof(double), cmp_double);
    printf("%s %.0f\n", name_a, (double)SIZE / ta[REPS / 2] / 1e6);
    if (b != NULL) {
        qsort(tb, (size_t)REPS, sizeof(double), cmp_double);
        printf("%s %.0f\n", name_b, (double)SIZE / tb[REPS / 2] / 1e6);
    }
}

int main(int argc, char **argv)
{
    size_t i;
    if (argc < 5) die("usage: bench SIZE REPS EVP_GCM|- EVP_XTS|- [RECORD]");
    SIZE = (size_t)strtoull(argv[1], NULL, 10);
    REPS = atoi(argv[2]);
    RECORD = argc > 5 ? (size_t)strtoull(argv[5], NULL, 10) : SIZE;
    if (REPS < 1 || REPS > 64 || RECORD == 0 || SIZE % RECORD) die("bad SIZE/REPS/RECORD");
    XREC = RECORD < ((size_t)16 << 20) ? RECORD : ((size_t)16 << 20);
    if (SIZE % XREC) die("SIZE is not a whole number of 16 MiB XTS units");
    in = malloc(SIZE);
    out = malloc(SIZE);
    ref = malloc(SIZE);
    dec = malloc(SIZE);
    tags = malloc(16 * (SIZE / RECORD));
    reftags = malloc(16 * (SIZE / RECORD));
    if (!in || !out || !ref || !dec || !tags || !reftags) die("out of memory");
    srand(21);
    for (i = 0; i < SIZE; i++) in[i] = (unsigned char)rand();
    for (i = 0; i < sizeof key; i++) key[i] = (unsigned char)(17 * i + 3);
    for (i = 0; i < sizeof iv; i++) iv[i] = (unsigned char)(5 * i + 1);
    for (i = 0; i < sizeof aad; i++) aad[i] = (unsigned char)i;
    if (F(set_key)(&ks, key, CAT(CS_PU, KEY_BYTES)) != 0) die("set_key");
    if (F(xts_set_key)(&xk, key, 2 * CAT(CS_PU, KEY_BYTES)) != 0) die("xts_set_key");
    printf("variant %s ghash %s\n", F(variant)(), F(ghash_variant)());
    ctx = EVP_CIPHER_CTX_new();
    if (strcmp(argv[3], "-") != 0 && (evp_gcm = EVP_CIPHER_fetch(NULL, argv[3], NULL)) == NULL) die("no EVP GCM");
    if (strcmp(argv[4], "-") != 0 && (evp_xts = EVP_CIPHER_fetch(NULL, argv[4], NULL)) == NULL) die("no EVP XTS");
    if (evp_gcm != NULL) {  /* the same bytes first: every record's ciphertext and tag, then the decryptions */
        ours_gcm(0);
        evp_gcm_run(0);
        if (memcmp(out, ref, SIZE) != 0 || memcmp(tags, reftags, 16 * (SIZE / RECORD)) != 0)
            die("GCM output differs from OpenSSL's");
        ours_gcm(1);
        if (memcmp(dec, in, SIZE) != 0) die("our GCM decryption differs");
        memset(dec, 0, SIZE);
        evp_gcm_run(1);
        if (memcmp(dec, in, SIZE) != 0) die("OpenSSL's GCM decryption differs");
        race("ours_gcm_encrypt", o_gcm_enc, "openssl_gcm_encrypt", e_gcm_enc);
        race("ours_gcm_decrypt", o_gcm_dec, "openssl_gcm_decrypt", e_gcm_dec);
    } else {
        race("ours_gcm_encrypt", o_gcm_enc, NULL, NULL);
    }
    ours_gcm(0);  /* the key context's output: the same bytes and tags as the one-shot calls' */
    memcpy(dec, out, SIZE);
    memcpy(reftags, tags, 16 * (SIZE / RECORD));
    ours_gcm_kc();
    if (memcmp(dec, out, SIZE) != 0 || memcmp(reftags, tags, 16 * (SIZE / RECORD)) != 0)
        die("our GCM through a key context differs");
    race("ours_gcm_encrypt_kc", ours_gcm_kc, "ours_ctr", ours_ctr);  /* GCM vs CTR alternating, same run */
    if (evp_xts != NULL) {
        ours_xts();
        evp_xts_run();
        if (memcmp(out, ref, SIZE) != 0) die("XTS output differs from OpenSSL's");
        race("ours_xts_encrypt", ours_xts, "openssl_xts_encrypt", evp_xts_run);
    } else {
        race("ours_xts_encrypt", ours_xts, NULL, NULL);
    }
    return 0;
}
