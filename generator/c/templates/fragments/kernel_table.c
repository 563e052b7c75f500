/* ---- kernels: the variants this library carries, best first ---- */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(CS_PORTABLE_ONLY)
#define CS_X86 1  /* x86-64 with GCC/Clang: several ISA levels, chosen from CPUID */
#endif

typedef struct {
    const char *name;
    unsigned features;  /* the CS_F_* groups the variant's code needs */
    size_t lanes;       /* blocks per run of its core (CBC decryption buffers whole runs) */
    void (*ecb_encrypt)(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t blocks);
    void (*ecb_decrypt)(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t blocks);
    void (*ctr)(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in, uint8_t *out, size_t blocks);
    /* GCM's CTR stitched with a VPCLMULQDQ zmm GHASH, and XTS in one pass (AES-round kernels on 512-bit
       registers; else NULL): the blocks done, a multiple of the kernel's batch */
    size_t (*ctr_ghash)(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in, uint8_t *out, size_t blocks, uint64_t x[2],
                        const uint64_t (*h)[2], int decrypt);
    size_t (*xts)(const {{ P }}_key *ks, uint64_t t[2], const uint8_t *in, uint8_t *out, size_t blocks, int decrypt);
    /* CCM's CBC-MAC and CTR in one pass (AES-round kernels, any register width; else NULL): out == NULL
       runs the CBC-MAC alone */
    size_t (*ccm)(const {{ P }}_key *ks, uint8_t x[16], uint8_t *ctr, const uint8_t *in, uint8_t *out, size_t blocks,
                int decrypt);
    unsigned family;    /* variants of one family run one kernel source at different widths (same key data) */
    unsigned cost;      /* estimated cost of one run of its encryption core, comparable within a family
                           (library.py: run_cost): aead.c's one-block calls take the family's cheapest */
} cs_kernels;

/* CPU feature groups (x86-64 psABI levels, plus AES-NI, VAES and the carry-less multiplies) */
#define CS_F_SSE2 1u   /* x86-64 baseline */
#define CS_F_V2 2u     /* x86-64-v2: SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT, CMPXCHG16B, LAHF */
#define CS_F_AES 4u    /* AES-NI (and PCLMULQDQ) */
#define CS_F_V3 8u     /* x86-64-v3: AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE, OS-saved YMM */
#define CS_F_VAES 16u  /* VAES (AES on 256/512-bit registers) */
#define CS_F_V4 32u    /* x86-64-v4: AVX-512 F, BW, CD, DQ, VL, OS-saved ZMM */
#define CS_F_CLMUL 64u    /* PCLMULQDQ (GHASH) */
#define CS_F_VCLMUL 128u  /* VPCLMULQDQ (GHASH on 256/512-bit registers, with V3/V4) */
#define CS_F_GFNI 256u    /* GFNI (Galois-field affine maps and inversion on bytes), CPUID.(7,0):ECX bit 8 */

#define CS_DECLARE(v)                                                                                    \
    void {{ P }}_##v##_ecb_encrypt(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t blocks);   \
    void {{ P }}_##v##_ecb_decrypt(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t blocks);   \
    void {{ P }}_##v##_ctr(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in, uint8_t *out, size_t blocks);
#define CS_ROW(v, features, lanes, family, cost) \
    { #v, features, lanes, {{ P }}_##v##_ecb_encrypt, {{ P }}_##v##_ecb_decrypt, {{ P }}_##v##_ctr, NULL, NULL, NULL, family, cost }
/* a row whose kernels have fused modes: their functions (or NULL) */
#define CS_ROW_FUSED(v, features, lanes, family, cost, ctr_ghash, xts, ccm) \
    { #v, features, lanes, {{ P }}_##v##_ecb_encrypt, {{ P }}_##v##_ecb_decrypt, {{ P }}_##v##_ctr, ctr_ghash, xts, ccm, family, cost }
#define CS_DECLARE_CTR_GHASH(f)                                                                          \
    size_t f(const {{ P }}_key *ks, uint8_t *ctr, const uint8_t *in, uint8_t *out, size_t blocks, uint64_t x[2], \
             const uint64_t (*h)[2], int decrypt);
#define CS_DECLARE_CCM(f) \
    size_t f(const {{ P }}_key *ks, uint8_t x[16], uint8_t *ctr, const uint8_t *in, uint8_t *out, size_t blocks, int decrypt);
#define CS_DECLARE_XTS(f) \
    size_t f(const {{ P }}_key *ks, uint64_t t[2], const uint8_t *in, uint8_t *out, size_t blocks, int decrypt);
