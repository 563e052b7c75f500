// Peer implementations for bench/c: Crypto++ (LEA, CHAM, HIGHT, ARIA) and OpenSSL 3 EVP (ARIA, AES).
//   peers LIB CIPHER MODE MBYTES REPS     LIB: cryptopp | openssl; MODE: ecb | ctr
// Key = bytes 0,1,2,..; IV = f0 f1 ..; input byte i = (i * 131 + (i >> 8)) & 0xff (bench.py makes the same).
// Prints "<best seconds> <sha256 of the output>".  OpenSSL without AES-NI: run with
// OPENSSL_ia32cap="~0x200000200000000".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cryptopp/aria.h>
#include <cryptopp/cham.h>
#include <cryptopp/hight.h>
#include <cryptopp/lea.h>
#include <cryptopp/modes.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

using namespace CryptoPP;
typedef std::vector<unsigned char> Bytes;

template <class C>
static void cpp_run(const std::string &mode, const Bytes &key, const Bytes &iv, const Bytes &in, Bytes &out)
{
    if (mode == "ecb") {
        typename ECB_Mode<C>::Encryption e(key.data(), key.size());
        e.ProcessData(out.data(), in.data(), in.size());
    } else {
        typename CTR_Mode<C>::Encryption e(key.data(), key.size(), iv.data());
        e.ProcessData(out.data(), in.data(), in.size());
    }
}

static const EVP_CIPHER *evp(const std::string &cipher, const std::string &mode)
{
    std::string name = cipher.substr(0, cipher.size() - 3) + "-" + cipher.substr(cipher.size() - 3) + "-" + mode;
    return EVP_get_cipherbyname(name.c_str());
}

static void ossl_run(const EVP_CIPHER *c, const Bytes &key, const Bytes &iv, const Bytes &in, Bytes &out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, total = 0;
    EVP_EncryptInit_ex(ctx, c, NULL, key.data(), iv.data());
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    const size_t chunk = 1 << 30;
    for (size_t off = 0; off < in.size(); off += chunk) {
        size_t take = in.size() - off < chunk ? in.size() - off : chunk;
        EVP_EncryptUpdate(ctx, out.data() + off, &n, in.data() + off, (int)take);
        total += n;
    }
    EVP_CIPHER_CTX_free(ctx);
}

int main(int argc, char **argv)
{
    if (argc != 6) { fprintf(stderr, "usage: peers LIB CIPHER MODE MBYTES REPS\n"); return 2; }
    std::string lib = argv[1], cipher = argv[2], mode = argv[3];
    size_t size = (size_t)atoi(argv[4]) << 20;
    int reps = atoi(argv[5]);
    size_t kb = cipher == "hight" ? 16 : cipher == "cham64_128" || cipher == "cham128_128" ? 16
              : cipher == "cham128_256" ? 32 : (size_t)atoi(cipher.c_str() + cipher.size() - 3) / 8;
    size_t bb = (cipher == "hight" || cipher == "cham64_128") ? 8 : 16;
    Bytes key(kb), iv(bb), in(size), out(size);
    for (size_t i = 0; i < kb; i++) key[i] = (unsigned char)i;
    for (size_t i = 0; i < bb; i++) iv[i] = (unsigned char)(0xf0 + i);
    for (size_t i = 0; i < size; i++) in[i] = (unsigned char)((i * 131 + (i >> 8)) & 0xff);
    const EVP_CIPHER *c = lib == "openssl" ? evp(cipher, mode) : NULL;
    if (lib == "openssl" && c == NULL) { fprintf(stderr, "openssl has no %s-%s\n", cipher.c_str(), mode.c_str()); return 2; }
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        auto t0 = std::chrono::steady_clock::now();
        if (lib == "openssl") ossl_run(c, key, iv, in, out);
        else if (cipher.rfind("lea", 0) == 0) cpp_run<LEA>(mode, key, iv, in, out);
        else if (cipher.rfind("aria", 0) == 0) cpp_run<ARIA>(mode, key, iv, in, out);
        else if (cipher == "hight") cpp_run<HIGHT>(mode, key, iv, in, out);
        else if (cipher == "cham64_128") cpp_run<CHAM64>(mode, key, iv, in, out);
        else if (cipher.rfind("cham128", 0) == 0) cpp_run<CHAM128>(mode, key, iv, in, out);
        else { fprintf(stderr, "crypto++ peer has no %s\n", cipher.c_str()); return 2; }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < best) best = s;
    }
    unsigned char h[32];
    SHA256(out.data(), out.size(), h);
    printf("%.6f ", best);
    for (int i = 0; i < 32; i++) printf("%02x", h[i]);
    printf("\n");
    return 0;
}
