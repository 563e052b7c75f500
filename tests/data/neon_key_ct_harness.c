/* Constant-time check of a NEON library's key schedule (<prefix>_key.c, portable C) compiled for the host
 * and run under valgrind memcheck.  Compiled with -DCS_PREFIX=<prefix> -DCS_KEY_BYTES=<n> -DCS_KEY_WORDS=<n>
 * -DCS_RK=uint32_t|uint64_t.  The key is marked undefined: memcheck reports any branch or memory address
 * computed from it (a table indexed by a key byte is "Use of uninitialised value").  The status printed
 * depends only on the key length, so printing it is not itself a use of the key. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <valgrind/memcheck.h>

#define CS_CAT_(a, b) a##_##b
#define CS_CAT(a, b) CS_CAT_(a, b)

int CS_CAT(CS_PREFIX, key_schedule)(const uint8_t *key, size_t key_len, CS_RK *rk);

static unsigned char key[CS_KEY_BYTES];
static CS_RK rk[CS_KEY_WORDS];

int main(void)
{
    size_t i;
    for (i = 0; i < sizeof key; i++) key[i] = (unsigned char)(7 * i + 1);
    VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof key);
    printf("%d\n", CS_CAT(CS_PREFIX, key_schedule)(key, sizeof key, rk));
    return 0;
}
