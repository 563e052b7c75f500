/* The provider's overhead: one cipher's CTR through EVP (our provider) and through the library's own
 * <cipher>_ctr, in one process, timed the way `openssl speed -evp` times (the same buffer encrypted in
 * place again and again, the CTR stream continuing).  The two paths alternate in batches of ~1 MiB
 * for SECONDS per size (at least 2*MINPAIRS batches), so that other jobs' load falls on both alike.
 *
 *   direct MODULE_DIR ALGORITHM SECONDS MINPAIRS SIZE...   (compiled with -DCS_CIPHER=<library>
 *                                                          -include <library>.h, linked with its objects)
 *
 * Before timing each size, the two paths are checked to produce the same bytes over a few chained
 * calls (exit 1 otherwise).  Output per size: each path's bytes per thread-CPU second (as openssl speed
 * reports per user-CPU second) and per wall second, summed over its batches, and the overhead, the
 * median over the pairs of (EVP CPU time / direct CPU time) - 1:
 *   size=8192 path=direct cpu_Bps=... wall_Bps=... pairs=...
 *   size=8192 path=evp cpu_Bps=... wall_Bps=... pairs=...
 *   size=8192 overhead=0.0012
 * and a checksum of the final buffers (so no loop can be dropped).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* clock_gettime; also given on the command line (-include comes first) */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define CS_CAT_(a, b) a##_##b
#define CS_CAT(a, b) CS_CAT_(a, b)
#define F(x) CS_CAT(CS_CIPHER, x)
#define MAXSIZE (1 << 20)
#define MAXPAIRS 100000

static double ratio[MAXPAIRS];

static void fail(const char *what)
{
    fprintf(stderr, "direct: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static double now(clockid_t clk)
{
    struct timespec t;
    clock_gettime(clk, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    static unsigned char buf_d[MAXSIZE], buf_e[MAXSIZE];
    unsigned char key[64], iv_d[64], iv0[64];
    F(key) ks;
    EVP_CIPHER *c;
    EVP_CIPHER_CTX *ctx;
    double seconds;
    int rounds, a, r, s, n, B;
    uint64_t sum = 0;

    if (argc < 6)
        fail("usage: direct MODULE_DIR ALGORITHM SECONDS ROUNDS SIZE...");
    seconds = atof(argv[3]);
    rounds = atoi(argv[4]);
    if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[1]) || OSSL_PROVIDER_load(NULL, "cipherspec") == NULL
        || OSSL_PROVIDER_load(NULL, "default") == NULL)
        fail("loading the providers");
    c = EVP_CIPHER_fetch(NULL, argv[2], "provider=cipherspec");
    ctx = EVP_CIPHER_CTX_new();
    if (c == NULL || ctx == NULL || rounds < 1)
        fail("fetching the algorithm");
    B = EVP_CIPHER_get_iv_length(c);
    for (a = 0; a < 64; a++) {
        key[a] = (unsigned char)a;
        iv0[a] = (unsigned char)(0xf0 + a);
    }
    if (F(set_key)(&ks, key, (size_t)EVP_CIPHER_get_key_length(c)) != 0)
        fail("set_key");
    for (a = 5; a < argc; a++) {
        size_t size = (size_t)atol(argv[a]);
        if (size == 0 || size > MAXSIZE)
            fail("size out of range");
        /* the same bytes both ways over three chained calls */
        memcpy(iv_d, iv0, (size_t)B);
        if (!EVP_EncryptInit_ex2(ctx, c, key, iv0, NULL))
            fail("EVP init");
        for (s = 0; s < (int)size; s++)
            buf_d[s] = buf_e[s] = (unsigned char)(s * 131 + (s >> 8));
        for (r = 0; r < 3; r++) {
            if (F(ctr)(&ks, iv_d, buf_d, buf_d, size) != 0 || !EVP_EncryptUpdate(ctx, buf_e, &n, buf_e, (int)size)
                || (size_t)n != size)
                fail("encrypting");
            if (memcmp(buf_d, buf_e, size) != 0)
                fail("the provider and the library disagree");
        }
        /* alternate short batches of the two paths (~1 MiB each), so that load from other jobs falls
         * on both alike; the overhead is the median over the pairs of EVP time / direct time */
        {
            const int calls = size >= (1u << 20) ? 1 : (int)((1u << 20) / size);
            double t_cpu[2] = {0, 0}, t_wall[2] = {0, 0}, w_start = now(CLOCK_MONOTONIC);
            uint64_t bytes[2] = {0, 0};
            int pairs = 0;
            do {
                double cost[2];
                for (r = 0; r < 2; r++) {
                    int path = (pairs + r) % 2;  /* 0: the library directly, 1: EVP through the provider */
                    double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
                    int k;
                    for (k = 0; k < calls; k++)
                        if (path == 0 ? F(ctr)(&ks, iv_d, buf_d, buf_d, size) != 0
                                      : !EVP_EncryptUpdate(ctx, buf_e, &n, buf_e, (int)size))
                            fail("timed call");
                    cost[path] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
                    t_cpu[path] += cost[path];
                    t_wall[path] += now(CLOCK_MONOTONIC) - w0;
                    bytes[path] += (uint64_t)calls * size;
                }
                ratio[pairs++] = cost[1] / cost[0];
            } while (pairs < MAXPAIRS && (pairs < 2 * rounds || now(CLOCK_MONOTONIC) - w_start < seconds));
            for (s = 0; s < 2; s++)
                printf("size=%zu path=%s cpu_Bps=%.0f wall_Bps=%.0f pairs=%d\n", size, s ? "evp" : "direct",
                       (double)bytes[s] / t_cpu[s], (double)bytes[s] / t_wall[s], pairs);
            printf("size=%zu overhead=%.4f\n", size, median(ratio, pairs) - 1.0);
        }
        for (s = 0; s < (int)size; s++)
            sum = sum * 31 + buf_d[s] + buf_e[s];
    }
    printf("checksum=%016llx\n", (unsigned long long)sum);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    return 0;
}
