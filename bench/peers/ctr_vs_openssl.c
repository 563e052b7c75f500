/* One process, one thread: a cipherspec-built library's CTR against OpenSSL 3's EVP CTR, same key, same counter,
 * same 64 MiB (or -DCS_MIB=n); output compared byte for byte; best of CS_REPS runs each, alternating, by thread
 * CPU time.
 * Generic over the cipher: build with -DCS_H='"<cipher>.h"' -DCS_P=<cipher> -DCS_PEER='"<EVP name>"' (e.g.
 * "AES-128-CTR") and -DCS_KEYLEN=<bytes>.  OpenSSL reads OPENSSL_ia32cap from the environment at start-up: the
 * caller sets it (bench/peers/run.py does, per row) to pick OpenSSL's code path; cipherspec ignores it.
 * Usage: ./harness [isa]   (isa: a CIPHERSPEC_X86_ISA level for cipherspec's side; default: the best)
 * Prints one line: "<variant> <ours MB/s> <OpenSSL MB/s> equal|DIFFER <OpenSSL version>".
 *        ./harness --list  (the library's variants, best first, one a line) */
#include <openssl/crypto.h>
#include <openssl/evp.h>
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
#ifndef CS_KEYLEN
#define CS_KEYLEN 16
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define F(name) CAT(CS_P, name)

/* thread CPU time: on a shared machine a 64 MiB run is preempted (wall clock halves both sides at load 4 on
   2 cores); CPU time counts only the time this thread ran */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)CS_MIB << 20;
    uint8_t key[CS_KEYLEN], iv[16], ctr[16];
    uint8_t *in = malloc(n), *a = malloc(n), *b = malloc(n);
    F(_key) ks;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    EVP_CIPHER *evp = EVP_CIPHER_fetch(NULL, CS_PEER, NULL);
    double best_ours = 1e9, best_peer = 1e9;
    int r, len;
    size_t i;
    if (!in || !a || !b || !c || !evp) return 1;
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        const char *v;
        for (r = 0; (v = F(_variant_name)(r)) != NULL; r++) puts(v);
        return 0;
    }
    for (i = 0; i < CS_KEYLEN; i++) key[i] = (uint8_t)(17 * i + 1);
    for (i = 0; i < 16; i++) iv[i] = (uint8_t)(0xf0 - 3 * i);
    iv[15] = 0xf0;  /* the counter carries across bytes within the run */
    for (i = 0; i < n; i++) in[i] = (uint8_t)(i * 131 + (i >> 9));
    if (F(_set_key_isa)(&ks, key, CS_KEYLEN, argc > 1 ? argv[1] : NULL) != 0) {
        fprintf(stderr, "set_key: %s\n", F(_dispatch_error)());
        return 2;
    }
    for (r = 0; r < CS_REPS; r++) {
        double t0;
        memcpy(ctr, iv, 16);
        t0 = now();
        F(_ctr)(&ks, ctr, in, a, n);
        t0 = now() - t0;
        if (t0 < best_ours) best_ours = t0;
        if (!EVP_EncryptInit_ex2(c, evp, key, iv, NULL)) return 1;
        t0 = now();
        if (!EVP_EncryptUpdate(c, b, &len, in, (int)n) || (size_t)len != n) return 1;
        t0 = now() - t0;
        if (t0 < best_peer) best_peer = t0;
    }
    printf("%s %.0f %.0f %s OpenSSL-%s\n", argc > 1 ? F(_variant_for)(argv[1]) : F(_variant)(), n / best_ours / 1e6,
           n / best_peer / 1e6, memcmp(a, b, n) == 0 ? "equal" : "DIFFER", OpenSSL_version(OPENSSL_VERSION_STRING));
    EVP_CIPHER_free(evp);
    EVP_CIPHER_CTX_free(c);
    return 0;
}
