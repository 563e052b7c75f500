{% if block_bytes == 16 %}
/* ---- Authenticated encryption and storage modes (128-bit block) ----
 * Every call checks all its arguments before it writes anything; pointers must be non-NULL even for
 * empty inputs (pass any valid address with length 0).
 *
 * GCM (NIST SP 800-38D).  iv: any non-zero length (12 bytes is the fast, recommended case: J0 = IV || 1;
 * others are hashed under H, and then whether J0's low 32 bits wrap inside the message -- where the CTR
 * kernel call is split -- is a branch on key-derived data); tag_len: 16, 15, 14, 13, 12, 8 or 4; plaintext up to 2^36 - 32 bytes, AAD up to
 * 2^61 - 1 bytes (else CIPHERSPEC_ERR_PARAM).  The counter is inc32 (its low 32 bits wrap on their own).
 * decrypt compares the tag in constant time; on a mismatch it returns CIPHERSPEC_ERR_AUTH and out is
 * zeroed (no plaintext is ever left in it).  GHASH runs on the variant chosen with the kernels (see
 * {{ P }}_ghash_variant), stitched with the CTR kernel over 4 KiB chunks.  in == out is allowed. */
int {{ P }}_gcm_encrypt(const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag, size_t tag_len);
int {{ P }}_gcm_decrypt(const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, uint8_t *out, size_t len, const uint8_t *tag, size_t tag_len);
/* GMAC: GCM with no plaintext, a tag over aad alone */
int {{ P }}_gmac(const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
              uint8_t *tag, size_t tag_len);

/* Incremental GCM (streams): init, any number of aad calls, then any number of encrypt_update (or
 * decrypt_update: one direction per message) calls of any lengths, then finish (encryption: the tag) or
 * verify (decryption: CIPHERSPEC_OK or CIPHERSPEC_ERR_AUTH, constant time).  decrypt_update returns
 * plaintext before the tag is checked: hold it until verify succeeds.  finish and verify wipe the context
 * (counters, GHASH state); a call out of order returns CIPHERSPEC_ERR_PARAM.
 * The context is plain data (callers may embed and memcpy it) with one pointer, ks, its first member:
 * the key, which must outlive the context and stay unchanged while it runs (the context reads H's powers
 * from the key: set_key derived them); a copy of a context may be re-pointed at a copy of the key. */
typedef struct {{ P }}_gcm {
    const {{ P }}_key *ks;
    uint64_t x[2];               /* GHASH state */
    uint64_t aad_len, text_len;  /* bytes so far */
    uint8_t j0[16], ctr[16];     /* the pre-counter block and the next counter block */
    uint8_t ksb[16], buf[16];    /* a partial block's keystream; AAD or ciphertext awaiting GHASH */
    uint32_t used;               /* bytes of buf in use */
    uint32_t phase;              /* 0: AAD, 1: text */
    uint32_t dir;                /* 0: not yet, 1: encrypt, 2: decrypt */
    uint32_t ghash;              /* the GHASH variant */
    uint32_t magic;              /* set by init, cleared when the context ends */
} {{ P }}_gcm;
int {{ P }}_gcm_init({{ P }}_gcm *g, const {{ P }}_key *ks, const uint8_t *iv, size_t iv_len);

/* Per key, once: the key checked for GCM (set_key derives H and its powers: E_K(0) and up to 32 GCM
 * products, kept in the key's gh; the one-shot calls and every context read them from there).
 * gcm_init_key then starts a message from the IV alone, as a record layer does per record: nothing per
 * key is copied or derived per message.  gk->ks points at the key, which must outlive gk and stay
 * unchanged (run gcm_key_init again after a set_key); gk is plain data with that one pointer. */
typedef struct {{ P }}_gcm_key {
    const {{ P }}_key *ks;
    uint32_t ghash;              /* the GHASH variant (the key's) */
    uint32_t magic;              /* set by gcm_key_init */
} {{ P }}_gcm_key;
int {{ P }}_gcm_key_init({{ P }}_gcm_key *gk, const {{ P }}_key *ks);
int {{ P }}_gcm_init_key({{ P }}_gcm *g, const {{ P }}_gcm_key *gk, const uint8_t *iv, size_t iv_len);
int {{ P }}_gcm_aad({{ P }}_gcm *g, const uint8_t *aad, size_t len);
int {{ P }}_gcm_encrypt_update({{ P }}_gcm *g, const uint8_t *in, uint8_t *out, size_t len);
int {{ P }}_gcm_decrypt_update({{ P }}_gcm *g, const uint8_t *in, uint8_t *out, size_t len);
int {{ P }}_gcm_finish({{ P }}_gcm *g, uint8_t *tag, size_t tag_len);
int {{ P }}_gcm_verify({{ P }}_gcm *g, const uint8_t *tag, size_t tag_len);

/* CCM (NIST SP 800-38C).  nonce_len 7..13; tag_len 4, 6, ..., 16; len < 2^(8 (15 - nonce_len)) bytes.
 * A mismatched tag: CIPHERSPEC_ERR_AUTH and out zeroed. */
int {{ P }}_ccm_encrypt(const {{ P }}_key *ks, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag, size_t tag_len);
int {{ P }}_ccm_decrypt(const {{ P }}_key *ks, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, uint8_t *out, size_t len, const uint8_t *tag, size_t tag_len);

/* XTS (IEEE 1619, NIST SP 800-38E).  The key is two cipher keys, data key || tweak key (key_len = 2 *
 * {{ P_UP }}_KEY_BYTES); equal halves are refused (CIPHERSPEC_ERR_PARAM).  tweak: 16 bytes used as given
 * (encrypted under the tweak key; a sector number is its little-endian encoding).  16 <= len <= 2^20
 * blocks (SP 800-38E's data unit; else CIPHERSPEC_ERR_PARAM); a partial last block is handled by
 * ciphertext stealing.  in == out is allowed. */
typedef struct {{ P }}_xts_key {
    {{ P }}_key data, tweak;
} {{ P }}_xts_key;
int {{ P }}_xts_set_key({{ P }}_xts_key *xk, const uint8_t *key, size_t key_len);
int {{ P }}_xts_set_key_isa({{ P }}_xts_key *xk, const uint8_t *key, size_t key_len, const char *isa);
int {{ P }}_xts_encrypt(const {{ P }}_xts_key *xk, const uint8_t *tweak, const uint8_t *in, uint8_t *out, size_t len);
int {{ P }}_xts_decrypt(const {{ P }}_xts_key *xk, const uint8_t *tweak, const uint8_t *in, uint8_t *out, size_t len);

{% if ghash_doc is defined %}
{{ ghash_doc }}
{% else %}
/* The GHASH variant keys get by default ("vpclmul_avx512", "vpclmul_avx2", "pclmul" or "portable";
 * CIPHERSPEC_X86_ISA caps it like the kernels: sse2 -> portable, aesni -> pclmul), or under an ISA level;
 * NULL where the level cannot run here.  A key set up with set_key_isa(.., isa) uses the latter. */
{% endif %}
const char *{{ P }}_ghash_variant(void);
const char *{{ P }}_ghash_variant_for(const char *isa);
size_t {{ P }}_gcm_size(void);
size_t {{ P }}_gcm_key_size(void);
size_t {{ P }}_xts_key_size(void);
{% endif %}
{% if cmac %}

/* CMAC (NIST SP 800-38B): a tag of tag_len (1..{{ block_bytes }}) bytes over msg.  Incremental: init, update
 * (any lengths), final (which wipes the context); the key must outlive the context. */
int {{ P }}_cmac(const {{ P }}_key *ks, const uint8_t *msg, size_t len, uint8_t *tag, size_t tag_len);
typedef struct {{ P }}_cmac_ctx {
    const {{ P }}_key *ks;
    uint8_t k1[{{ block_bytes }}], k2[{{ block_bytes }}], x[{{ block_bytes }}], buf[{{ block_bytes }}];  /* subkeys, chaining value, held-back block */
    uint32_t used;   /* bytes in buf */
    uint32_t magic;  /* set by init, cleared by final */
} {{ P }}_cmac_ctx;
int {{ P }}_cmac_init({{ P }}_cmac_ctx *ctx, const {{ P }}_key *ks);
int {{ P }}_cmac_update({{ P }}_cmac_ctx *ctx, const uint8_t *msg, size_t len);
int {{ P }}_cmac_final({{ P }}_cmac_ctx *ctx, uint8_t *tag, size_t tag_len);
size_t {{ P }}_cmac_ctx_size(void);
{% endif %}