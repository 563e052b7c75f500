/* The NEON test harness: one static aarch64 binary per (cipher, schedule), run under qemu-aarch64.
 *
 * It reads a batch of requests from stdin and writes each result to stdout, so one QEMU start serves a
 * whole test (hundreds of cases).  Request: four little-endian uint32 — op, data bytes, round-key words,
 * 0 — then the flat round-key words (KEY_WORD_BYTES each, default 4 — 8 for ciphers with 64-bit words —
 * little-endian, the key schedule's output in declaration order), the
 * IV (block bytes; CTR and CBC only) and the data.  op: 0 ECB encrypt, 1 ECB decrypt, 2 CTR, 3 CBC
 * encrypt, 4 CBC decrypt, 16-27 the library's modes (-DHAS_MODES: modes_op below), 255 end.  Reply: the output bytes.  op 253 runs the library's own key schedule
 * (-DKEY_SCHEDULE=<cipher>_neon_key_schedule): data bytes = the key (any length), no round-key words; reply: its status as
 * a little-endian int32, then KEY_WORDS round-key words (zero when it refused the key).
 *
 * Compiled from a main.c that includes <schedule name>.h then this file, with -DPREFIX=<schedule name>; kernels only take whole groups
 * of GROUP blocks, so the harness pads the tail — exactly what a library caller does.  Key tables are
 * built with the header's <prefix>_prepare_keys() (tested here too).  Built against a dispatching library
 * (-DVARIANT=<prefix>_variant), op 254 answers the name of the variant in use, NUL-padded to the data size. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define K_ENC CAT(PREFIX, _ecb_encrypt)
#define K_DEC CAT(PREFIX, _ecb_decrypt)
#define K_CTR CAT(PREFIX, _ctr)
#define MAP_ENC CAT(PREFIX, _ecb_encrypt_keymap)
#define MAP_DEC CAT(PREFIX, _ecb_decrypt_keymap)
#define MAP_CTR CAT(PREFIX, _ctr_keymap)
#define PREPARE CAT(PREFIX, _prepare_keys)
#define N(a) (sizeof(a) / sizeof((a)[0]))
#ifndef KEY_WORD_BYTES
#define KEY_WORD_BYTES 4
#endif
#if KEY_WORD_BYTES == 8
typedef uint64_t rkword;
#else
typedef uint32_t rkword;
#endif

static uint8_t *buf;
static size_t len, pos;

static void die(const char *m) { fprintf(stderr, "harness: %s\n", m); exit(2); }

static const uint8_t *take(size_t n) {
    if (pos + n > len) die("truncated request");
    pos += n;
    return buf + pos - n;
}

static uint32_t u32(void) {
    const uint8_t *p = take(4);
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef void (*ecb_fn)(const uint8_t *, const uint8_t *, uint8_t *, size_t);

static void ecb(ecb_fn f, const uint8_t *kt, const uint8_t *in, uint8_t *out, size_t n) {
    const size_t G = GROUP * BLOCK;
    size_t full = n / G, rest = n % G;
    f(kt, in, out, full);
    if (rest) {
        static uint8_t tin[GROUP * BLOCK], tout[GROUP * BLOCK];
        memset(tin, 0, sizeof tin);
        memcpy(tin, in + full * G, rest);
        f(kt, tin, tout, 1);
        memcpy(out + full * G, tout, rest);
    }
}

static void add_be(uint8_t *iv, uint64_t k) {  /* iv += k, big-endian over the whole block, wrapping */
    for (int i = BLOCK - 1; i >= 0 && k; i--) {
        uint64_t s = (uint64_t)iv[i] + (k & 0xff);
        iv[i] = (uint8_t)s;
        k = (k >> 8) + (s >> 8);
    }
}

#ifdef HAS_CTR
static void ctr(const uint8_t *kt, const uint8_t *iv0, const uint8_t *in, uint8_t *out, size_t n) {
    const size_t G = GROUP * BLOCK;
    size_t full = n / G, rest = n % G;
    uint8_t iv[BLOCK];
    memcpy(iv, iv0, BLOCK);
    K_CTR(kt, in, out, full, iv);
    if (rest) {
        static uint8_t tin[GROUP * BLOCK], tout[GROUP * BLOCK];
        add_be(iv, (uint64_t)full * GROUP);
        memset(tin, 0, sizeof tin);
        memcpy(tin, in + full * G, rest);
        K_CTR(kt, tin, tout, 1, iv);
        memcpy(out + full * G, tout, rest);
    }
}
#endif

#ifdef HAS_MODES
/* The library's modes (<prefix>_modes.h), ops 16..: header op, data bytes, key bytes, tag bytes; then four
 * uint32 (IV/nonce/tweak bytes, AAD bytes, isa bytes, chunk bytes for the incremental ops), the key, the
 * IV, the AAD, the isa string (0 bytes: NULL, the CPU's own choice), the data, and for decryption the tag.
 * Reply: the int32 status, the data-sized output (0xA5-filled before the call: a failed decryption must
 * leave zeros; none for CMAC), then for tagging ops the tag.  op 26 (info) answers "<kernel variant> <GHASH variant>". */
#define MK(x) CAT(PREFIX, x)
enum { GCM_ENC = 16, GCM_DEC, GMAC, CCM_ENC, CCM_DEC, XTS_ENC, XTS_DEC, CMAC, GCM_STREAM_ENC, GCM_STREAM_DEC, INFO, CMAC_STREAM };

static void modes_op(uint32_t op, uint32_t n, uint32_t key_len, uint32_t tag_len) {
    static MK(_key) ks;
    uint32_t iv_len = u32(), aad_len = u32(), isa_len = u32(), chunk = u32();
    const uint8_t *key = take(key_len), *iv = take(iv_len), *aad = take(aad_len);
    char isa_buf[64];
    const char *isa = NULL;
    if (isa_len) {
        if (isa_len >= sizeof isa_buf) die("isa too long");
        memcpy(isa_buf, take(isa_len), isa_len);
        isa_buf[isa_len] = 0;
        isa = isa_buf;
    }
    const uint8_t *in = take(n);
    const int decrypting = op == GCM_DEC || op == CCM_DEC || op == GCM_STREAM_DEC;
    const uint8_t *want = decrypting ? take(tag_len) : NULL;
    uint8_t *out = malloc(n + 1), tag[32];
    if (tag_len > sizeof tag) die("tag too long");
    memset(out, 0xA5, n + 1);
    memset(tag, 0xA5, sizeof tag);
    int32_t rc = 0;
    if (op != XTS_ENC && op != XTS_DEC) rc = MK(_set_key_isa)(&ks, key, key_len, isa);
    if (chunk == 0) chunk = 1;
    if (rc == 0) switch (op) {
#if BLOCK == 16
    case GCM_ENC: rc = MK(_gcm_encrypt)(&ks, iv, iv_len, aad, aad_len, in, out, n, tag, tag_len); break;
    case GCM_DEC: rc = MK(_gcm_decrypt)(&ks, iv, iv_len, aad, aad_len, in, out, n, want, tag_len); break;
    case GMAC: rc = MK(_gmac)(&ks, iv, iv_len, aad, aad_len, tag, tag_len); break;
    case CCM_ENC: rc = MK(_ccm_encrypt)(&ks, iv, iv_len, aad, aad_len, in, out, n, tag, tag_len); break;
    case CCM_DEC: rc = MK(_ccm_decrypt)(&ks, iv, iv_len, aad, aad_len, in, out, n, want, tag_len); break;
    case XTS_ENC: case XTS_DEC: {
        static MK(_xts_key) xk;
        rc = MK(_xts_set_key_isa)(&xk, key, key_len, isa);
        if (rc == 0) rc = (op == XTS_ENC ? MK(_xts_encrypt) : MK(_xts_decrypt))(&xk, iv, in, out, n);
        break;
    }
    case GCM_STREAM_ENC: case GCM_STREAM_DEC: {  /* AAD in two calls, the data in chunk-byte updates */
        MK(_gcm) g;
        rc = MK(_gcm_init)(&g, &ks, iv, iv_len);
        if (rc == 0) rc = MK(_gcm_aad)(&g, aad, aad_len / 2);
        if (rc == 0) rc = MK(_gcm_aad)(&g, aad + aad_len / 2, aad_len - aad_len / 2);
        for (uint32_t i = 0; rc == 0 && i < n; i += chunk) {
            uint32_t m = n - i < chunk ? n - i : chunk;
            rc = (op == GCM_STREAM_ENC ? MK(_gcm_encrypt_update) : MK(_gcm_decrypt_update))(&g, in + i, out + i, m);
        }
        if (rc == 0) rc = op == GCM_STREAM_ENC ? MK(_gcm_finish)(&g, tag, tag_len) : MK(_gcm_verify)(&g, want, tag_len);
        break;
    }
    case INFO: {
        const char *kv = MK(_key_variant)(&ks), *gv = MK(_key_ghash)(&ks);
        memset(out, 0, n);
        snprintf((char *)out, n, "%s %s", kv ? kv : "-", gv ? gv : "-");
        break;
    }
#else
    case INFO: {
        const char *kv = MK(_key_variant)(&ks);
        memset(out, 0, n);
        snprintf((char *)out, n, "%s -", kv ? kv : "-");
        break;
    }
#endif
    case CMAC: rc = MK(_cmac)(&ks, in, n, tag, tag_len); break;
    case CMAC_STREAM: {
        MK(_cmac_ctx) m;
        rc = MK(_cmac_init)(&m, &ks);
        for (uint32_t i = 0; rc == 0 && i < n; i += chunk) rc = MK(_cmac_update)(&m, in + i, n - i < chunk ? n - i : chunk);
        if (rc == 0) rc = MK(_cmac_final)(&m, tag, tag_len);
        break;
    }
    default: die("unknown modes op");
    }
    fwrite(&rc, 4, 1, stdout);  /* aarch64: little-endian */
    fwrite(out, 1, op == CMAC || op == CMAC_STREAM ? 0 : n, stdout);  /* a MAC answers its tag only */
    if (!decrypting && op != XTS_ENC && op != XTS_DEC && op != INFO) fwrite(tag, 1, tag_len, stdout);
    free(out);
}
#endif

int main(void) {
    size_t cap = 1 << 20;
    buf = malloc(cap);
    for (;;) {
        if (len == cap) buf = realloc(buf, cap *= 2);
        size_t r = fread(buf + len, 1, cap - len, stdin);
        if (!r) break;
        len += r;
    }
    static uint8_t kt_enc[16 * N(MAP_ENC) + 16], kt_dec[16 * N(MAP_DEC) + 16];
#ifdef HAS_CTR
    static uint8_t kt_ctr[16 * N(MAP_CTR) + 16];
#endif
    for (;;) {
        uint32_t op = u32(), n = u32(), nw = u32(), aux = u32();
        (void)aux;
        if (op == 255) break;
#ifdef HAS_MODES
        if (op >= 16 && op < 32) {
            modes_op(op, n, nw, aux);
            continue;
        }
#endif
        if (op == 253) {
            rkword rk[KEY_WORDS + 1];
            memset(rk, 0, sizeof rk);
            int32_t status = KEY_SCHEDULE(take(n), n, rk);
            fwrite(&status, 4, 1, stdout);  /* aarch64: little-endian */
            fwrite(rk, sizeof(rkword), KEY_WORDS, stdout);
            continue;
        }
        if (nw != KEY_WORDS) die("wrong number of round-key words");
        rkword *rk = malloc(sizeof(rkword) * (nw + 1));
        memcpy(rk, take(sizeof(rkword) * (size_t)nw), sizeof(rkword) * (size_t)nw);  /* aarch64: little-endian */
        PREPARE(MAP_ENC, N(MAP_ENC), rk, kt_enc);
        PREPARE(MAP_DEC, N(MAP_DEC), rk, kt_dec);
        const uint8_t *iv = (op >= 2) ? take(BLOCK) : NULL;
        const uint8_t *in = take(n);
        uint8_t *out = malloc(n + 1);
        if (op == 0) ecb(K_ENC, kt_enc, in, out, n);
        else if (op == 1) ecb(K_DEC, kt_dec, in, out, n);
#ifdef HAS_CTR
        else if (op == 2) { PREPARE(MAP_CTR, N(MAP_CTR), rk, kt_ctr); ctr(kt_ctr, iv, in, out, n); }
#endif
        else if (op == 3) {  /* CBC encrypt is sequential: one block per kernel call */
            uint8_t prev[BLOCK], blk[BLOCK];
            memcpy(prev, iv, BLOCK);
            for (size_t i = 0; i < n; i += BLOCK) {
                for (int j = 0; j < BLOCK; j++) blk[j] = in[i + j] ^ prev[j];
                ecb(K_ENC, kt_enc, blk, out + i, BLOCK);
                memcpy(prev, out + i, BLOCK);
            }
        } else if (op == 4) {
            ecb(K_DEC, kt_dec, in, out, n);
            for (size_t i = n; i >= BLOCK; i -= BLOCK)
                for (int j = 0; j < BLOCK; j++) out[i - BLOCK + j] ^= (i == BLOCK ? iv[j] : in[i - 2 * BLOCK + j]);
        }
#ifdef VARIANT
        else if (op == 254) { memset(out, 0, n); strncpy((char *)out, VARIANT(), n); }
#endif
        else die("unknown op");
        fwrite(out, 1, n, stdout);
        free(out);
        free(rk);
    }
    return 0;
}
