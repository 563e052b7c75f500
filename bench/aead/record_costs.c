/* Per-record costs of one generated C library, in cache (16 KiB buffers), one thread: the fixed part of a
 * GCM record (an empty message: J0, AAD, lengths, E_K(J0)) through the one-shot call and through a key
 * context (gcm_init_key, aad, encrypt_update, finish), the same at 16 KiB, CTR of 16 KiB, and one ECB
 * block (the short-call path E_K(J0) takes).  Best of 15 rounds of 2000 calls, thread CPU time, ns.
 *     cc -O2 -std=c99 -D_POSIX_C_SOURCE=199309L -DCS_P=aria128 -DCS_PU=ARIA128 -I <build>/include \
 *        -include aria128.h bench/aead/record_costs.c <build>/lib/libaria128.a -o record_costs
 * (<build> from `python3 -m driver build aria128 --target c -o <build>`; built from two checkouts, it is an
 * A/B of the per-record path.) */
#include <stdio.h>
#include <string.h>

#include "timing.h"

static unsigned char in[16384], out[16384], key[32], iv[16], aad[13], tag[16];
static F(key) ks;
static F(gcm_key) gk;

static void keyctx(size_t n)
{
    F(gcm) g;
    if (F(gcm_init_key)(&g, &gk, iv, 12) || F(gcm_aad)(&g, aad, 13) || F(gcm_encrypt_update)(&g, in, out, n)
        || F(gcm_finish)(&g, tag, 16))
        puts("gcm key context failed");
}

static void oneshot(size_t n)
{
    if (F(gcm_encrypt)(&ks, iv, 12, aad, 13, in, out, n, tag, 16)) puts("gcm_encrypt failed");
}

static void ctr(size_t n)
{
    unsigned char c[16];
    memcpy(c, iv, 16);
    F(ctr)(&ks, c, in, out, n);
}

static void ecb(size_t n)
{
    F(ecb_encrypt)(&ks, in, out, n);
}

int main(void)
{
    static void (*const fn[6])(size_t) = {oneshot, keyctx, oneshot, keyctx, ctr, ecb};
    static const size_t len[6] = {0, 0, 16384, 16384, 16384, 16};
    double b[6] = {1, 1, 1, 1, 1, 1}, t;
    int r, i, j;
    if (F(set_key)(&ks, key, CAT(CS_PU, KEY_BYTES)) || F(gcm_key_init)(&gk, &ks)) return 1;
    for (r = 0; r < 15; r++)
        for (j = 0; j < 6; j++) {
            t = now();
            for (i = 0; i < 2000; i++) fn[j](len[j]);
            t = (now() - t) / 2000;
            if (t < b[j]) b[j] = t;
        }
    printf("%s empty record: one-shot %.0f key-ctx %.0f | 16 KiB: one-shot %.0f key-ctx %.0f ctr %.0f | ecb 1 block %.0f ns"
           " | GCM/CTR one-shot %.3f key-ctx %.3f\n",
           CAT(CS_PU, SCHEDULE), b[0] * 1e9, b[1] * 1e9, b[2] * 1e9, b[3] * 1e9, b[4] * 1e9, b[5] * 1e9, b[4] / b[2],
           b[4] / b[3]);
    return 0;
}
