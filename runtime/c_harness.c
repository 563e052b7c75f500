/* A driver for one generated cipher library (the ASan+UBSan test, and `cipherspec test` on other
 * architectures under QEMU).
 * Compiled with -DCS_CIPHER=<prefix> -DCS_KEY_BYTES=<n> -DCS_BLOCK_BYTES=<n> -include <prefix>.h.
 * stdin: key, IV, then the data (any length).  stdout: ECB-enc, ECB-dec, CBC-enc, CBC-dec (of the
 * whole-block prefix), CTR (of all of it) and the CTR IV after it.  Also checks in-place calls and the
 * error codes; exits non-zero on any mismatch.  With the argument "-batch", stdin is many such inputs,
 * each after its length as a 4-byte little-endian number, and stdout their outputs one after another
 * (one process for many cases: runtime/harness.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS_CAT_(a, b) a##_##b
#define CS_CAT(a, b) CS_CAT_(a, b)
#define F(x) CS_CAT(CS_CIPHER, x)

static unsigned char *read_all(size_t *n)
{
    size_t cap = 1 << 16, len = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len, stdin)) > 0) {
        len += got;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    *n = len;
    return buf;
}

static int check(int cond, const char *what)
{
    if (!cond) fprintf(stderr, "harness: %s\n", what);
    return cond ? 0 : 1;
}

/* one input (key, IV, data) of n bytes: every mode's output on stdout; non-zero on a failed check */
static int run_one(const unsigned char *in, size_t n)
{
    size_t len, whole;
    unsigned char *out, *tmp, iv[CS_BLOCK_BYTES], iv2[CS_BLOCK_BYTES];
    F(key) ks;
    int bad = 0;
    if (n < CS_KEY_BYTES + CS_BLOCK_BYTES) return 2;
    len = n - CS_KEY_BYTES - CS_BLOCK_BYTES;
    whole = len - len % CS_BLOCK_BYTES;
    out = malloc(len + 1);
    tmp = malloc(len + 1);
    if (out == NULL || tmp == NULL) return 2;
    bad |= check(F(set_key)(&ks, in, CS_KEY_BYTES + 1) == CIPHERSPEC_ERR_KEY_LENGTH, "key length");
    bad |= check(F(set_key)(&ks, NULL, CS_KEY_BYTES) == CIPHERSPEC_ERR_NULL, "NULL key");
    bad |= check(F(set_key)(&ks, in, CS_KEY_BYTES) == CIPHERSPEC_OK, "set_key");
    memcpy(iv, in + CS_KEY_BYTES, CS_BLOCK_BYTES);
    in += CS_KEY_BYTES + CS_BLOCK_BYTES;
    bad |= check(F(ecb_encrypt)(&ks, in, out, whole + 1) == CIPHERSPEC_ERR_LENGTH, "ECB length");
    bad |= check(F(cbc_decrypt)(&ks, iv, NULL, out, whole) == CIPHERSPEC_ERR_NULL, "CBC NULL");

#define RUN(call_out, call_in_place, size)                                       \
    do {                                                                          \
        bad |= check((call_out) == CIPHERSPEC_OK, #call_out);                     \
        fwrite(out, 1, size, stdout);                                             \
        memcpy(tmp, in, size);                                                    \
        bad |= check((call_in_place) == CIPHERSPEC_OK, #call_in_place);           \
        bad |= check(memcmp(tmp, out, size) == 0, "in place " #call_in_place);    \
    } while (0)

    RUN(F(ecb_encrypt)(&ks, in, out, whole), F(ecb_encrypt)(&ks, tmp, tmp, whole), whole);
    RUN(F(ecb_decrypt)(&ks, in, out, whole), F(ecb_decrypt)(&ks, tmp, tmp, whole), whole);
    RUN(F(cbc_encrypt)(&ks, iv, in, out, whole), F(cbc_encrypt)(&ks, iv, tmp, tmp, whole), whole);
    RUN(F(cbc_decrypt)(&ks, iv, in, out, whole), F(cbc_decrypt)(&ks, iv, tmp, tmp, whole), whole);
    memcpy(iv2, iv, CS_BLOCK_BYTES);
    bad |= check(F(ctr)(&ks, iv2, in, out, len) == CIPHERSPEC_OK, "ctr");
    fwrite(out, 1, len, stdout);
    fwrite(iv2, 1, CS_BLOCK_BYTES, stdout);
    free(out);
    free(tmp);
    return bad;
}

int main(int argc, char **argv)
{
    size_t n, pos = 0, len;
    unsigned char *all = read_all(&n);
    int bad = 0;
    if (all == NULL) return 2;
    if (argc < 2 || strcmp(argv[1], "-batch") != 0) {
        bad = run_one(all, n);
    } else {
        while (bad == 0 && pos + 4 <= n) {
            len = (size_t)all[pos] | (size_t)all[pos + 1] << 8 | (size_t)all[pos + 2] << 16 | (size_t)all[pos + 3] << 24;
            pos += 4;
            if (len > n - pos) return 2;
            bad = run_one(all + pos, len);
            pos += len;
        }
    }
    free(all);
    return bad;
}
