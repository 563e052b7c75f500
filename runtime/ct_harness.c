/* Constant-time check for one generated cipher library under valgrind memcheck.
 * Compiled with -DCS_CIPHER=<prefix> -DCS_KEY_BYTES=<n> -DCS_BLOCK_BYTES=<n> -include <prefix>.h.
 * The key and the plaintext are marked undefined (VALGRIND_MAKE_MEM_UNDEFINED): memcheck then reports
 * every branch and every memory address that depends on them -- a secret-indexed table lookup is
 * "Use of uninitialised value", a secret-dependent branch "Conditional jump or move depends on
 * uninitialised value(s)".  set_key and every mode run, over a length that crosses the kernels' runs
 * and tails; then the AEAD modes' secret paths: GCM (whose GHASH variant follows CIPHERSPEC_X86_ISA like
 * the kernels: sse2 runs the portable one), GMAC, CCM and XTS encryption (128-bit blocks) and CMAC.
 * Decryption's tag check is left out: whether a tag matches is public (the call's result), so its branch
 * is on purpose; so is xts_set_key's refusal of equal halves (the XTS key is set up with set_key here).
 * GCM runs with a 12-byte IV: another length makes J0 a hash under H, and where J0's low 32 bits wrap (the
 * CTR kernel call is split there) is then a branch on key-derived data (as in OpenSSL's ctr32 loops).  Exits 3 if the library refuses the variant asked for (CIPHERSPEC_X86_ISA), 0 otherwise:
 * memcheck's own --error-exitcode says whether anything leaked. */
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#define CS_CAT_(a, b) a##_##b
#define CS_CAT(a, b) CS_CAT_(a, b)
#define F(x) CS_CAT(CS_CIPHER, x)
#define LEN (37 * CS_BLOCK_BYTES + 5)  /* whole blocks and a partial one */

static unsigned char key[CS_KEY_BYTES], iv[CS_BLOCK_BYTES], pt[LEN], out[LEN], tag[16];

int main(void)
{
    F(key) ks;
    size_t i, whole = LEN - LEN % CS_BLOCK_BYTES;
    int rc = 0;
    for (i = 0; i < sizeof key; i++) key[i] = (unsigned char)(7 * i + 1);
    for (i = 0; i < sizeof iv; i++) iv[i] = (unsigned char)(0xf0 + i);
    for (i = 0; i < sizeof pt; i++) pt[i] = (unsigned char)(3 * i);
    VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof key);
    VALGRIND_MAKE_MEM_UNDEFINED(pt, sizeof pt);
    if (F(set_key)(&ks, key, sizeof key) != CIPHERSPEC_OK) {
        fprintf(stderr, "ct_harness: set_key refused the variant: %s\n", F(dispatch_error)());
        return 3;
    }
    rc |= F(ecb_encrypt)(&ks, pt, out, whole);
    rc |= F(ecb_decrypt)(&ks, pt, out, whole);
    rc |= F(cbc_encrypt)(&ks, iv, pt, out, whole);
    rc |= F(cbc_decrypt)(&ks, iv, pt, out, whole);
    rc |= F(ctr)(&ks, iv, pt, out, LEN);
#if CS_BLOCK_BYTES == 8 || CS_BLOCK_BYTES == 16  /* the blocks CMAC is defined for */
    rc |= F(cmac)(&ks, pt, LEN, tag, CS_BLOCK_BYTES);
#endif
#if CS_BLOCK_BYTES == 16
    rc |= F(gcm_encrypt)(&ks, iv, 12, pt, 20, pt, out, LEN, tag, 16);
    rc |= F(gmac)(&ks, iv, 12, pt, LEN, tag, 16);
    rc |= F(ccm_encrypt)(&ks, iv, 12, pt, 20, pt, out, LEN, tag, 16);
    {
        F(xts_key) xk;
        rc |= F(set_key)(&xk.data, key, sizeof key);
        rc |= F(set_key)(&xk.tweak, pt, sizeof key);
        rc |= F(xts_encrypt)(&xk, iv, pt, out, LEN);
        rc |= F(xts_decrypt)(&xk, iv, pt, out, LEN);
    }
#endif
    printf("%s %d\n", F(variant)(), rc);  /* public: the variant and the status codes */
    return 0;
}
