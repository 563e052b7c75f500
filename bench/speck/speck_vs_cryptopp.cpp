// SPECK-128/128 CTR: the cipherspec C library as shipped (every ISA variant this CPU runs) against Crypto++
// 8.7's CTR_Mode<SPECK128>, in one process, one thread.
//   speck_vs_cryptopp MBYTES REPS        (bench/speck/run.sh builds it and writes the markdown table)
// Key = 00 01 .. 0f, IV = f0 f1 .. ff, input byte i = (i * 131 + (i >> 8)) & 0xff.  Each repetition runs
// Crypto++ and then every variant of ours over the whole buffer (alternating, so that a busy machine slows
// both alike); the best wall time and the best thread CPU time (CLOCK_THREAD_CPUTIME_ID: what a shared
// machine's other jobs disturb least) of each are kept.  Every output is compared byte for byte with
// Crypto++'s.  Prints one markdown row per implementation:
//   | implementation | MB/s (wall) | vs Crypto++ | MB/s (CPU time) | vs Crypto++ | equal |
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <cryptopp/modes.h>
#include <cryptopp/speck.h>

extern "C" {
#include "speck128_128.h"
}

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double cpu_now()
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

struct Best {
    double wall = 1e30, cpu = 1e30;
    void take(double w, double c)
    {
        if (w < wall) wall = w;
        if (c < cpu) cpu = c;
    }
};

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: speck_vs_cryptopp MBYTES REPS\n"); return 2; }
    const size_t n = (size_t)atol(argv[1]) << 20;
    const int reps = atoi(argv[2]);
    std::vector<unsigned char> in(n), want(n), got(n);
    for (size_t i = 0; i < n; i++) in[i] = (unsigned char)((i * 131 + (i >> 8)) & 0xff);
    unsigned char key[16], iv0[16];
    for (int i = 0; i < 16; i++) { key[i] = (unsigned char)i; iv0[i] = (unsigned char)(0xf0 + i); }

    std::vector<std::string> names;  // our variants this CPU runs, best first ("" = the default choice)
    names.push_back("");
    for (int i = 0; speck128_128_variant_name(i); i++) {
        const char *v = speck128_128_variant_name(i);
        const char *ran = speck128_128_variant_for(v);
        if (ran && strcmp(ran, v) == 0) names.push_back(v);
    }
    std::vector<speck128_128_key> keys(names.size());
    for (size_t k = 0; k < names.size(); k++)
        if (speck128_128_set_key_isa(&keys[k], key, 16, names[k].empty() ? NULL : names[k].c_str()) != 0) {
            fprintf(stderr, "set_key_isa(%s) failed: %s\n", names[k].c_str(), speck128_128_dispatch_error());
            return 1;
        }
    Best cpp;
    std::vector<Best> best(names.size());
    std::vector<int> equal(names.size(), 1);
    for (int r = 0; r < reps; r++) {
        double t = now(), c = cpu_now();
        CryptoPP::CTR_Mode<CryptoPP::SPECK128>::Encryption e(key, 16, iv0);
        e.ProcessData(want.data(), in.data(), n);
        cpp.take(now() - t, cpu_now() - c);
        for (size_t k = 0; k < names.size(); k++) {
            unsigned char iv[16];
            memcpy(iv, iv0, 16);
            memset(got.data(), 0, n);
            t = now();
            c = cpu_now();
            int rc = speck128_128_ctr(&keys[k], iv, in.data(), got.data(), n);
            best[k].take(now() - t, cpu_now() - c);
            if (rc != 0 || memcmp(got.data(), want.data(), n) != 0) equal[k] = 0;
        }
    }
    const double wall_cpp = n / cpp.wall / 1e6, cpu_cpp = n / cpp.cpu / 1e6;
    printf("| Crypto++ %d.%d `CTR_Mode<SPECK128>` | %.0f | 1.00x | %.0f | 1.00x | (reference) |\n",
           CRYPTOPP_VERSION / 100, (CRYPTOPP_VERSION / 10) % 10, wall_cpp, cpu_cpp);
    int bad = 0;
    for (size_t k = 0; k < names.size(); k++) {
        const double wall = n / best[k].wall / 1e6, cpu = n / best[k].cpu / 1e6;
        std::string label = names[k].empty() ? std::string("ours, as shipped (default: ") + speck128_128_variant() + ")"
                                             : "ours, `CIPHERSPEC_X86_ISA=" + names[k] + "`";
        printf("| %s | %.0f | %.2fx | %.0f | %.2fx | %s |\n", label.c_str(), wall, wall / wall_cpp, cpu, cpu / cpu_cpp,
               equal[k] ? "yes" : "NO");
        bad |= !equal[k];
    }
    return bad;
}
