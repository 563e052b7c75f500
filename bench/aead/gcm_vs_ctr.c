/* GCM vs CTR of one generated C library, one process, one thread, equal treatment for both sides.
 * Compiled per cipher like bench.c (-DCS_P=<cipher> -DCS_PU=<CIPHER> -include <cipher>.h, lib<cipher>.a,
 * -lcrypto only if -DCS_EVP is given).
 *     gcm_vs_ctr SIZE REPS [RECORD [MODE]]
 * Both sides read the same input buffer and write the same output buffer; every buffer is written once
 * (pre-faulted) before anything is timed; the two are timed alternating, REPS rounds, GCM first in odd
 * rounds and CTR first in even ones.  GCM is the one-shot <P>_gcm_encrypt per RECORD bytes (default: the
 * whole buffer), 12-byte IV, 13-byte AAD (with CS_GCM_API=keyctx in the environment: per record
 * <P>_gcm_init_key from one <P>_gcm_key, gcm_aad, gcm_encrypt_update, gcm_finish); CTR is <P>_ctr per record.  Before timing, the GCM output and
 * tags are checked by the library's own decryption (and by OpenSSL's EVP with -DCS_EVP=\"AES-128-GCM\").
 * MODE (diagnosis): "same" (default: one in, one out buffer), "inplace" (both sides in == out),
 * "fresh" (each side writes its own buffer, allocated and faulted like the other's).
 * Prints "gcm <best MB/s> <median MB/s>", "ctr ...", "ratio_best <x>", "ratio_median <x>" (thread CPU
 * time and wall time both: lines "wall_*"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef CS_EVP
#include <openssl/evp.h>
#endif

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define F(x) CAT(CS_P, x)

static double clk(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t SIZE, RECORD;
static unsigned char *in, *gout, *cout, *chk, *tags, key[32], iv[16], aad[13];
static F(key) ks;

static void die(const char *what)
{
    fprintf(stderr, "gcm_vs_ctr: %s\n", what);
    exit(1);
}

static int KEYCTX;  /* CS_GCM_API=keyctx: per record gcm_init_key, aad, encrypt_update, finish (a record layer) */
static F(gcm_key) gk;

static void gcm(void)
{
    size_t o;
    F(gcm) g;
    for (o = 0; o < SIZE; o += RECORD)
        if (KEYCTX ? F(gcm_init_key)(&g, &gk, iv, 12) != 0 || F(gcm_aad)(&g, aad, 13) != 0
                         || F(gcm_encrypt_update)(&g, in + o, gout + o, RECORD) != 0
                         || F(gcm_finish)(&g, tags + 16 * (o / RECORD), 16) != 0
                   : F(gcm_encrypt)(&ks, iv, 12, aad, 13, in + o, gout + o, RECORD, tags + 16 * (o / RECORD), 16) != 0)
            die("gcm encryption failed");
}

static void ctr(void)
{
    unsigned char c[16];
    size_t o;
    for (o = 0; o < SIZE; o += RECORD) {
        memcpy(c, iv, 16);
        F(ctr)(&ks, c, in + o, cout + o, RECORD);
    }
}

static void check(void)
{
    size_t o;
    gcm();
    for (o = 0; o < SIZE; o += RECORD)
        if (F(gcm_decrypt)(&ks, iv, 12, aad, 13, gout + o, chk + o, RECORD, tags + 16 * (o / RECORD), 16) != 0)
            die("our decryption rejects our tag");
    if (memcmp(chk, in, SIZE) != 0) die("our decryption does not give the plaintext back");
#ifdef CS_EVP
    {
        EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
        const EVP_CIPHER *e = EVP_get_cipherbyname(CS_EVP);
        unsigned char t[16];
        int n;
        if (x == NULL || e == NULL) die("no EVP cipher");
        for (o = 0; o < SIZE; o += RECORD) {
            if (!EVP_EncryptInit_ex(x, e, NULL, key, iv) || !EVP_EncryptUpdate(x, NULL, &n, aad, 13)
                || !EVP_EncryptUpdate(x, chk + o, &n, in + o, (int)RECORD) || !EVP_EncryptFinal_ex(x, chk + o + n, &n)
                || !EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, t))
                die("EVP GCM");
            if (memcmp(t, tags + 16 * (o / RECORD), 16) != 0) die("tag differs from OpenSSL's");
        }
        if (memcmp(chk, gout, SIZE) != 0) die("ciphertext differs from OpenSSL's");
        EVP_CIPHER_CTX_free(x);
        printf("checked against OpenSSL %s\n", CS_EVP);
    }
#endif
}

int main(int argc, char **argv)
{
    double tg[2][256], tc[2][256], t0, w0;
    int r, REPS, k;
    size_t i;
    const char *mode = argc > 4 ? argv[4] : "same";
    if (argc < 3) die("usage: gcm_vs_ctr SIZE REPS [RECORD [same|inplace|fresh]]");
    SIZE = (size_t)strtoull(argv[1], NULL, 10);
    REPS = atoi(argv[2]);
    RECORD = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : SIZE;
    if (RECORD == 0) RECORD = SIZE;
    if (REPS < 1 || REPS > 256 || SIZE == 0 || SIZE % RECORD) die("bad SIZE/REPS/RECORD");
    in = malloc(SIZE);
    gout = malloc(SIZE);
    chk = malloc(SIZE);
    tags = malloc(16 * (SIZE / RECORD));
    if (!in || !gout || !chk || !tags) die("out of memory");
    cout = gout;
    if (strcmp(mode, "fresh") == 0 && (cout = malloc(SIZE)) == NULL) die("out of memory");
    srand(21);
    for (i = 0; i < SIZE; i++) in[i] = (unsigned char)rand();
    memset(gout, 0, SIZE);  /* pre-fault every buffer */
    memset(cout, 0, SIZE);
    memset(chk, 0, SIZE);
    for (i = 0; i < sizeof key; i++) key[i] = (unsigned char)(17 * i + 3);
    for (i = 0; i < sizeof iv; i++) iv[i] = (unsigned char)(5 * i + 1);
    for (i = 0; i < sizeof aad; i++) aad[i] = (unsigned char)i;
    if (F(set_key)(&ks, key, CAT(CS_PU, KEY_BYTES)) != 0) die("set_key");
    KEYCTX = getenv("CS_GCM_API") != NULL && strcmp(getenv("CS_GCM_API"), "keyctx") == 0;
    if (F(gcm_key_init)(&gk, &ks) != 0) die("gcm_key_init");
    check();
    if (strcmp(mode, "inplace") == 0) gout = cout = in;  /* from here on, both in place */
    printf("variant %s ghash %s size %zu record %zu mode %s api %s\n", F(variant)(), F(ghash_variant)(), SIZE, RECORD, mode,
           KEYCTX ? "keyctx" : "oneshot");
    gcm();
    ctr();
    for (r = 0; r < REPS; r++) {
        for (k = 0; k < 2; k++) {
            const int do_gcm = (k == 0) == (r % 2 == 0);
            t0 = clk(CLOCK_THREAD_CPUTIME_ID);
            w0 = clk(CLOCK_MONOTONIC);
            if (do_gcm) gcm(); else ctr();
            (do_gcm ? tg : tc)[0][r] = clk(CLOCK_THREAD_CPUTIME_ID) - t0;
            (do_gcm ? tg : tc)[1][r] = clk(CLOCK_MONOTONIC) - w0;
        }
    }
    for (k = 0; k < 2; k++) {
        const char *p = k ? "wall_" : "";
        double gb, gm, cb, cm;
        qsort(tg[k], (size_t)REPS, sizeof(double), cmp_double);
        qsort(tc[k], (size_t)REPS, sizeof(double), cmp_double);
        gb = SIZE / tg[k][0] / 1e6, gm = SIZE / tg[k][REPS / 2] / 1e6;
        cb = SIZE / tc[k][0] / 1e6, cm = SIZE / tc[k][REPS / 2] / 1e6;
        printf("%sgcm %.0f %.0f\n%sctr %.0f %.0f\n%sratio_best %.3f\n%sratio_median %.3f\n", p, gb, gm, p, cb, cm, p,
               gb / cb, p, gm / cm);
    }
    return 0;
}
