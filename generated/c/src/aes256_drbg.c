/* aes256_drbg.c — CTR_DRBG over aes256: the skeleton is the same for every cipher; only the sizes and
 * the cipher's own API (aes256_cs_set_key_encrypt, aes256_ecb_encrypt, aes256_ctr) differ.  Generated; do not edit. */
#include "aes256_drbg.h"

#include <string.h>

#define KL 32
#define BL 16
#define SL 48
#define SEC 32
#define MAX_REQUEST_BYTES 65536u                     /* 2^19 bits */
#define MAX_RESEED_INTERVAL (((uint64_t)1) << 48)
#define MAX_INPUT_BYTES 0xFFFFFFFFu                  /* the df encodes lengths in 32 bits */

/* the library's set_key for keys only ever used to encrypt (hidden, in aes256.c): the DRBG's Key only runs CTR and
   ECB encryption, so a cipher whose decryption keys are separate round keys (ARIA's dk) skips making them */
int aes256_cs_set_key_encrypt(aes256_key *ks, const uint8_t *key, size_t key_len);

static void wipe(void *p, size_t n) {
    volatile uint8_t *q = (volatile uint8_t *)p;
    while (n--) *q++ = 0;
}

static void add_be(uint8_t *v, uint64_t n) {         /* V = V + n mod 2^(8 BL), big-endian */
    for (int i = BL - 1; i >= 0 && n; i--) {
        uint64_t s = (uint64_t)v[i] + (n & 0xFF);
        v[i] = (uint8_t)s;
        n = (n >> 8) + (s >> 8);
    }
}

static void encrypt_block(const aes256_key *ks, const uint8_t *in, uint8_t *out) {
    aes256_ecb_encrypt(ks, in, out, BL);
}

/* Update (10.2.1.2): temp = E(K, V+1) || E(K, V+2) || ... (seedlen bytes) XOR provided; K, V = temp. */
static void update(aes256_drbg *d, const uint8_t provided[SL]) {
    uint8_t temp[(SL + BL - 1) / BL * BL];
    uint8_t v[BL];
    memcpy(v, d->v, BL);
    add_be(v, 1);
    memset(temp, 0, sizeof temp);
    aes256_ctr(&d->ks, v, temp, temp, sizeof temp);
    for (int i = 0; i < SL; i++) temp[i] ^= provided[i];
    memcpy(d->key, temp, KL);
    memcpy(d->v, temp + KL, BL);
    aes256_cs_set_key_encrypt(&d->ks, d->key, KL);
    wipe(temp, sizeof temp);
}

/* Block_Cipher_df (10.3.2) over the concatenation of n pieces, streamed: no buffer of the input. */
typedef struct { const uint8_t *p; size_t len; } piece;

static void bcc_feed(const aes256_key *ks, uint8_t chain[BL], uint8_t buf[BL], size_t *fill,
                     const uint8_t *p, size_t len) {
    while (len--) {
        buf[(*fill)++] = *p++;
        if (*fill == BL) {
            for (int i = 0; i < BL; i++) chain[i] ^= buf[i];
            encrypt_block(ks, chain, chain);
            *fill = 0;
        }
    }
}

static void block_cipher_df(const piece *pieces, int n, uint8_t out[SL]) {
    uint8_t k[KL], temp[(KL + BL + BL - 1) / BL * BL], chain[BL], buf[BL], x[BL];
    size_t total = 0;
    for (int j = 0; j < n; j++) total += pieces[j].len;
    uint8_t head[8] = {(uint8_t)(total >> 24), (uint8_t)(total >> 16), (uint8_t)(total >> 8), (uint8_t)total,
                       0, 0, 0, (uint8_t)SL};
    for (int i = 0; i < KL; i++) k[i] = (uint8_t)i;
    aes256_key ks;
    aes256_cs_set_key_encrypt(&ks, k, KL);
    size_t got = 0;
    for (uint32_t i = 0; got < KL + BL; i++) {
        uint8_t iv[BL];
        memset(iv, 0, BL);
        iv[0] = (uint8_t)(i >> 24); iv[1] = (uint8_t)(i >> 16); iv[2] = (uint8_t)(i >> 8); iv[3] = (uint8_t)i;
        size_t fill = 0;
        memset(chain, 0, BL);
        bcc_feed(&ks, chain, buf, &fill, iv, BL);
        bcc_feed(&ks, chain, buf, &fill, head, 8);
        for (int j = 0; j < n; j++) bcc_feed(&ks, chain, buf, &fill, pieces[j].p, pieces[j].len);
        static const uint8_t marker = 0x80, zero = 0;
        bcc_feed(&ks, chain, buf, &fill, &marker, 1);
        while (fill != 0) bcc_feed(&ks, chain, buf, &fill, &zero, 1);
        memcpy(temp + got, chain, BL);
        got += BL;
    }
    aes256_cs_set_key_encrypt(&ks, temp, KL);
    memcpy(x, temp + KL, BL);
    for (size_t off = 0; off < SL; off += BL) {
        encrypt_block(&ks, x, x);
        memcpy(out + off, x, SL - off < BL ? SL - off : BL);
    }
    wipe(&ks, sizeof ks); wipe(k, sizeof k); wipe(temp, sizeof temp); wipe(chain, sizeof chain);
    wipe(buf, sizeof buf); wipe(x, sizeof x);
}

static int bad(const uint8_t *p, size_t len) { return p == NULL && len != 0; }

/* seed material from entropy (+ nonce) + extra: with the df, df(all); without, entropy XOR pad(extra). */
static int seed_material(aes256_drbg *d, const uint8_t *e, size_t elen, const uint8_t *nonce, size_t nlen,
                         const uint8_t *extra, size_t xlen, uint8_t out[SL]) {
    if (d->use_df) {
        if (elen < SEC || elen > MAX_INPUT_BYTES || xlen > MAX_INPUT_BYTES || nlen > MAX_INPUT_BYTES)
            return CIPHERSPEC_ERR_DRBG_LIMIT;
        piece ps[3];
        ps[0].p = e; ps[0].len = elen;
        ps[1].p = nonce; ps[1].len = nlen;
        ps[2].p = extra; ps[2].len = xlen;
        block_cipher_df(ps, 3, out);
        return CIPHERSPEC_OK;
    }
    if (elen != SL || xlen > SL) return CIPHERSPEC_ERR_DRBG_LIMIT;
    memcpy(out, e, SL);
    for (size_t i = 0; i < xlen; i++) out[i] ^= extra[i];
    return CIPHERSPEC_OK;
}

int aes256_drbg_instantiate(aes256_drbg *d, int use_df, int prediction_resistance, uint64_t reseed_interval,
                             const uint8_t *entropy, size_t entropy_len, const uint8_t *nonce, size_t nonce_len,
                             const uint8_t *personalization, size_t personalization_len) {
    if (d == NULL || entropy == NULL || bad(nonce, nonce_len) || bad(personalization, personalization_len))
        return CIPHERSPEC_ERR_NULL;
    if (reseed_interval == 0) reseed_interval = MAX_RESEED_INTERVAL;
    if (reseed_interval > MAX_RESEED_INTERVAL) return CIPHERSPEC_ERR_DRBG_LIMIT;
    if (use_df && nonce_len < SEC / 2) return CIPHERSPEC_ERR_DRBG_LIMIT;
    aes256_drbg t;
    memset(&t, 0, sizeof t);
    t.use_df = use_df != 0;
    uint8_t seed[SL];
    int rc = seed_material(&t, entropy, entropy_len, t.use_df ? nonce : NULL, t.use_df ? nonce_len : 0,
                           personalization, personalization_len, seed);
    if (rc != CIPHERSPEC_OK) return rc;
    aes256_cs_set_key_encrypt(&t.ks, t.key, KL);
    update(&t, seed);
    wipe(seed, sizeof seed);
    t.reseed_counter = 1;
    t.reseed_interval = reseed_interval;
    t.prediction_resistance = prediction_resistance != 0;
    t.instantiated = 1;
    *d = t;
    wipe(&t, sizeof t);
    return CIPHERSPEC_OK;
}

int aes256_drbg_reseed(aes256_drbg *d, const uint8_t *entropy, size_t entropy_len,
                        const uint8_t *additional, size_t additional_len) {
    if (d == NULL || entropy == NULL || bad(additional, additional_len)) return CIPHERSPEC_ERR_NULL;
    if (!d->instantiated) return CIPHERSPEC_ERR_DRBG_STATE;
    uint8_t seed[SL];
    int rc = seed_material(d, entropy, entropy_len, NULL, 0, additional, additional_len, seed);
    if (rc != CIPHERSPEC_OK) return rc;
    update(d, seed);
    wipe(seed, sizeof seed);
    d->reseed_counter = 1;
    return CIPHERSPEC_OK;
}

int aes256_drbg_generate(aes256_drbg *d, uint8_t *out, size_t out_len, const uint8_t *additional,
                          size_t additional_len, const uint8_t *entropy, size_t entropy_len) {
    if (d == NULL || out == NULL || bad(additional, additional_len) || bad(entropy, entropy_len))
        return CIPHERSPEC_ERR_NULL;
    if (!d->instantiated) return CIPHERSPEC_ERR_DRBG_STATE;
    if (out_len > MAX_REQUEST_BYTES) return CIPHERSPEC_ERR_DRBG_LIMIT;
    if (!d->use_df && additional_len > SL) return CIPHERSPEC_ERR_DRBG_LIMIT;
    if (d->use_df && additional_len > MAX_INPUT_BYTES) return CIPHERSPEC_ERR_DRBG_LIMIT;
    if (d->prediction_resistance || d->reseed_counter > d->reseed_interval) {
        if (entropy == NULL) return CIPHERSPEC_ERR_RESEED_REQUIRED;
        int rc = aes256_drbg_reseed(d, entropy, entropy_len, additional, additional_len);
        if (rc != CIPHERSPEC_OK) return rc;
        additional_len = 0;
    }
    uint8_t add[SL];
    memset(add, 0, SL);
    if (additional_len) {
        if (d->use_df) {
            piece ps[1];
            ps[0].p = additional; ps[0].len = additional_len;
            block_cipher_df(ps, 1, add);
        } else {
            memcpy(add, additional, additional_len);
        }
        update(d, add);
    }
    if (out_len) {  /* output = E(K, V+1) || E(K, V+2) || ...: the library's CTR over zeros, in place */
        uint8_t ctr[BL];
        memcpy(ctr, d->v, BL);
        add_be(ctr, 1);
        memset(out, 0, out_len);
        aes256_ctr(&d->ks, ctr, out, out, out_len);
        add_be(d->v, (out_len + BL - 1) / BL);
    }
    update(d, add);
    wipe(add, sizeof add);
    d->reseed_counter++;
    return CIPHERSPEC_OK;
}

int aes256_drbg_plan(aes256_drbg *d, size_t n_requests, size_t request_len, uint8_t *keys, uint8_t *vs) {
    if (d == NULL || ((keys == NULL || vs == NULL) && n_requests != 0)) return CIPHERSPEC_ERR_NULL;
    if (!d->instantiated) return CIPHERSPEC_ERR_DRBG_STATE;
    if (request_len > MAX_REQUEST_BYTES) return CIPHERSPEC_ERR_DRBG_LIMIT;
    uint8_t zero[SL];
    memset(zero, 0, SL);
    size_t done = 0;
    for (; done < n_requests; done++) {
        if (d->prediction_resistance || d->reseed_counter > d->reseed_interval) break;  /* caller reseeds */
        memcpy(keys + done * KL, d->key, KL);
        memcpy(vs + done * BL, d->v, BL);
        add_be(d->v, (request_len + BL - 1) / BL);
        update(d, zero);
        d->reseed_counter++;
    }
    return (int)(done > 0x7FFFFFFF ? 0x7FFFFFFF : done);
}

void aes256_drbg_uninstantiate(aes256_drbg *d) {
    if (d) wipe(d, sizeof *d);
}

size_t aes256_drbg_size(void) { return sizeof(aes256_drbg); }
