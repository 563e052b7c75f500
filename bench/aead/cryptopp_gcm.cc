// cryptopp_gcm.cc -- GCM of a generated C library vs Crypto++'s GCM<CIPHER> (2K tables) in one process, one
// thread: one message of SIZE bytes and the same buffer as 16 KiB records; outputs (ciphertext and tags)
// compared byte for byte before anything is timed; thread CPU time, median of REPS alternating runs.
// Built and run by bench/aead/cryptopp.sh:  -DCS_P=lea128 -DCS_PEER=CryptoPP::LEA
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <cryptopp/aria.h>
#include <cryptopp/gcm.h>
#include <cryptopp/lea.h>

extern "C" {
#include CS_HEADER
}

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define OURS(f) CAT(CS_P, f)

static double cpu_now()
{
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t size = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 64) << 20, rec = 16384;
    int reps = argc > 2 ? std::atoi(argv[2]) : 7;
    std::vector<unsigned char> pt(size), a(size), b(size), key(16), iv(12), aad(13);
    for (size_t i = 0; i < size; i++) pt[i] = (unsigned char)(i * 131 + 7);
    for (int i = 0; i < 16; i++) key[i] = (unsigned char)(3 * i + 1);
    for (int i = 0; i < 12; i++) iv[i] = (unsigned char)(5 * i + 2);
    OURS(_key) ks;
    if (OURS(_set_key)(&ks, key.data(), 16) != CIPHERSPEC_OK) return 2;
    CryptoPP::GCM<CS_PEER>::Encryption e;
    e.SetKeyWithIV(key.data(), 16, iv.data(), 12);
    size_t nrec = size / rec;
    std::vector<unsigned char> ta(16 * nrec), tb(16 * nrec);
    auto ours = [&](bool records) {
        if (!records) return OURS(_gcm_encrypt)(&ks, iv.data(), 12, aad.data(), 13, pt.data(), a.data(), size, ta.data(), 16);
        int rc = 0;
        for (size_t r = 0; r < nrec; r++)
            rc |= OURS(_gcm_encrypt)(&ks, iv.data(), 12, aad.data(), 13, pt.data() + r * rec, a.data() + r * rec, rec,
                                     ta.data() + 16 * r, 16);
        return rc;
    };
    auto peer = [&](bool records) {
        size_t n = records ? nrec : 1, len = records ? rec : size;
        for (size_t r = 0; r < n; r++)
            e.EncryptAndAuthenticate(b.data() + r * len, tb.data() + 16 * r, 16, iv.data(), 12, aad.data(), 13,
                                     pt.data() + r * len, len);
    };
    for (int records = 0; records < 2; records++) {
        if (ours(records) != CIPHERSPEC_OK) return 2;
        peer(records);
        size_t tags = records ? 16 * nrec : 16;
        if (std::memcmp(a.data(), b.data(), size) || std::memcmp(ta.data(), tb.data(), tags)) {
            std::fprintf(stderr, "cryptopp_gcm: outputs differ (%s)\n", records ? "records" : "one message");
            return 1;
        }
        std::vector<double> to, tp;
        for (int i = 0; i < reps; i++) {
            double t0 = cpu_now();
            ours(records);
            double t1 = cpu_now();
            peer(records);
            double t2 = cpu_now();
            to.push_back(t1 - t0);
            tp.push_back(t2 - t1);
        }
        std::sort(to.begin(), to.end());
        std::sort(tp.begin(), tp.end());
        double mo = size / to[reps / 2] / 1e6, mp = size / tp[reps / 2] / 1e6;
        std::printf("%s %s: ours %.0f MB/s, Crypto++ %.0f MB/s, ratio %.2fx\n", CS_NAME,
                    records ? "16 KiB records" : "one message", mo, mp, mo / mp);
    }
    return 0;
}
