/* Host-only test of the generated multi-GPU host code (generator/ptx/templates/multigpu.cu.j2) over the fake
 * CUDA runtime cuda_stub.h: the single-device entries are fake_cipher.h's (a toy block cipher), which check
 * that their buffers and stream belong to the current device.  Every multi-GPU call is compared with one reference call over the whole
 * range, so a wrong split, counter, piece offset, device or stream shows as a wrong byte or an abort.
 *
 *   harness [quick]    run every check (quick: two device sets of four); prints "ok <n> checks" (exit 1 and a
 *                      message on a failure)
 *   harness split      stdin: "b n parts" or "r parts len..." lines -> the split, one line each
 *   harness nodev      with STUB_DEVICES=0: the context refuses (CS_ENODEVICE) */
#include "cuda_stub.h"
#include "mg_prelude.h"

static long checks = 0;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        ++checks;                                                                              \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAILED %s:%d: %s -- ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#include "fake_cipher.h"
#include "mg_impl.inc"

/* ------------------------------------------------------------------ helpers */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static void fill(uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; ++i) p[i] = (uint8_t)rnd();
}

struct Buf {  /* host memory: pageable (malloc) or page-locked (cudaHostAlloc) */
    uint8_t *p;
    int locked;
    Buf(uint64_t n, int lock) : locked(lock)
    {
        if (lock) cudaHostAlloc((void **)&p, n ? n : 1, 0);
        else p = (uint8_t *)malloc(n ? n : 1);
    }
    ~Buf()
    {
        if (locked) cudaFreeHost(p);
        else free(p);
    }
};

static T_mg *context(std::vector<int> devs, int streams, uint64_t chunk)
{
    T_mg *mg = NULL;
    const int rc = T_mg_new(devs.empty() ? NULL : devs.data(), (int)devs.size(), streams, chunk, &mg);
    CHECK(rc == CS_OK && mg, "T_mg_new rc %d", rc);
    return mg;
}

static const int MODES[] = {CS_MEM_AUTO, CS_MEM_PINNED, CS_MEM_REGISTER, CS_MEM_STAGE, CS_MEM_PAGEABLE};

/* ------------------------------------------------------------------ checks */
static void host_ctr_ecb(T_mg *mg, const char *name)
{
    const uint64_t G = TEST_GRAIN;
    const uint64_t sizes[] = {0, 1, BB - 1, BB, BB + 1, G - 1, G, 3 * G + 5, 7 * G, 29 * G + BB * 3 + 1, 61 * G + 9};
    T_rk rk;
    for (int i = 0; i < (int)(sizeof rk.w / sizeof rk.w[0]); ++i) rk.w[i] = (uint32_t)rnd();
    for (uint64_t n : sizes) {
        for (int mode : MODES) {
            for (int ivk = 0; ivk < 3; ++ivk) {
                const int lock = mode == CS_MEM_PINNED || (mode == CS_MEM_AUTO && ivk == 1);
                Buf in(n, lock), out(n, lock);
                std::vector<uint8_t> want(n ? n : 1), iv(BB);
                fill(in.p, n);
                fill(iv.data(), BB);
                if (ivk == 1)  /* the low 32 bits wrap a few blocks in: inside the first part or piece */
                    for (int b = BB - 4; b < BB; ++b) iv[b] = 0xFF;
                if (ivk == 2)  /* the whole block wraps about a third of the way in */
                    for (int b = 0; b < BB; ++b) iv[b] = b == BB - 1 ? (uint8_t)(0x100 - (n / BB / 3) % 0x100) : (b >= BB - 3 ? 0xFF : 0xFF);
                ref_ctr(&rk, iv.data(), in.p, want.data(), n, DEFAULT_FLAVOUR);
                const long reg_before = stub_registered_now;
                int rc = T_mg_ctr_host(mg, &rk, iv.data(), in.p, out.p, n, mode, 1);
                CHECK(rc == CS_OK, "%s ctr n=%llu mode %d rc %d", name, (unsigned long long)n, mode, rc);
                CHECK(!n || !memcmp(out.p, want.data(), n), "%s ctr n=%llu mode %d iv %d", name, (unsigned long long)n, mode, ivk);
                CHECK(stub_registered_now == reg_before, "%s: registrations left behind", name);
                rc = T_mg_ctr_host(mg, &rk, iv.data(), in.p, in.p, n, mode, 1);  /* in place */
                CHECK(rc == CS_OK && (!n || !memcmp(in.p, want.data(), n)), "%s ctr in place n=%llu mode %d", name,
                      (unsigned long long)n, mode);
                rc = T_mg_ctr_host(mg, &rk, iv.data(), NULL, out.p, n, mode, 1);  /* keystream */
                ref_ctr(&rk, iv.data(), NULL, want.data(), n, DEFAULT_FLAVOUR);
                CHECK(rc == CS_OK && (!n || !memcmp(out.p, want.data(), n)), "%s keystream n=%llu mode %d", name,
                      (unsigned long long)n, mode);
            }
            const uint64_t m = n / BB * BB;  /* ECB: whole blocks */
            Buf in(m, mode == CS_MEM_PINNED), out(m, mode == CS_MEM_PINNED), back(m, mode == CS_MEM_PINNED);
            std::vector<uint8_t> want(m ? m : 1);
            fill(in.p, m);
            ref_ecb(&rk, 0, in.p, want.data(), m, DEFAULT_FLAVOUR);
            CHECK(T_mg_ecb_host(mg, &rk, 0, in.p, out.p, m, mode, 1) == CS_OK && (!m || !memcmp(out.p, want.data(), m)),
                  "%s ecb n=%llu mode %d", name, (unsigned long long)m, mode);
            CHECK(T_mg_ecb_host(mg, &rk, 1, out.p, back.p, m, mode, 1) == CS_OK && (!m || !memcmp(back.p, in.p, m)),
                  "%s ecb decrypt n=%llu mode %d", name, (unsigned long long)m, mode);
        }
    }
}

static void host_multi(T_mg *mg, const char *name)
{
    const uint64_t G = TEST_GRAIN;
    for (int t = 0; t < 24; ++t) {
        const uint64_t nreq = 1 + rnd() % (t < 12 ? 5 : 70);
        std::vector<uint64_t> lens(nreq);
        uint64_t total = 0;
        for (uint64_t r = 0; r < nreq; ++r) {
            lens[r] = t % 3 == 0 ? G : (rnd() % (2 * G / BB + 1)) * BB;  /* uniform, or mixed (some empty) */
            if (r + 1 == nreq && t % 2) lens[r] += 1 + rnd() % (BB - 1);  /* a partial last request */
            total += lens[r];
        }
        std::vector<uint8_t> keys(nreq * KBB), vs(nreq * BB), want(total + 1);
        fill(keys.data(), keys.size());
        fill(vs.data(), vs.size());
        if (t % 4 == 1) memset(vs.data(), 0xFF, vs.size());  /* V + 1 wraps the whole block */
        ref_multi(keys.data(), vs.data(), lens.data(), nreq, want.data(), DEFAULT_FLAVOUR);
        for (int mode : MODES) {
            Buf out(total, mode == CS_MEM_PINNED);
            const int rc = T_mg_ctr_multi_host(mg, keys.data(), vs.data(), lens.data(), nreq, out.p, mode, 1);
            CHECK(rc == CS_OK && (!total || !memcmp(out.p, want.data(), total)), "%s multi t=%d mode %d rc %d", name, t,
                  mode, rc);
        }
        /* device-resident: requests [first[d], first[d+1]) on device d; split over every device (split_min 0),
           then all on the first (split_min above the total) */
        int nd = 0;
        CHECK(T_mg_devices(mg, NULL, &nd) == CS_OK && nd > 0, "%s devices", name);
        for (int whole = 0; whole < 2; ++whole) {
        CHECK(T_mg_set_split_min(mg, whole ? total + 1 : 0) == CS_OK, "%s split_min", name);
        std::vector<uint64_t> first((size_t)nd + 1);
        int np = 0;
        CHECK(T_mg_parts_multi(mg, lens.data(), nreq, first.data(), &np) == CS_OK && np == nd, "%s parts_multi", name);
        CHECK(!whole || first[1] == nreq, "%s under split_min: all on the first device", name);
        std::vector<uint8_t *> dout((size_t)nd);
        std::vector<uint64_t> bytes((size_t)nd, 0);
        std::vector<int> devs((size_t)nd);
        T_mg_devices(mg, devs.data(), NULL);
        for (int d = 0; d < nd; ++d) {
            for (uint64_t r = first[d]; r < first[d + 1]; ++r) bytes[d] += lens[r];
            CHECK(T_mg_malloc(devs[d], bytes[d] + 1, (void **)&dout[d]) == CS_OK && dout[d], "%s malloc", name);
        }
        for (int fl = 0; fl < 2; ++fl) {
            ref_multi(keys.data(), vs.data(), lens.data(), nreq, want.data(), fl);
            CHECK(T_mg_ctr_multi_dev(mg, keys.data(), vs.data(), lens.data(), nreq, dout.data(), fl, 1) == CS_OK,
                  "%s multi dev", name);
            uint64_t o = 0;
            for (int d = 0; d < nd; ++d) {
                std::vector<uint8_t> got(bytes[d] + 1);
                T_mg_copy(devs[d], got.data(), dout[d], bytes[d], 0);
                CHECK(!bytes[d] || !memcmp(got.data(), want.data() + o, bytes[d]), "%s multi dev t=%d d=%d fl=%d", name,
                      t, d, fl);
                o += bytes[d];
            }
        }
        for (int d = 0; d < nd; ++d) T_mg_free_device(devs[d], dout[d]);
        }
    }
    /* a request larger than a piece, and a partial request before the last, are refused */
    std::vector<uint64_t> big = {BB, 1024 * 1024 * BB}, bad = {BB + 1, BB};
    std::vector<uint8_t> keys(2 * KBB), vs(2 * BB);
    Buf out(1024 * 1024 * BB + 2 * BB, 0);
    CHECK(T_mg_ctr_multi_host(mg, keys.data(), vs.data(), big.data(), 2, out.p, CS_MEM_AUTO, 1) == CS_ECHUNK, "%s big", name);
    CHECK(T_mg_ctr_multi_host(mg, keys.data(), vs.data(), bad.data(), 2, out.p, CS_MEM_AUTO, 1) == CS_ELEN, "%s bad", name);
}

static void device_resident(T_mg *mg, const char *name)
{
    int nd = 0;
    CHECK(T_mg_devices(mg, NULL, &nd) == CS_OK, "%s devices", name);
    std::vector<int> devs((size_t)nd);
    T_mg_devices(mg, devs.data(), NULL);
    T_rk rk;
    for (auto &w : rk.w) w = (uint32_t)rnd();
    const uint64_t sizes[] = {0, 5, BB, 3 * TEST_GRAIN + 1, 17 * TEST_GRAIN + BB};
    for (uint64_t n : sizes) {
        std::vector<uint64_t> first((size_t)nd + 1);
        int np = 0;
        CHECK(T_mg_parts(mg, n, first.data(), &np) == CS_OK && np == nd && first[0] == 0 && first[nd] == n, "%s parts",
              name);
        std::vector<uint8_t *> din((size_t)nd), dout((size_t)nd);
        std::vector<uint8_t> in(n + 1), want(n + 1), iv(BB, 0xFF);
        fill(in.data(), n);
        iv[0] = 0x7F;  /* 2^(8B-1) - 1: carries across every limb at the first block */
        for (int d = 0; d < nd; ++d) {
            const uint64_t len = first[d + 1] - first[d];
            CHECK(len % BB == 0 || first[d + 1] == n, "%s part %d not whole blocks", name, d);
            CHECK(T_mg_malloc(devs[d], len + 1, (void **)&din[d]) == CS_OK, "%s malloc", name);
            CHECK(T_mg_malloc(devs[d], len + 1, (void **)&dout[d]) == CS_OK, "%s malloc", name);
            T_mg_copy(devs[d], din[d], in.data() + first[d], len, 1);
        }
        for (int fl = 0; fl < 2; ++fl) {
            for (int ks = 0; ks < 2; ++ks) {
                ref_ctr(&rk, iv.data(), ks ? NULL : in.data(), want.data(), n, fl);
                CHECK(T_mg_ctr_dev(mg, &rk, iv.data(), ks ? NULL : din.data(), dout.data(), n, fl, 1) == CS_OK, "ctr dev");
                for (int d = 0; d < nd; ++d) {
                    const uint64_t len = first[d + 1] - first[d];
                    std::vector<uint8_t> got(len + 1);
                    T_mg_copy(devs[d], got.data(), dout[d], len, 0);
                    CHECK(!len || !memcmp(got.data(), want.data() + first[d], len), "%s ctr dev n=%llu d=%d", name,
                          (unsigned long long)n, d);
                }
            }
            const uint64_t m = n / BB * BB;
            if (m == n) {
                ref_ecb(&rk, 0, in.data(), want.data(), n, fl);
                CHECK(T_mg_ecb_dev(mg, &rk, 0, din.data(), dout.data(), n, fl, 1) == CS_OK, "ecb dev");
                for (int d = 0; d < nd; ++d) {
                    const uint64_t len = first[d + 1] - first[d];
                    std::vector<uint8_t> got(len + 1);
                    T_mg_copy(devs[d], got.data(), dout[d], len, 0);
                    CHECK(!len || !memcmp(got.data(), want.data() + first[d], len), "%s ecb dev d=%d", name, d);
                }
            }
        }
        double secs = -1;
        CHECK(T_mg_time(mg, 1, &rk, iv.data(), NULL, dout.data(), n, -1, 2, &secs) == CS_OK && secs >= 0, "time");
        for (int d = 0; d < nd; ++d) {
            T_mg_free_device(devs[d], din[d]);
            T_mg_free_device(devs[d], dout[d]);
        }
    }
}

/* CTR_DRBG bulk from a plan, as the benchmark drives it: phases recorded (host timestamps in order, the GPU
 * lengths of the fake), calls timed in the library, and asynchronous calls (the key-stream form) back to back
 * into successive places of each device's buffer, then one sync; every output == the reference */
static void multi_phases_and_pipelined(T_mg *mg, const char *name)
{
    int nd = 0;
    CHECK(T_mg_devices(mg, NULL, &nd) == CS_OK, "%s devices", name);
    std::vector<int> devs((size_t)nd);
    T_mg_devices(mg, devs.data(), NULL);
    std::vector<double> none(1 + 9 * (size_t)nd);
    CHECK(T_mg_phases(mg, none.data(), (int)none.size()) == CS_EARG, "%s phases before any phased call", name);
    for (int t = 0; t < 8; ++t) {
        const uint64_t nreq = t == 0 ? 1 : 1 + rnd() % 90, rl = BB * (1 + rnd() % 6);
        std::vector<uint8_t> keys(nreq * KBB), vs(nreq * BB), want(nreq * rl + 1);
        for (auto &x : keys) x = (uint8_t)rnd();
        for (auto &x : vs) x = (uint8_t)rnd();
        std::vector<uint64_t> lens(nreq, rl);
        const int fl = t % 2;
        ref_multi(keys.data(), vs.data(), lens.data(), nreq, want.data(), fl);
        CHECK(T_mg_set_split_min(mg, t == 5 ? ~0ull : 0) == CS_OK, "%s split_min", name);
        std::vector<uint64_t> first((size_t)nd + 1);
        T_mg_parts_multi(mg, lens.data(), nreq, first.data(), NULL);
        std::vector<uint8_t *> dout((size_t)nd);
        for (int d = 0; d < nd; ++d)
            CHECK(T_mg_malloc(devs[d], 2 * nreq * rl + 1, (void **)&dout[d]) == CS_OK, "%s malloc", name);
        const auto check_out = [&](const char *what, uint64_t off_twice) {
            uint64_t o = 0;
            for (int d = 0; d < nd; ++d) {
                const uint64_t n = (first[d + 1] - first[d]) * rl;
                for (uint64_t k = 0; k <= off_twice; ++k) {  /* off_twice 1: the part twice, back to back */
                    std::vector<uint8_t> got(n + 1);
                    T_mg_copy(devs[d], got.data(), dout[d] + k * n, n, 0);
                    CHECK(!n || !memcmp(got.data(), want.data() + o, n), "%s %s t=%d d=%d", name, what, t, d);
                }
                o += n;
            }
        };
        /* phases */
        std::vector<double> ph(1 + 9 * (size_t)nd);
        CHECK(T_mg_set_phases(mg, 1) == CS_OK, "%s phases on", name);
        CHECK(T_mg_ctr_multi_dev(mg, keys.data(), vs.data(), lens.data(), nreq, dout.data(), fl, 1) == CS_OK,
              "%s multi dev (phases)", name);
        CHECK(T_mg_phases(mg, ph.data(), (int)ph.size()) == CS_OK && ph[0] >= 0, "%s phases", name);
        CHECK(T_mg_phases(mg, ph.data(), (int)ph.size() - 1) == CS_EARG, "%s phases: short array", name);
        CHECK(T_mg_phases(NULL, ph.data(), (int)ph.size()) == CS_ENULL, "%s phases: NULL", name);
        for (int d = 0; d < nd; ++d) {
            const double *o = ph.data() + 1 + 9 * d;
            if (first[d] == first[d + 1]) {
                CHECK(o[1] == -1 && o[2] == -1 && o[4] == -1 && o[8] == -1, "%s phases: idle device %d", name, d);
                continue;
            }
            CHECK(0 <= o[0] && o[0] <= o[1] && o[1] <= o[2] && o[2] <= o[3] && o[3] <= ph[0], "%s phases d=%d order: "
                  "%g %g %g %g %g", name, d, o[0], o[1], o[2], o[3], ph[0]);
            CHECK(o[4] == 1000 && o[5] == 2000 && o[6] == 3000 && o[7] == 4000 && o[8] == 10000, "%s phases d=%d gpu",
                  name, d);
        }
        CHECK(T_mg_set_phases(mg, 0) == CS_OK, "%s phases off", name);
        check_out("phases", 0);
        /* timed in the library */
        double secs[3] = {-1, -1, -1};
        CHECK(T_mg_time_multi(mg, keys.data(), vs.data(), lens.data(), nreq, dout.data(), fl, 3, secs) == CS_OK &&
                  secs[0] >= 0 && secs[1] >= 0 && secs[2] >= 0, "%s time_multi", name);
        check_out("time_multi", 0);
        /* asynchronous, twice back to back per device (successive slots, the key stream), then one sync */
        for (int k = 0; k < 2; ++k) {
            std::vector<uint8_t *> at((size_t)nd);
            for (int d = 0; d < nd; ++d) at[d] = dout[d] + k * (first[d + 1] - first[d]) * rl;
            CHECK(T_mg_ctr_multi_dev(mg, keys.data(), vs.data(), lens.data(), nreq, at.data(), fl, 0) == CS_OK,
                  "%s multi dev async", name);
        }
        CHECK(T_mg_sync(mg) == CS_OK, "%s sync", name);
        check_out("async", 1);
        for (int d = 0; d < nd; ++d) T_mg_free_device(devs[d], dout[d]);
    }
    std::vector<uint64_t> lens = {BB};
    CHECK(T_mg_time_multi(mg, NULL, NULL, lens.data(), 1, NULL, 0, 1, NULL) == CS_ENULL, "%s time_multi NULL", name);
}

static void async_and_modes(T_mg *mg)
{
    const uint64_t n = 40 * TEST_GRAIN + 3;
    T_rk rk;
    for (auto &w : rk.w) w = (uint32_t)rnd();
    std::vector<uint8_t> iv(BB), want(n);
    fill(iv.data(), BB);
    Buf in(n, 1), out(n, 1);
    fill(in.p, n);
    ref_ctr(&rk, iv.data(), in.p, want.data(), n, DEFAULT_FLAVOUR);
    memset(out.p, 0, n);
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), in.p, out.p, n, CS_MEM_AUTO, 0) == CS_OK, "async");
    CHECK(memcmp(out.p, want.data(), n) != 0, "async call finished before the wait (the stub defers stream work)");
    CHECK(T_mg_sync(mg) == CS_OK && !memcmp(out.p, want.data(), n), "async then sync");
    /* copies: page-locked buffers are used directly; pageable ones per mode */
    Buf pin(n, 0), pout(n, 0);
    memcpy(pin.p, in.p, n);
    long before = stub_copies_pageable;
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), in.p, out.p, n, CS_MEM_AUTO, 1) == CS_OK, "pinned auto");
    CHECK(stub_copies_pageable == before, "page-locked buffers were copied as pageable");
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), pin.p, pout.p, n, CS_MEM_STAGE, 1) == CS_OK && !memcmp(pout.p, want.data(), n), "stage");
    CHECK(stub_copies_pageable == before, "staging copied from pageable memory");
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), pin.p, pout.p, n, CS_MEM_PAGEABLE, 1) == CS_OK && !memcmp(pout.p, want.data(), n), "pageable");
    CHECK(stub_copies_pageable > before, "the pageable mode did not copy from pageable memory");
    before = stub_copies_pageable;
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), pin.p, pout.p, n, CS_MEM_REGISTER, 1) == CS_OK && !memcmp(pout.p, want.data(), n), "register");
    CHECK(stub_copies_pageable == before && stub_registered_now == 0, "register: copies or registrations");
    stub_register_fails = 1;  /* registration refused: staging instead, same bytes */
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), pin.p, pout.p, n, CS_MEM_REGISTER, 1) == CS_OK && !memcmp(pout.p, want.data(), n), "register refused");
    stub_register_fails = 0;
    /* refused: asynchronous with pageable buffers, "pinned" that is not, a bad mode */
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), pin.p, pout.p, n, CS_MEM_AUTO, 0) == CS_EARG, "async pageable");
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), pin.p, pout.p, n, CS_MEM_STAGE, 0) == CS_EARG, "async stage");
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), pin.p, pout.p, n, CS_MEM_PINNED, 1) == CS_EARG, "pinned but pageable");
    CHECK(T_mg_ctr_host(mg, &rk, iv.data(), pin.p, pout.p, n, 9, 1) == CS_EARG, "mode 9");
    CHECK(T_mg_ctr_host(mg, &rk, NULL, pin.p, pout.p, n, 0, 1) == CS_ENULL, "NULL iv");
    CHECK(T_mg_ecb_host(mg, &rk, 0, pin.p, pout.p, BB + 1, 0, 1) == CS_ELEN, "ecb length");
}

static void devices_refused(void)
{
    T_mg *mg = NULL;
    const int three[] = {0, 1, 3}, twice[] = {1, 1}, neg[] = {-1};
    CHECK(T_mg_new(three, 3, 0, 0, &mg) == CS_EDEVICE && !mg, "device 3 of 3");
    CHECK(T_mg_new(twice, 2, 0, 0, &mg) == CS_EDEVICE && !mg, "device twice");
    CHECK(T_mg_new(neg, 1, 0, 0, &mg) == CS_EDEVICE && !mg, "device -1");
    CHECK(T_mg_new(NULL, 0, 99, 0, &mg) == CS_EARG && !mg, "99 streams");
    CHECK(T_mg_new(three, -1, 0, 0, &mg) == CS_EARG && !mg, "-1 devices");
}

static int split_mode(void)
{
    char kind[8];
    while (scanf("%7s", kind) == 1) {
        if (kind[0] == 'b') {
            unsigned long long n, grain;
            int parts;
            if (scanf("%llu %llu %d", &n, &grain, &parts) != 3) return 2;
            std::vector<uint64_t> first((size_t)parts + 1);
            T_mg_split(n, grain, parts, first.data());
            printf("%d", T_mg_used(n, parts, TEST_MIN_PART));
            for (uint64_t f : first) printf(" %llu", (unsigned long long)f);
            printf(" | %llu\n", (unsigned long long)T_mg_piece(n, parts, grain, TEST_GRAIN, TEST_CHUNK));
        } else {
            int parts;
            unsigned long long nreq, cap;
            if (scanf("%d %llu %llu", &parts, &cap, &nreq) != 3) return 2;
            std::vector<uint64_t> lens(nreq ? nreq : 1), first((size_t)parts + 1);
            for (unsigned long long r = 0; r < nreq; ++r) {
                unsigned long long x;
                if (scanf("%llu", &x) != 1) return 2;
                lens[r] = x;
            }
            T_mg_split_requests(lens.data(), nreq, parts, first.data());
            for (uint64_t f : first) printf("%llu ", (unsigned long long)f);
            printf("|");
            for (uint64_t r = 0; r < nreq; r = T_mg_group_end(lens.data(), r, nreq, cap)) printf(" %llu", (unsigned long long)r);
            printf("\n");
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "split")) return split_mode();
    if (argc > 1 && !strcmp(argv[1], "nodev")) {
        T_mg *mg = NULL;
        int n = -1;
        CHECK(T_mg_device_count(&n) == CS_ENODEVICE && n == 0, "device count %d", n);
        CHECK(T_mg_new(NULL, 0, 0, 0, &mg) == CS_ENODEVICE && !mg, "no device");
        printf("ok %ld checks\n", checks);
        return 0;
    }
    devices_refused();
    const struct { std::vector<int> devs; int streams; const char *name; } sets[] = {
        {{}, 0, "all 3, default streams"}, {{2, 0}, 3, "devices 2,0"}, {{1}, 1, "device 1, one stream"},
        {{0, 1, 2}, 8, "all 3, 8 streams"}};
    const int nsets = argc > 1 && !strcmp(argv[1], "quick") ? 2 : (int)(sizeof sets / sizeof sets[0]);
    for (int i = 0; i < nsets; ++i) {
        const auto &s = sets[i];
        T_mg *mg = context(s.devs, s.streams, TEST_CHUNK);
        host_ctr_ecb(mg, s.name);
        host_multi(mg, s.name);
        device_resident(mg, s.name);
        multi_phases_and_pipelined(mg, s.name);
        async_and_modes(mg);
        T_mg_free(mg);
    }
    {
        std::lock_guard<std::mutex> g(stub_mu);
        CHECK(stub_mem.empty(), "%zu buffers leaked", stub_mem.size());
    }
    CHECK(fake_unwiped.load() == 0, "%ld staged key copies never wiped", fake_unwiped.load());
    printf("ok %ld checks\n", checks);
    return 0;
}
