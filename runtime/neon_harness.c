/* The NEON test harness: one static aarch64 binary per (cipher, schedule), run under qemu-aarch64.
 *
 * It reads a batch of requests from stdin and writes each result to stdout, so one QEMU start serves a
 * whole test (hundreds of cases).  Request: four little-endian uint32 — op, data bytes, round-key words,
 * 0 — then the flat round-key words (KEY_WORD_BYTES each, default 4 — 8 for ciphers with 64-bit words —
 * little-endian, the key schedule's output in declaration order), the
 * IV (block bytes; CTR and CBC only) and the data.  op: 0 ECB encrypt, 1 ECB decrypt, 2 CTR, 3 CBC
 * encrypt, 4 CBC decrypt, 255 end.  Reply: the output bytes.  op 253 runs the library's own key schedule
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
        uint32_t op = u32(), n = u32(), nw = u32();
        (void)u32();
        if (op == 255) break;
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
