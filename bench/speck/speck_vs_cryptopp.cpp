// SPECK-128/128 CTR: the cipherspec C library as shipped (every ISA variant this CPU runs) against Crypto++
// 8.7's CTR_Mode<SPECK128>, in one process, one thread.
//   speck_vs_cryptopp MBYTES REPS        (bench/speck/run.sh builds it and writes the markdown table)
// Key = 00 01 .. 0f, IV = f0 f1 .. ff, input byte i = (i * 131 + (i >> 8)) & 0xff.  Each repetition runs
// Crypto++ and then every variant of ours over the whole buffer (alternating, so that a busy machine slows
// both alike); the best time of each is kept.  Every output is compared byte for byte with Crypto++'s.
// Prints one markdown table row per implementation: | implementation | MB/s | x Crypto++ | equal |.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
    double best_cpp = 1e30;
    std::vector<double> best(names.size(), 1e30);
    std::vector<int> equal(names.size(), 1);
    for (int r = 0; r < reps; r++) {
        double t = now();
        CryptoPP::CTR_Mode<CryptoPP::SPECK128>::Encryption e(key, 16, iv0);
        e.ProcessData(want.data(), in.data(), n);
        t = now() - t;
        if (t < best_cpp) best_cpp = t;
        for (size_t k = 0; k < names.size(); k++) {
            unsigned char iv[16];
            memcpy(iv, iv0, 16);
            memset(got.data(), 0, n);
            t = now();
            int rc = speck128_128_ctr(&keys[k], iv, in.data(), got.data(), n);
            t = now() - t;
            if (rc != 0 || memcmp(got.data(), want.data(), n) != 0) equal[k] = 0;
            if (t < best[k]) best[k] = t;
        }
    }
    const double mb_cpp = n / best_cpp / 1e6;
    printf("| Crypto++ %d.%d CTR_Mode<SPECK128> | %.0f | 1.00x | (reference) |\n", CRYPTOPP_VERSION / 100,
           (CRYPTOPP_VERSION / 10) % 10, mb_cpp);
    int bad = 0;
    for (size_t k = 0; k < names.size(); k++) {
        const double mb = n / best[k] / 1e6;
        std::string label = names[k].empty() ? std::string("ours, as shipped (default: ") + speck128_128_variant() + ")"
                                             : "ours, CIPHERSPEC_X86_ISA=" + names[k];
        printf("| %s | %.0f | %.2fx | %s |\n", label.c_str(), mb, mb / mb_cpp, equal[k] ? "yes" : "NO");
        bad |= !equal[k];
    }
    return bad;
}
