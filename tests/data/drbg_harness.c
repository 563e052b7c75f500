/* Drives <cipher>_drbg_* on stdin's scenario and prints every output in hex (for the sanitizer test).
 * stdin: entropy (K bytes), nonce (K/2), personalization (7), then reseed entropy (K) and additional input (5).
 * Compile with -DCS_CIPHER=name -DCS_KEY_BYTES=K and -include <name>_drbg.h. */
#include <stdio.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define F(x) CAT(CS_CIPHER, x)
#define K CS_KEY_BYTES

static void hex(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
    printf("\n");
}

int main(void) {
    uint8_t in[K + K / 2 + 7 + K + 5];
    if (fread(in, 1, sizeof in, stdin) != sizeof in) return 2;
    const uint8_t *entropy = in, *nonce = in + K, *pers = nonce + K / 2, *reseed = pers + 7, *add = reseed + K;
    F(_drbg) d;
    static uint8_t out[65536];
    if (F(_drbg_instantiate)(&d, 1, 0, 2, entropy, K, nonce, K / 2, pers, 7) != 0) return 3;
    size_t sizes[] = {0, 1, 33, 65536, 100};
    for (int i = 0; i < 5; i++) {
        int rc = F(_drbg_generate)(&d, out, sizes[i], i == 2 ? add : NULL, i == 2 ? 5 : 0, reseed, K);
        if (rc != 0) return 10 + i;
        hex(out, sizes[i] < 64 ? sizes[i] : 64);
    }
    uint8_t keys[3 * K], vs[3 * 32];
    int planned = F(_drbg_plan)(&d, 3, 4096, keys, vs);
    printf("%d\n", planned);
    if (F(_drbg_reseed)(&d, reseed, K, add, 5) != 0) return 20;
    if (F(_drbg_generate)(&d, out, 48, NULL, 0, NULL, 0) != 0) return 21;
    hex(out, 48);
    F(_drbg_uninstantiate)(&d);
    return 0;
}
