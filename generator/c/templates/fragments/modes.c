int {{ P }}_ecb_encrypt(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t len)
{
    size_t n, i = 0;
    if (ks == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if (len % CS_BLOCK != 0) return CIPHERSPEC_ERR_LENGTH;
    n = len / CS_BLOCK;
{{ walk.ecb_encrypt }}
    return CIPHERSPEC_OK;
}

int {{ P }}_ecb_decrypt(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t len)
{
    size_t n, i = 0;
    if (ks == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if (len % CS_BLOCK != 0) return CIPHERSPEC_ERR_LENGTH;
    n = len / CS_BLOCK;
{{ walk.ecb_decrypt }}
    return CIPHERSPEC_OK;
}

int {{ P }}_cbc_encrypt(const {{ P }}_key *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    uint8_t chain[CS_BLOCK];
    size_t n, i;
    if (ks == NULL || iv == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if (len % CS_BLOCK != 0) return CIPHERSPEC_ERR_LENGTH;
    n = len / CS_BLOCK;
    memcpy(chain, iv, CS_BLOCK);
    for (i = 0; i < n; i++) {  /* sequential by definition */
        cs_xor_bytes(chain, chain, in + i * CS_BLOCK, CS_BLOCK);
        cs_encrypt_1(ks, chain, chain);
        memcpy(out + i * CS_BLOCK, chain, CS_BLOCK);
    }
    return CIPHERSPEC_OK;
}

int {{ P }}_cbc_decrypt(const {{ P }}_key *ks, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    uint8_t prev[CS_BLOCK];
    uint8_t ct[{{ walk.buffer }}];
    size_t n, i = 0;
    if (ks == NULL || iv == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    if (len % CS_BLOCK != 0) return CIPHERSPEC_ERR_LENGTH;
    n = len / CS_BLOCK;
    memcpy(prev, iv, CS_BLOCK);
{{ walk.cbc_decrypt }}
    return CIPHERSPEC_OK;
}

int {{ P }}_ctr(const {{ P }}_key *ks, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    uint8_t ctr[CS_BLOCK];
    uint8_t stream[{{ walk.buffer }}];
    size_t done = 0;
    if (ks == NULL || iv == NULL || in == NULL || out == NULL) return CIPHERSPEC_ERR_NULL;
    memcpy(ctr, iv, CS_BLOCK);
{{ walk.ctr }}
    memcpy(iv, ctr, CS_BLOCK);
    return CIPHERSPEC_OK;
}

const char *{{ P }}_schedule_name(void) { return {{ P_UP }}_SCHEDULE; }
size_t {{ P }}_key_size(void) { return sizeof({{ P }}_key); }
