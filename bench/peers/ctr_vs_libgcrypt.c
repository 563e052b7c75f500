/* One process, one thread: a cipherspec-built library's CTR against libgcrypt's, same key, same counter,
 * same 64 MiB (or -DCS_MIB=n); output compared byte for byte; best of CS_REPS runs each.
 * Generic over the cipher: build with -DCS_H='"<cipher>.h"' -DCS_P=<cipher> -DCS_GCRY=GCRY_CIPHER_<NAME>.
 * Usage: ./harness [isa]   (isa: a CIPHERSPEC_X86_ISA level for cipherspec's side; default: the best)
 * Prints one line: "<variant> <ours MB/s> <libgcrypt MB/s> equal|DIFFER <libgcrypt version>".
 *        ./harness --list  (the library's variants, best first, one a line) */
#include <gcrypt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include CS_H

#ifndef CS_MIB
#define CS_MIB 64
#endif
#ifndef CS_REPS
#define CS_REPS 5
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define F(name) CAT(CS_P, name)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)CS_MIB << 20;
    uint8_t key[16], iv[16], ctr[16];
    uint8_t *in = malloc(n), *a = malloc(n), *b = malloc(n);
    F(_key) ks;
    gcry_cipher_hd_t h;
    double best_ours = 1e9, best_peer = 1e9;
    int r;
    size_t i;
    if (!in || !a || !b) return 1;
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        const char *v;
        for (r = 0; (v = F(_variant_name)(r)) != NULL; r++) puts(v);
        return 0;
    }
    for (i = 0; i < 16; i++) key[i] = (uint8_t)(17 * i + 1), iv[i] = (uint8_t)(0xf0 - 3 * i);
    iv[15] = 0xf0;  /* the counter carries across bytes within the run */
    for (i = 0; i < n; i++) in[i] = (uint8_t)(i * 131 + (i >> 9));
    if (F(_set_key_isa)(&ks, key, 16, argc > 1 ? argv[1] : NULL) != 0) {
        fprintf(stderr, "set_key: %s\n", F(_dispatch_error)());
        return 2;
    }
    if (!gcry_check_version(NULL)) return 1;
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    if (gcry_cipher_open(&h, CS_GCRY, GCRY_CIPHER_MODE_CTR, 0) || gcry_cipher_setkey(h, key, 16)) return 1;
    for (r = 0; r < CS_REPS; r++) {
        double t0;
        memcpy(ctr, iv, 16);
        t0 = now();
        F(_ctr)(&ks, ctr, in, a, n);
        t0 = now() - t0;
        if (t0 < best_ours) best_ours = t0;
        gcry_cipher_setctr(h, iv, 16);
        t0 = now();
        gcry_cipher_encrypt(h, b, n, in, n);
        t0 = now() - t0;
        if (t0 < best_peer) best_peer = t0;
    }
    printf("%s %.0f %.0f %s %s\n", argc > 1 ? F(_variant_for)(argv[1]) : F(_variant)(), n / best_ours / 1e6,
           n / best_peer / 1e6, memcmp(a, b, n) == 0 ? "equal" : "DIFFER", gcry_check_version(NULL));
    gcry_cipher_close(h);
    return 0;
}
