{% if block_bytes == 16 %}
static void cs_gcm_key_powers({{ P }}_key *ks);  /* aead.c: GCM's powers of H, kept in the key */

{% endif %}
/* set_key; enc_only: the encryption round keys alone (cs_key_schedule's first part) and no GCM powers of H, for keys
   only ever used for ECB encryption and CTR (the library's CTR_DRBG) */
static int cs_set_key_as({{ P }}_key *ks, const uint8_t *key, size_t key_len, const char *isa, int enc_only)
{
    const char *why = "";
    unsigned allowed;
    int v;
    if (ks == NULL || key == NULL) return CIPHERSPEC_ERR_NULL;
    if (key_len != {{ P_UP }}_KEY_BYTES) return CIPHERSPEC_ERR_KEY_LENGTH;
    if (isa == NULL) {
        v = cs_default_packed();
        allowed = v < 0 ? 0u : (unsigned)v >> 16;
        v = v < 0 ? -1 : (v & 0xffff) - 1;
    } else {
        v = cs_choose_allowed(isa, &allowed, &why);
    }
    if (v < 0) {
        ks->variant = 0;
        return CIPHERSPEC_ERR_ISA;
    }
#ifdef CS_KS_AESNI
    if ((allowed & (CS_F_AES | CS_F_V2)) == (CS_F_AES | CS_F_V2)) {  /* AES-NI and SSSE3 under the ceiling */
        cs_key_schedule_aesni(ks, key, enc_only);
    } else
#endif
        cs_key_schedule(ks, key, enc_only);
    cs_key_finish(ks, v);  /* bit planes for bitsliced kernels */
    ks->variant = (uint32_t)v + 1;
{% if block_bytes == 16 %}
    ks->ghash = cs_ghash_choose(allowed);  /* GHASH under the same ceiling */
    if (!enc_only) cs_gcm_key_powers(ks);  /* the DRBG's keys (enc_only) never hash: its state's gh stays zero */
{% else %}
    (void)allowed;
{% endif %}
    return CIPHERSPEC_OK;
}

int {{ P }}_set_key_isa({{ P }}_key *ks, const uint8_t *key, size_t key_len, const char *isa)
{
    return cs_set_key_as(ks, key, key_len, isa, 0);
}

int {{ P }}_set_key({{ P }}_key *ks, const uint8_t *key, size_t key_len)
{
    return cs_set_key_as(ks, key, key_len, NULL, 0);
}

/* set_key for a key only ever used for ECB encryption and CTR (no decryption, no GCM): the library's own CTR_DRBG ({{ P }}_drbg.c)
   calls it for every update; hidden, not part of the API (decryption with such a key would be wrong) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((visibility("hidden")))
#endif
int {{ P }}_cs_set_key_encrypt({{ P }}_key *ks, const uint8_t *key, size_t key_len);
int {{ P }}_cs_set_key_encrypt({{ P }}_key *ks, const uint8_t *key, size_t key_len)
{
    return cs_set_key_as(ks, key, key_len, NULL, 1);
}

/* ---- modes: argument checks, chaining and partial blocks here; whole blocks in the kernels ---- */
static void cs_xor_bytes(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) out[i] = (uint8_t)(a[i] ^ b[i]);
}

int {{ P }}_ecb_encrypt(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t len)
{
    const cs_kernels *k;
    if (ks == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if (len % CS_BLOCK != 0) return CIPHERSPEC_ERR_LENGTH;
    if ((k = cs_kernels_of(ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    if (len) cs_kernels_short(ks, k, len / CS_BLOCK)->ecb_encrypt(ks, in, out, len / CS_BLOCK);
    return CIPHERSPEC_OK;
}

int {{ P }}_ecb_decrypt(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t len)
{
    const cs_kernels *k;
    if (ks == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if (len % CS_BLOCK != 0) return CIPHERSPEC_ERR_LENGTH;
    if ((k = cs_kernels_of(ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    if (len) k->ecb_decrypt(ks, in, out, len / CS_BLOCK);
    return CIPHERSPEC_OK;
}

int {{ P }}_cbc_encrypt(const {{ P }}_key *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    const cs_kernels *k;
    uint8_t chain[CS_BLOCK];
    size_t i;
    if (ks == NULL || iv == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if (len % CS_BLOCK != 0) return CIPHERSPEC_ERR_LENGTH;
    if ((k = cs_kernels_of(ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    memcpy(chain, iv, CS_BLOCK);
    for (i = 0; i < len; i += CS_BLOCK) {  /* sequential by definition */
        cs_xor_bytes(chain, chain, in + i, CS_BLOCK);
        k->ecb_encrypt(ks, chain, chain, 1);
        memcpy(out + i, chain, CS_BLOCK);
    }
    return CIPHERSPEC_OK;
}

int {{ P }}_cbc_decrypt(const {{ P }}_key *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    const cs_kernels *k;
    uint8_t prev[CS_BLOCK], ct[CS_CHUNK * CS_BLOCK];
    size_t n, i, m;
    if (ks == NULL || iv == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if (len % CS_BLOCK != 0) return CIPHERSPEC_ERR_LENGTH;
    if ((k = cs_kernels_of(ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    n = len / CS_BLOCK;
    memcpy(prev, iv, CS_BLOCK);
    for (i = 0; i < n; i += m) {  /* whole runs of the kernel's core; ct: a copy, so that in == out works */
        m = n - i < CS_CHUNK ? n - i : CS_CHUNK;
        if (m > k->lanes) m -= m % k->lanes;
        memcpy(ct, in + i * CS_BLOCK, m * CS_BLOCK);
        k->ecb_decrypt(ks, ct, out + i * CS_BLOCK, m);
        cs_xor_bytes(out + i * CS_BLOCK, out + i * CS_BLOCK, prev, CS_BLOCK);
        cs_xor_bytes(out + (i + 1) * CS_BLOCK, out + (i + 1) * CS_BLOCK, ct, (m - 1) * CS_BLOCK);
        memcpy(prev, ct + (m - 1) * CS_BLOCK, CS_BLOCK);
    }
    return CIPHERSPEC_OK;
}

int {{ P }}_ctr(const {{ P }}_key *ks, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    const cs_kernels *k;
    uint8_t ctr[CS_BLOCK], last[CS_BLOCK];
    const size_t whole = len / CS_BLOCK, rest = len % CS_BLOCK;
    if (ks == NULL || iv == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if ((k = cs_kernels_of(ks)) == NULL) return CIPHERSPEC_ERR_ISA;
    k = cs_kernels_short(ks, k, whole + (rest != 0));  /* a short call: a narrower variant's run */
    memcpy(ctr, iv, CS_BLOCK);
    if (whole) k->ctr(ks, ctr, in, out, whole);
    if (rest) {  /* a partial last block: the first bytes of its keystream */
        memset(last, 0, CS_BLOCK);
        memcpy(last, in + whole * CS_BLOCK, rest);
        k->ctr(ks, ctr, last, last, 1);
        memcpy(out + whole * CS_BLOCK, last, rest);
    }
    memcpy(iv, ctr, CS_BLOCK);
    return CIPHERSPEC_OK;
}

const char *{{ P }}_schedule_name(void) { return {{ P_UP }}_SCHEDULE; }
size_t {{ P }}_key_size(void) { return sizeof({{ P }}_key); }
