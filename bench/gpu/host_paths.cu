// The host paths of two builds of one CUDA library, side by side in one process (bench/gpu/host_paths.sh): the
// calls whose time is the host code's own (set_key) or the host code plus a small GPU call (a 64-byte CTR call,
// GCM's set_key and a 256-byte message, a multi-key CTR call and a GCM batch of 4,096 64-byte messages).  The two
// libraries are loaded with dlopen (RTLD_LOCAL: each binds its own symbols) and called alternately, round by
// round; each row is the median over rounds of a call's mean time (the last row: the batch call until it returns,
// its host part and the waits inside it), and every output (round keys, keystreams, ciphertexts, tags) of one
// library must equal the other's byte for byte, or the run fails.
//
//   nvcc -O2 -std=c++17 -DP=cs_aes128_..._t256 -include aes128_....h -o hp host_paths.cu -ldl
//   ./hp A/libaes128_....so B/libaes128_....so [rounds]
//   -> {"op": "set_key", "a_ns": 7100.2, "b_ns": 7150.9, "b_over_a": 1.007, "same": true} ...
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define T(x) CAT(P, x)
#define STR2(x) #x
#define STR(x) STR2(x)

typedef T(_rk) rk_t;
typedef T(_gcm_key) gk_t;
typedef T(_gcm_msg) gm_t;

struct Lib {
    int (*set_key)(rk_t *, const uint8_t *, size_t);
    int (*ctr_dev)(const rk_t *, const uint8_t *, const uint8_t *, uint8_t *, uint64_t, cudaStream_t);
    int (*ctr_multi_dev)(const uint8_t *, const uint8_t *, const uint64_t *, uint64_t, uint8_t *, cudaStream_t);
    int (*gcm_set_key)(gk_t *, const uint8_t *, size_t);
    int (*gcm_encrypt_dev)(const gk_t *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,
                           uint64_t, uint8_t *, size_t, cudaStream_t);
    int (*gcm_batch_dev)(const gk_t *, uint32_t, const gm_t *, uint64_t, const uint8_t *, int, const uint8_t *,
                         uint8_t *, uint8_t *, int *, cudaStream_t);
};

static void *sym(void *h, const char *name)
{
    void *f = dlsym(h, name);
    if (!f) {
        fprintf(stderr, "missing %s\n", name);
        exit(2);
    }
    return f;
}

static Lib load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        exit(2);
    }
    Lib l;
    l.set_key = (decltype(l.set_key))sym(h, STR(P) "_set_key");
    l.ctr_dev = (decltype(l.ctr_dev))sym(h, STR(P) "_ctr_dev");
    l.ctr_multi_dev = (decltype(l.ctr_multi_dev))sym(h, STR(P) "_ctr_multi_dev");
    l.gcm_set_key = (decltype(l.gcm_set_key))sym(h, STR(P) "_gcm_set_key");
    l.gcm_encrypt_dev = (decltype(l.gcm_encrypt_dev))sym(h, STR(P) "_gcm_encrypt_dev");
    l.gcm_batch_dev = (decltype(l.gcm_batch_dev))sym(h, STR(P) "_gcm_batch_dev");
    return l;
}

static double now_ns()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void ok(int rc, const char *what)
{
    if (rc) {
        fprintf(stderr, "%s: rc %d\n", what, rc);
        exit(1);
    }
}

static uint8_t seed_byte(uint64_t i) { return (uint8_t)((i * 0x9E3779B97F4A7C15ull) >> 56); }

struct Bufs {
    uint8_t *d_in, *d_out, *d_tags;
    gk_t *d_keys;
};

// n device bytes at d appended to out (a call's outputs, for the comparison)
static void fetch(std::vector<uint8_t> &out, const uint8_t *d, size_t n)
{
    const size_t at = out.size();
    out.resize(at + n);
    ok(cudaMemcpy(out.data() + at, d, n, cudaMemcpyDeviceToHost), "copy");
}

struct Times {
    double total, call;  // mean ns a call: waited for; until it returned (the GCM batch's own row; else = total)
};

// one op, n calls on library l; out: its outputs (for the comparison)
static Times run_op(const Lib &l, int op, int n, size_t key_len, const Bufs &b, std::vector<uint8_t> &out)
{
    std::vector<uint8_t> key(32), iv(16, 0);
    for (int i = 0; i < 32; ++i) key[i] = seed_byte(i + 1);
    out.clear();
    double t0 = 0, t1 = 0, call = -1;
    switch (op) {
    case 0: {  // set_key: n different keys
        static rk_t rk;
        uint64_t fold = 0;
        t0 = now_ns();
        for (int i = 0; i < n; ++i) {
            key[i % key_len] ^= (uint8_t)(i + 1);
            ok(l.set_key(&rk, key.data(), key_len), "set_key");
            fold = fold * 31 + rk.w[i % (sizeof rk.w / 4)] + rk.w[sizeof rk.w / 4 - 1];
        }
        t1 = now_ns();
        out.assign((uint8_t *)&fold, (uint8_t *)&fold + 8);
        break;
    }
    case 1: {  // a 64-byte CTR call, waited for
        static rk_t rk;
        ok(l.set_key(&rk, key.data(), key_len), "set_key");
        t0 = now_ns();
        for (int i = 0; i < n; ++i) {
            iv[15] = (uint8_t)i;
            ok(l.ctr_dev(&rk, iv.data(), NULL, b.d_out + 64 * (i % 64), 64, 0), "ctr_dev");
            ok(cudaStreamSynchronize(0), "sync");
        }
        t1 = now_ns();
        fetch(out, b.d_out, 64 * 64);
        break;
    }
    case 2: {  // GCM set_key (E(K, 0) on the GPU, the powers of H on the host)
        static gk_t k;
        uint64_t fold = 0;
        t0 = now_ns();
        for (int i = 0; i < n; ++i) {
            key[i % key_len] ^= (uint8_t)(i + 1);
            ok(l.gcm_set_key(&k, key.data(), key_len), "gcm_set_key");
            fold = fold * 31 + k.h[63][3] + k.h[i % 64][i % 4];
        }
        t1 = now_ns();
        out.assign((uint8_t *)&fold, (uint8_t *)&fold + 8);
        break;
    }
    case 3: {  // a 256-byte GCM message with 16 bytes of AAD, waited for
        static gk_t k;
        ok(l.gcm_set_key(&k, key.data(), key_len), "gcm_set_key");
        uint8_t aad[16];
        for (int i = 0; i < 16; ++i) aad[i] = seed_byte(100 + i);
        t0 = now_ns();
        for (int i = 0; i < n; ++i) {
            iv[11] = (uint8_t)i;
            ok(l.gcm_encrypt_dev(&k, iv.data(), 12, aad, 16, b.d_in, b.d_out + 256 * (i % 64), 256,
                                 b.d_tags + 16 * (i % 64), 16, 0),
               "gcm_encrypt_dev");
            ok(cudaStreamSynchronize(0), "sync");
        }
        t1 = now_ns();
        fetch(out, b.d_out, 256 * 64);
        fetch(out, b.d_tags, 16 * 64);
        break;
    }
    case 4: {  // a multi-key CTR call: 4,096 requests of 64 bytes, each its own key and counter
        const uint64_t nreq = 4096;
        std::vector<uint8_t> keys(nreq * key_len), vs(nreq * 16);
        std::vector<uint64_t> lens(nreq, 64);
        for (size_t i = 0; i < keys.size(); ++i) keys[i] = seed_byte(7 * i + 3);
        for (size_t i = 0; i < vs.size(); ++i) vs[i] = seed_byte(5 * i + 11);
        t0 = now_ns();
        for (int i = 0; i < n; ++i) {
            vs[0] = (uint8_t)i;
            ok(l.ctr_multi_dev(keys.data(), vs.data(), lens.data(), nreq, b.d_out, 0), "ctr_multi_dev");
            ok(cudaStreamSynchronize(0), "sync");
        }
        t1 = now_ns();
        fetch(out, b.d_out, nreq * 64);
        break;
    }
    case 5: {  // a GCM batch: 4,096 messages of 64 bytes under 16 keys, 16 bytes of AAD each, waited for; and the
               // call alone (until it returns: the host's part, the waits inside it included)
        const uint64_t nmsg = 4096;
        std::vector<gk_t> keys(16);
        for (int j = 0; j < 16; ++j) {
            key[0] = (uint8_t)j;
            ok(l.gcm_set_key(&keys[j], key.data(), key_len), "gcm_set_key");
        }
        ok(cudaMemcpy(b.d_keys, keys.data(), sizeof(gk_t) * 16, cudaMemcpyHostToDevice), "copy");
        std::vector<gm_t> msgs(nmsg);
        for (uint64_t m = 0; m < nmsg; ++m) {
            memset(&msgs[m], 0, sizeof msgs[m]);
            msgs[m].off = 64 * m;
            msgs[m].len = 64;
            msgs[m].aad_off = 16 * (m % 64);
            msgs[m].aad_len = 16;
            msgs[m].key = (uint32_t)(m % 16);
            msgs[m].tag_len = 16;
            for (int j = 0; j < 12; ++j) msgs[m].iv[j] = seed_byte(m * 12 + j);
        }
        std::vector<uint8_t> aad(16 * 64);
        for (size_t i = 0; i < aad.size(); ++i) aad[i] = seed_byte(900 + i);
        call = 0;
        t0 = now_ns();
        for (int i = 0; i < n; ++i) {
            const double c0 = now_ns();
            ok(l.gcm_batch_dev(b.d_keys, 16, msgs.data(), nmsg, aad.data(), 0, b.d_in, b.d_out, b.d_tags, NULL, 0),
               "gcm_batch_dev");
            call += now_ns() - c0;
            ok(cudaStreamSynchronize(0), "sync");
        }
        t1 = now_ns();
        fetch(out, b.d_out, nmsg * 64);
        fetch(out, b.d_tags, nmsg * 16);
        break;
    }
    }
    return {(t1 - t0) / n, call < 0 ? (t1 - t0) / n : call / n};
}

// one row: the medians and minimums over rounds of a's and b's times
static void row(const char *name, int calls, std::vector<double> ta, std::vector<double> tb, int same)
{
    std::sort(ta.begin(), ta.end());
    std::sort(tb.begin(), tb.end());
    const double ma = ta[ta.size() / 2], mb = tb[tb.size() / 2];
    printf("{\"op\": \"%s\", \"calls\": %d, \"rounds\": %zu, \"a_ns\": %.1f, \"b_ns\": %.1f, \"b_over_a\": %.4f, "
           "\"a_min_ns\": %.1f, \"b_min_ns\": %.1f, \"same\": %s}\n",
           name, calls, ta.size(), ma, mb, mb / ma, ta[0], tb[0], same ? "true" : "false");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s A.so B.so [rounds] [key_len]\n", argv[0]);
        return 2;
    }
    const Lib a = load(argv[1]), b = load(argv[2]);
    const int rounds = argc > 3 ? atoi(argv[3]) : 15;
    const size_t key_len = argc > 4 ? (size_t)atoi(argv[4]) : 16;
    Bufs bu;
    ok(cudaMalloc((void **)&bu.d_in, 1 << 20), "malloc");
    ok(cudaMalloc((void **)&bu.d_out, 1 << 20), "malloc");
    ok(cudaMalloc((void **)&bu.d_tags, 1 << 17), "malloc");
    ok(cudaMalloc((void **)&bu.d_keys, sizeof(gk_t) * 16), "malloc");
    std::vector<uint8_t> in(1 << 20);
    for (size_t i = 0; i < in.size(); ++i) in[i] = seed_byte(i + 77);
    ok(cudaMemcpy(bu.d_in, in.data(), in.size(), cudaMemcpyHostToDevice), "copy");
    const char *names[] = {"set_key", "ctr_dev_64B", "gcm_set_key", "gcm_encrypt_dev_256B", "ctr_multi_dev_4096x64B",
                           "gcm_batch_dev_4096x64B"};
    const int calls[] = {20000, 2000, 200, 2000, 30, 30};
    int bad = 0;
    for (int op = 0; op < 6; ++op) {
        std::vector<double> ta, tb, ca, cb;
        std::vector<uint8_t> oa, ob;
        int same = 1;
        run_op(a, op, calls[op] / 10 + 1, key_len, bu, oa);  // warm both (first-call setup, caches)
        run_op(b, op, calls[op] / 10 + 1, key_len, bu, ob);
        for (int r = 0; r < rounds; ++r) {
            const int first_b = r & 1;  // alternate which library goes first
            Times x, y;
            if (first_b) y = run_op(b, op, calls[op], key_len, bu, ob);
            x = run_op(a, op, calls[op], key_len, bu, oa);
            if (!first_b) y = run_op(b, op, calls[op], key_len, bu, ob);
            ta.push_back(x.total), tb.push_back(y.total), ca.push_back(x.call), cb.push_back(y.call);
            same &= oa == ob;
        }
        row(names[op], calls[op], ta, tb, same);
        if (op == 5) row("gcm_batch_dev_4096x64B_call", calls[op], ca, cb, same);
        bad |= !same;
    }
    return bad;
}
