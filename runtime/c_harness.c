/* A driver for one generated cipher library (the ASan+UBSan test, and `cipherspec test` on other
 * architectures under QEMU).
 * Compiled with -DCS_CIPHER=<prefix> -DCS_KEY_BYTES=<n> -DCS_BLOCK_BYTES=<n> -include <prefix>.h.
 * stdin: key, IV, then the data (any length).  stdout: ECB-enc, ECB-dec, CBC-enc, CBC-dec (of the
 * whole-block prefix), CTR (of all of it) and the CTR IV after it.  Also checks in-place calls and the
 * error codes, and (nothing on stdout) the AEAD modes' consistency: CMAC one-shot == incremental (64- and
 * 128-bit blocks); for 128-bit blocks GCM/CCM/XTS round trips, in place == out of place (GCM, CCM),
 * incremental GCM split anywhere == one-shot, a flipped tag refused with the output zeroed (GCM, CCM).  Exits non-zero on any
 * mismatch.  With the argument "-batch", stdin is many such inputs, each after its length as a 4-byte
 * little-endian number, and stdout their outputs one after another (one process for many cases:
 * runtime/harness.py). */
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

/* the AEAD modes on data[0..len) (out, tmp: len + 1 bytes of scratch): 0 if consistent */
static int aead(const F(key) *ks, const unsigned char *iv, const unsigned char *data, size_t len, unsigned char *out,
                unsigned char *tmp)
{
    unsigned char tag[16], tag2[16];
    size_t cut = len / 3;
    int bad = 0;
#if CS_BLOCK_BYTES == 8 || CS_BLOCK_BYTES == 16
    F(cmac_ctx) m;
    bad |= check(F(cmac)(ks, data, len, tag, CS_BLOCK_BYTES) == CIPHERSPEC_OK, "cmac");
    bad |= check(F(cmac_init)(&m, ks) == CIPHERSPEC_OK && F(cmac_update)(&m, data, cut) == CIPHERSPEC_OK
                     && F(cmac_update)(&m, data + cut, len - cut) == CIPHERSPEC_OK
                     && F(cmac_final)(&m, tag2, CS_BLOCK_BYTES) == CIPHERSPEC_OK,
                 "cmac incremental");
    bad |= check(memcmp(tag, tag2, CS_BLOCK_BYTES) == 0, "cmac incremental == one-shot");
#else
    (void)ks;
    (void)data;
    (void)tag;
    (void)tag2;
    (void)cut;
#endif
#if CS_BLOCK_BYTES == 16
    {
        F(gcm) g;
        F(xts_key) xk;
        unsigned char key2[2 * CS_KEY_BYTES];
        size_t i;
        bad |= check(F(gcm_encrypt)(ks, iv, 12, iv, 16, data, out, len, tag, 16) == CIPHERSPEC_OK, "gcm");
        bad |= check(F(gcm_decrypt)(ks, iv, 12, iv, 16, out, tmp, len, tag, 16) == CIPHERSPEC_OK, "gcm decrypt");
        bad |= check(memcmp(tmp, data, len) == 0, "gcm round trip");
        bad |= check(F(gcm_init)(&g, ks, iv, 16) == CIPHERSPEC_OK && F(gcm_aad)(&g, iv, 5) == CIPHERSPEC_OK
                         && F(gcm_aad)(&g, iv + 5, 11) == CIPHERSPEC_OK
                         && F(gcm_encrypt_update)(&g, data, tmp, cut) == CIPHERSPEC_OK
                         && F(gcm_encrypt_update)(&g, data + cut, tmp + cut, len - cut) == CIPHERSPEC_OK
                         && F(gcm_finish)(&g, tag2, 16) == CIPHERSPEC_OK,
                     "gcm incremental");
        bad |= check(F(gcm_encrypt)(ks, iv, 16, iv, 16, data, out, len, tag, 16) == CIPHERSPEC_OK, "gcm 16-byte IV");
        bad |= check(memcmp(tmp, out, len) == 0 && memcmp(tag, tag2, 16) == 0, "gcm incremental == one-shot");
        memcpy(tmp, data, len);
        bad |= check(F(gcm_encrypt)(ks, iv, 16, iv, 16, tmp, tmp, len, tag2, 16) == CIPHERSPEC_OK, "gcm in place");
        bad |= check(memcmp(tmp, out, len) == 0 && memcmp(tag, tag2, 16) == 0, "gcm in place == out of place");
        tag[0] ^= 1;
        bad |= check(F(gcm_decrypt)(ks, iv, 16, iv, 16, out, tmp, len, tag, 16) == CIPHERSPEC_ERR_AUTH, "gcm bad tag");
        for (i = 0; i < len; i++) bad |= check(tmp[i] == 0, "gcm refused: output zeroed");
        if (len < 65536) {
            bad |= check(F(ccm_encrypt)(ks, iv, 13, iv, 3, data, out, len, tag, 12) == CIPHERSPEC_OK, "ccm");
            bad |= check(F(ccm_decrypt)(ks, iv, 13, iv, 3, out, tmp, len, tag, 12) == CIPHERSPEC_OK, "ccm decrypt");
            bad |= check(memcmp(tmp, data, len) == 0, "ccm round trip");
            memcpy(tmp, data, len);  /* 7-byte nonce (8-byte length field), no AAD, 16-byte tag, in place */
            bad |= check(F(ccm_encrypt)(ks, iv, 7, iv, 0, tmp, tmp, len, tag2, 16) == CIPHERSPEC_OK, "ccm in place");
            bad |= check(F(ccm_encrypt)(ks, iv, 7, iv, 0, data, out, len, tag, 16) == CIPHERSPEC_OK, "ccm 7-byte nonce");
            bad |= check(memcmp(tmp, out, len) == 0 && memcmp(tag, tag2, 16) == 0, "ccm in place == out of place");
            tag[15] ^= 0x80;
            bad |= check(F(ccm_decrypt)(ks, iv, 7, iv, 0, out, tmp, len, tag, 16) == CIPHERSPEC_ERR_AUTH, "ccm bad tag");
            for (i = 0; i < len; i++) bad |= check(tmp[i] == 0, "ccm refused: output zeroed");
        }
        for (i = 0; i < sizeof key2; i++) key2[i] = (unsigned char)(i * 29 + 1);
        if (len >= 16) {
            bad |= check(F(xts_set_key)(&xk, key2, sizeof key2) == CIPHERSPEC_OK, "xts_set_key");
            bad |= check(F(xts_encrypt)(&xk, iv, data, out, len) == CIPHERSPEC_OK, "xts");
            memcpy(tmp, out, len);
            bad |= check(F(xts_decrypt)(&xk, iv, tmp, tmp, len) == CIPHERSPEC_OK, "xts decrypt in place");
            bad |= check(memcmp(tmp, data, len) == 0, "xts round trip");
        }
    }
#else
    (void)iv;
    (void)out;
    (void)tmp;
#endif
    return bad;
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
    bad |= aead(&ks, iv, in, len, out, tmp);
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
