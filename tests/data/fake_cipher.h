/* A toy block cipher standing in for the GPU kernels in host-only tests of the multi-GPU host code:
 * E(K, x)[b] = x[B-1-b] ^ K[b % KB] ^ (7b + 1) (K: the key bytes, the round-key words' little-endian bytes).
 * The fake single-device entries below (T_ctr_dev_flavour, T_ecb_dev_flavour, T_ctr_multi_dev_flavour and the
 * context's T_ctr_multi_dev_staged over its kept T_mk_scratch) have
 * the real entries' contracts, run E on the stream's queue, and check that their buffers and stream belong
 * to the current device (cuda_stub.h).  The flavour changes the output (CTR ^ 0x33, ECB ^ 0x55, multi-key
 * ^ 0x71), so a flavour that goes astray shows.  tests/unit/test_cuda_multigpu.py mirrors E in Python.
 * Needs: BB, KBB, T_rk, T_ctr_add, CS_* (mg_prelude.h) and cuda_stub.h. */
#include <atomic>
#include <chrono>
static uint8_t fake_key_byte(const T_rk *rk, int j)
{
    return (uint8_t)(rk->w[j / 4] >> (8 * (j % 4)));
}

static void fake_rk(const uint8_t *key, T_rk *rk)
{
    memset(rk, 0, sizeof *rk);
    for (int j = 0; j < KBB; ++j) rk->w[j / 4] |= (uint32_t)key[j] << (8 * (j % 4));
}

static void fake_encrypt(const T_rk *rk, const uint8_t *x, uint8_t *y, uint8_t tweak)
{
    for (int b = 0; b < BB; ++b) y[b] = x[BB - 1 - b] ^ fake_key_byte(rk, b % KBB) ^ (uint8_t)(7 * b + 1) ^ tweak;
}

static void fake_decrypt(const T_rk *rk, const uint8_t *y, uint8_t *x, uint8_t tweak)
{
    for (int b = 0; b < BB; ++b) x[BB - 1 - b] = y[b] ^ fake_key_byte(rk, b % KBB) ^ (uint8_t)(7 * b + 1) ^ tweak;
}

static void ref_ctr(const T_rk *rk, const uint8_t *iv, const uint8_t *in, uint8_t *out, uint64_t n, int flavour)
{
    uint8_t ctr[BB], ks[BB];
    memcpy(ctr, iv, BB);
    for (uint64_t i = 0; i < n; i += BB) {
        fake_encrypt(rk, ctr, ks, flavour ? 0x33 : 0);
        for (uint64_t b = 0; b < BB && i + b < n; ++b) out[i + b] = (in ? in[i + b] : 0) ^ ks[b];
        T_ctr_add(ctr, 1);
    }
}

static void ref_ecb(const T_rk *rk, int decrypt, const uint8_t *in, uint8_t *out, uint64_t n, int flavour)
{
    for (uint64_t i = 0; i < n; i += BB) {
        uint8_t t[BB];
        if (decrypt) fake_decrypt(rk, in + i, t, flavour ? 0x55 : 0);
        else fake_encrypt(rk, in + i, t, flavour ? 0x55 : 0);
        memcpy(out + i, t, BB);
    }
}

static void ref_multi(const uint8_t *keys, const uint8_t *vs, const uint64_t *lens, uint64_t nreq, uint8_t *out,
                      int flavour)
{
    uint64_t o = 0;
    for (uint64_t r = 0; r < nreq; ++r) {
        uint8_t v1[BB];
        T_rk rk;
        fake_rk(keys + r * KBB, &rk);
        memcpy(v1, vs + r * BB, BB);
        T_ctr_add(v1, 1);
        std::vector<uint8_t> tmp(lens[r] + BB);
        ref_ctr(&rk, v1, NULL, tmp.data(), lens[r], 0);
        for (uint64_t i = 0; i < lens[r]; ++i) out[o + i] = tmp[i] ^ (uint8_t)(flavour ? 0x71 : 0);
        o += lens[r];
    }
}

extern "C" int T_ctr_dev_flavour(const T_rk *rk, const uint8_t *iv, const uint8_t *d_in, uint8_t *d_out, uint64_t n,
                                 cudaStream_t st, int flavour)
{
    if (!rk || !iv || (!d_out && n)) return CS_ENULL;
    if (!n) return CS_OK;
    stub_check_device(d_out, n);
    if (d_in) stub_check_device(d_in, n);
    const T_rk k = *rk;
    std::vector<uint8_t> c(iv, iv + BB);
    stub_enqueue(st, [=] { ref_ctr(&k, c.data(), d_in, d_out, n, flavour); });
    return CS_OK;
}

extern "C" int T_ecb_dev_flavour(const T_rk *rk, int decrypt, const uint8_t *d_in, uint8_t *d_out, uint64_t n,
                                 cudaStream_t st, int flavour)
{
    if (n % BB) return CS_ELEN;
    if (!n) return CS_OK;
    stub_check_device(d_in, n);
    stub_check_device(d_out, n);
    const T_rk k = *rk;
    stub_enqueue(st, [=] { ref_ecb(&k, decrypt, d_in, d_out, n, flavour); });
    return CS_OK;
}

extern "C" int T_ctr_multi_dev_flavour(const uint8_t *keys, const uint8_t *vs, const uint64_t *lens, uint64_t nreq,
                                       uint8_t *d_out, cudaStream_t st, int flavour)
{
    if (!nreq) return CS_OK;
    uint64_t total = 0;
    for (uint64_t r = 0; r < nreq; ++r) {
        if (r + 1 < nreq && lens[r] % BB) return CS_ELEN;
        total += lens[r];
    }
    if (total) stub_check_device(d_out, total);
    cudaStreamSynchronize(st);  /* as the real entry: it waits for its stream before freeing its host plan */
    std::vector<uint8_t> k(keys, keys + nreq * KBB), v(vs, vs + nreq * BB);
    std::vector<uint64_t> l(lens, lens + nreq);
    stub_enqueue(st, [=] { ref_multi(k.data(), v.data(), l.data(), nreq, d_out, flavour); });
    return CS_OK;
}

/* the multi-GPU context's kept scratch (host.cu.j2's P_mk_scratch): the fake keeps only a count of the calls
 * that staged keys, to check that every one is wiped (T_mk_wipe) by the time the context is freed */
typedef struct {
    long staged;  /* calls whose keys are staged and not yet wiped */
    int phases;   /* the next calls are timed (T_mk_set_phases) */
    int timed;    /* a timed call was made: T_mk_phase_ms answers (fake lengths 1, 2, 3, 4 ms) */
    double planned_at;
    int copy_plan;  /* (the real scratch's choice of a copy or a mapped read of the plan: the same output) */
    int fused;      /* (the real scratch's choice of one launch deriving the round keys, or two: the same output) */
    uint32_t max_trips;  /* (the real scratch's most loop trips a CTA: the same output) */
    int no_wave;         /* (the real scratch's CTA-per-request grid instead of whole waves: the same output) */
    int no_prefetch;     /* (the real scratch's CTAs loading each request's V and key when they reach it) */
} T_mk_scratch;

static std::atomic<long> fake_unwiped(0);  /* over every scratch: staged and not yet wiped */

static int T_mk_wipe(T_mk_scratch *s)
{
    fake_unwiped -= s->staged;
    s->staged = 0;
    return CS_OK;
}

static void T_mk_release(T_mk_scratch *s) { T_mk_wipe(s); }

/* as the real ones: the output is complete once the stream has run the call */
static int T_mk_wait_made(T_mk_scratch *, cudaStream_t st) { return cs_cuda(cudaStreamSynchronize(st)); }

static void T_mk_set_phases(T_mk_scratch *s, int on) { s->phases = on; }

static int T_mk_phase_ms(T_mk_scratch *s, float *ms, double *planned_at)
{
    if (!s->timed) return CS_EARG;
    for (int i = 0; i < 4; ++i) ms[i] = (float)(i + 1);
    *planned_at = s->planned_at;
    return CS_OK;
}

/* as the real entry, without waiting for the stream: the plan is staged for the copy the stream runs; kst (the
 * key stream of the two-stream form) must belong to the current device too; the work runs on st (in order) */
static int T_ctr_multi_dev_staged(const uint8_t *keys, const uint8_t *vs, const uint64_t *lens, uint64_t nreq,
                                  uint8_t *d_out, cudaStream_t st, int flavour, T_mk_scratch *s, cudaStream_t kst = NULL)
{
    if (kst) stub_check_stream(kst);
    if (!nreq) return CS_OK;
    if (!keys || !vs || !lens || !d_out) return CS_ENULL;
    uint64_t total = 0;
    for (uint64_t r = 0; r < nreq; ++r) {
        if (r + 1 < nreq && lens[r] % BB) return CS_ELEN;
        total += lens[r];
    }
    if (total) stub_check_device(d_out, total);
    std::vector<uint8_t> k(keys, keys + nreq * KBB), v(vs, vs + nreq * BB);
    std::vector<uint64_t> l(lens, lens + nreq);
    if (s->phases) {
        s->timed = 1;
        s->planned_at = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    stub_enqueue(st, [=] { ref_multi(k.data(), v.data(), l.data(), nreq, d_out, flavour); });
    s->staged += 1;
    fake_unwiped += 1;
    return CS_OK;
}
