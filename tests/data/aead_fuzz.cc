// aead_fuzz.cc -- a differential fuzzer (libFuzzer) for the generated libraries' GCM, CCM, XTS and CMAC against
// OpenSSL 3 (EVP), libgcrypt and Crypto++, wherever a peer has the cipher.  Built and run by
// tests/differential/test_aead_fuzz.py (briefly, in CI) and bench/fuzz/aead.sh (for hours).
//
// Each input decodes (FuzzedDataProvider) into: a cipher of those linked in, a mode, a key, an IV/nonce/tweak of
// a length the mode allows, a tag length, AAD, data, a chunking for the incremental APIs, and a tamper choice.
// Then, for that case:
//   - ours one-shot == ours incremental over the chunking (GCM, CMAC), and decrypting gives the data back;
//   - ours == every peer that has the cipher and mode (ciphertext and tag, byte for byte);
//   - a tampered ciphertext, AAD or tag is refused by ours (CIPHERSPEC_ERR_AUTH, output zeroed) and by the peers;
//   - equal XTS key halves are refused by ours (CIPHERSPEC_ERR_PARAM).
// Any disagreement aborts (libFuzzer keeps the input as a crash file: a reproducer).
//
// Ciphers: -DCS_WITH_<NAME> for each generated library linked in (its header from the build's include/), with
// -DCS_<NAME>_PEERS=<bits> naming the peers that have it (1 OpenSSL, 2 libgcrypt, 4 Crypto++) and
// -DCS_<NAME>_PEER_NAME="..." the peer algorithm family ("AES", "ARIA", "LEA", "SM4").
// CS_FUZZ_INJECT=1 in the environment flips one bit of our GCM tag before it is compared with the peers' (the
// self-test that the comparison can fail).

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gcrypt.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cryptopp/aes.h>
#include <cryptopp/aria.h>
#include <cryptopp/ccm.h>
#include <cryptopp/cmac.h>
#include <cryptopp/filters.h>
#include <cryptopp/gcm.h>
#include <cryptopp/lea.h>
#include <cryptopp/xts.h>

extern "C" {
#ifdef CS_WITH_AES128
#include "aes128.h"
#endif
#ifdef CS_WITH_ARIA128
#include "aria128.h"
#endif
#ifdef CS_WITH_LEA128
#include "lea128.h"
#endif
}

namespace {

using Bytes = std::vector<uint8_t>;
enum Mode { GCM, CCM, XTS, CMAC, NMODES };
const char *const MODE_NAMES[] = {"GCM", "CCM", "XTS", "CMAC"};
enum Peer { OPENSSL = 1, GCRYPT = 2, CRYPTOPP = 4 };

[[noreturn]] void fail(const char *cipher, Mode mode, const char *what)
{
    std::fprintf(stderr, "aead_fuzz: %s-%s: %s\n", cipher, MODE_NAMES[mode], what);
    std::abort();
}

// ---- ours: one table of function pointers per linked library (each key type behind a void pointer)

struct Ours {
    const char *name;   // our cipher name
    const char *peer;   // the peers' name for the family
    unsigned peers;
    size_t (*key_size)(void);
    size_t (*xts_key_size)(void);
    size_t (*gcm_size)(void);
    int (*set_key)(void *, const uint8_t *, size_t);
    int (*xts_set_key)(void *, const uint8_t *, size_t);
    int (*gcm_encrypt)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,
                       size_t, uint8_t *, size_t);
    int (*gcm_decrypt)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,
                       size_t, const uint8_t *, size_t);
    int (*gcm_init)(void *, const void *, const uint8_t *, size_t);
    int (*gcm_aad)(void *, const uint8_t *, size_t);
    int (*gcm_encrypt_update)(void *, const uint8_t *, uint8_t *, size_t);
    int (*gcm_finish)(void *, uint8_t *, size_t);
    int (*ccm_encrypt)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,
                       size_t, uint8_t *, size_t);
    int (*ccm_decrypt)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,
                       size_t, const uint8_t *, size_t);
    int (*xts_encrypt)(const void *, const uint8_t *, const uint8_t *, uint8_t *, size_t);
    int (*xts_decrypt)(const void *, const uint8_t *, const uint8_t *, uint8_t *, size_t);
    int (*cmac)(const void *, const uint8_t *, size_t, uint8_t *, size_t);
};

#define CS_OURS(P, PEER, PEERS)                                                                                    \
    Ours{#P, PEER, PEERS, P##_key_size, P##_xts_key_size, P##_gcm_size,                                             \
         (int (*)(void *, const uint8_t *, size_t))P##_set_key,                                                     \
         (int (*)(void *, const uint8_t *, size_t))P##_xts_set_key,                                                 \
         (int (*)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,       \
                  size_t, uint8_t *, size_t))P##_gcm_encrypt,                                                       \
         (int (*)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,       \
                  size_t, const uint8_t *, size_t))P##_gcm_decrypt,                                                 \
         (int (*)(void *, const void *, const uint8_t *, size_t))P##_gcm_init,                                      \
         (int (*)(void *, const uint8_t *, size_t))P##_gcm_aad,                                                     \
         (int (*)(void *, const uint8_t *, uint8_t *, size_t))P##_gcm_encrypt_update,                               \
         (int (*)(void *, uint8_t *, size_t))P##_gcm_finish,                                                        \
         (int (*)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,       \
                  size_t, uint8_t *, size_t))P##_ccm_encrypt,                                                       \
         (int (*)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, uint8_t *,       \
                  size_t, const uint8_t *, size_t))P##_ccm_decrypt,                                                 \
         (int (*)(const void *, const uint8_t *, const uint8_t *, uint8_t *, size_t))P##_xts_encrypt,               \
         (int (*)(const void *, const uint8_t *, const uint8_t *, uint8_t *, size_t))P##_xts_decrypt,               \
         (int (*)(const void *, const uint8_t *, size_t, uint8_t *, size_t))P##_cmac}

const std::vector<Ours> &ours()
{
    static const std::vector<Ours> all = {
#ifdef CS_WITH_AES128
        CS_OURS(aes128, "AES", OPENSSL | GCRYPT | CRYPTOPP),
#endif
#ifdef CS_WITH_ARIA128
        CS_OURS(aria128, "ARIA", OPENSSL | CRYPTOPP),
#endif
#ifdef CS_WITH_LEA128
        CS_OURS(lea128, "LEA", CRYPTOPP),
#endif
    };
    return all;
}

// A buffer of n bytes whose address is valid even when n is 0 (the libraries refuse NULL).
struct Buf {
    Bytes v;
    explicit Buf(size_t n) : v(n + 1) {}
    uint8_t *p() { return v.data(); }
};

// The address of a vector's bytes, valid even when it is empty (the libraries refuse NULL whatever the length).
const uint8_t *P(const Bytes &v)
{
    static const uint8_t none[1] = {0};
    return v.empty() ? none : v.data();
}

struct Case {
    Mode mode;
    Bytes key, iv, aad, data;
    size_t tag_len = 16;
    std::vector<size_t> chunks;
    int tamper = 0;  // 0 none, 1 ciphertext, 2 aad, 3 tag
    size_t tamper_at = 0;
};

struct Result {
    bool ok = false;   // the peer ran (it has the cipher and the parameters)
    Bytes out, tag;
};

// ---- OpenSSL (EVP)

Result openssl(const Ours &o, const Case &c, bool encrypt, const Bytes &in, const Bytes &tag_in)
{
    Result r;
    if (!(o.peers & OPENSSL)) return r;
    if (c.mode == CMAC) {
        std::string cbc = std::string(o.peer) + "-128-CBC";
        EVP_MAC *mac = EVP_MAC_fetch(nullptr, "CMAC", nullptr);
        EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
        OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, &cbc[0], 0), OSSL_PARAM_END};
        uint8_t t[16];
        size_t tl = 0;
        if (ctx && EVP_MAC_init(ctx, c.key.data(), c.key.size(), params) && EVP_MAC_update(ctx, in.data(), in.size())
            && EVP_MAC_final(ctx, t, &tl, sizeof t)) {
            r.ok = true;
            r.tag.assign(t, t + c.tag_len);
        }
        EVP_MAC_CTX_free(ctx);
        EVP_MAC_free(mac);
        return r;
    }
    std::string name = std::string(o.peer) + (c.mode == XTS ? "-128-XTS" : c.mode == GCM ? "-128-GCM" : "-128-CCM");
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(nullptr, name.c_str(), "provider=default");
    if (!cipher) return r;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, ok = EVP_CipherInit_ex2(ctx, cipher, nullptr, nullptr, encrypt, nullptr);
    Buf out(in.size() + 32);
    if (c.mode != XTS) ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)c.iv.size(), nullptr) > 0;
    if (c.mode == CCM)
        ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)c.tag_len,
                                       encrypt ? nullptr : (void *)tag_in.data()) > 0;
    ok = ok && EVP_CipherInit_ex2(ctx, nullptr, c.key.data(), c.iv.data(), -1, nullptr);
    if (c.mode == CCM) ok = ok && EVP_CipherUpdate(ctx, nullptr, &n, nullptr, (int)in.size());
    if (c.mode != XTS && (!c.aad.empty() || c.mode == CCM))
        ok = ok && EVP_CipherUpdate(ctx, nullptr, &n, c.aad.data(), (int)c.aad.size());
    int produced = 0;
    if (ok && (!in.empty() || c.mode == CCM)) {
        ok = EVP_CipherUpdate(ctx, out.p(), &n, in.empty() ? out.p() : in.data(), (int)in.size());
        produced = n;
    }
    if (ok && c.mode == GCM && !encrypt)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag_in.size(), (void *)tag_in.data()) > 0;
    if (ok && c.mode != CCM) ok = EVP_CipherFinal_ex(ctx, out.p() + produced, &n);
    if (ok) {
        r.ok = true;
        r.out.assign(out.p(), out.p() + in.size());
        if (encrypt && c.mode != XTS) {
            r.tag.resize(c.tag_len);
            if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)c.tag_len, r.tag.data()) <= 0) r.ok = false;
        }
    } else if (!encrypt && c.mode != XTS) {
        r.ok = true;  // ran, and refused: an authentication failure
        r.out.clear();
        r.tag = {0xff};
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(cipher);
    return r;
}

// ---- libgcrypt (AES only among ours)

Result gcrypt(const Ours &o, const Case &c, bool encrypt, const Bytes &in, const Bytes &tag_in)
{
    Result r;
    if (!(o.peers & GCRYPT)) return r;
    static bool ready = [] {
        gcry_check_version(nullptr);
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        return true;
    }();
    (void)ready;
    if (c.mode == CMAC) {
        gcry_mac_hd_t h;
        uint8_t t[16];
        size_t tl = sizeof t;
        if (gcry_mac_open(&h, GCRY_MAC_CMAC_AES, 0, nullptr)) return r;
        if (!gcry_mac_setkey(h, c.key.data(), c.key.size()) && !gcry_mac_write(h, in.data(), in.size())
            && !gcry_mac_read(h, t, &tl)) {
            r.ok = true;
            r.tag.assign(t, t + c.tag_len);
        }
        gcry_mac_close(h);
        return r;
    }
    int gm = c.mode == GCM ? GCRY_CIPHER_MODE_GCM : c.mode == CCM ? GCRY_CIPHER_MODE_CCM : GCRY_CIPHER_MODE_XTS;
    gcry_cipher_hd_t h;
    if (gcry_cipher_open(&h, GCRY_CIPHER_AES128, gm, 0)) return r;
    Buf out(in.size());
    gcry_error_t e = gcry_cipher_setkey(h, c.key.data(), c.key.size());
    e = e ? e : gcry_cipher_setiv(h, c.iv.data(), c.iv.size());
    if (c.mode == CCM && !e) {
        uint64_t lens[3] = {in.size(), c.aad.size(), c.tag_len};
        e = gcry_cipher_ctl(h, GCRYCTL_SET_CCM_LENGTHS, lens, sizeof lens);
    }
    if (c.mode != XTS && !e) e = gcry_cipher_authenticate(h, P(c.aad), c.aad.size());
    if (!e && c.mode != XTS) gcry_cipher_final(h);
    if (!e)
        e = encrypt ? gcry_cipher_encrypt(h, out.p(), in.size(), in.empty() ? out.p() : in.data(), in.size())
                    : gcry_cipher_decrypt(h, out.p(), in.size(), in.empty() ? out.p() : in.data(), in.size());
    if (!e) {
        r.ok = true;
        r.out.assign(out.p(), out.p() + in.size());
        if (c.mode != XTS) {
            if (encrypt) {
                uint8_t t[16];
                if (gcry_cipher_gettag(h, t, c.tag_len)) r.ok = false;
                r.tag.assign(t, t + c.tag_len);
            } else if (gcry_cipher_checktag(h, tag_in.data(), tag_in.size())) {
                r.out.clear();
                r.tag = {0xff};
            }
        }
    }
    gcry_cipher_close(h);
    return r;
}

// ---- Crypto++

template <class B>
Result cryptopp_with(const Case &c, bool encrypt, const Bytes &in, const Bytes &tag_in);

template <class B, int T>
Result cryptopp_ccm(const Case &c, bool encrypt, const Bytes &in, const Bytes &tag_in)
{
    Result r;
    Buf out(in.size());
    if (encrypt) {
        typename CryptoPP::CCM<B, T>::Encryption e;
        e.SetKeyWithIV(c.key.data(), c.key.size(), c.iv.data(), c.iv.size());
        r.tag.resize(T);
        e.EncryptAndAuthenticate(out.p(), r.tag.data(), T, c.iv.data(), (int)c.iv.size(), P(c.aad), c.aad.size(),
                                 in.data(), in.size());
        r.out.assign(out.p(), out.p() + in.size());
    } else {
        typename CryptoPP::CCM<B, T>::Decryption d;
        d.SetKeyWithIV(c.key.data(), c.key.size(), c.iv.data(), c.iv.size());
        if (d.DecryptAndVerify(out.p(), tag_in.data(), T, c.iv.data(), (int)c.iv.size(), P(c.aad), c.aad.size(),
                               in.data(), in.size()))
            r.out.assign(out.p(), out.p() + in.size());
        else
            r.tag = {0xff};
    }
    r.ok = true;
    return r;
}

template <class B>
Result cryptopp_with(const Case &c, bool encrypt, const Bytes &in, const Bytes &tag_in)
{
    Result r;
    try {
        if (c.mode == CMAC) {
            CryptoPP::CMAC<B> mac(c.key.data(), c.key.size());
            mac.Update(in.data(), in.size());
            uint8_t t[16];
            mac.Final(t);
            r.ok = true;
            r.tag.assign(t, t + c.tag_len);
        } else if (c.mode == GCM) {
            Buf out(in.size());
            if (encrypt) {
                typename CryptoPP::GCM<B>::Encryption e;
                e.SetKeyWithIV(c.key.data(), c.key.size(), c.iv.data(), c.iv.size());
                r.tag.resize(c.tag_len);
                e.EncryptAndAuthenticate(out.p(), r.tag.data(), c.tag_len, c.iv.data(), (int)c.iv.size(),
                                         P(c.aad), c.aad.size(), in.data(), in.size());
                r.out.assign(out.p(), out.p() + in.size());
            } else {
                typename CryptoPP::GCM<B>::Decryption d;
                d.SetKeyWithIV(c.key.data(), c.key.size(), c.iv.data(), c.iv.size());
                if (d.DecryptAndVerify(out.p(), tag_in.data(), tag_in.size(), c.iv.data(), (int)c.iv.size(),
                                       P(c.aad), c.aad.size(), in.data(), in.size()))
                    r.out.assign(out.p(), out.p() + in.size());
                else
                    r.tag = {0xff};
            }
            r.ok = true;
        } else if (c.mode == CCM) {
            switch (c.tag_len) {
            case 4: return cryptopp_ccm<B, 4>(c, encrypt, in, tag_in);
            case 6: return cryptopp_ccm<B, 6>(c, encrypt, in, tag_in);
            case 8: return cryptopp_ccm<B, 8>(c, encrypt, in, tag_in);
            case 10: return cryptopp_ccm<B, 10>(c, encrypt, in, tag_in);
            case 12: return cryptopp_ccm<B, 12>(c, encrypt, in, tag_in);
            case 14: return cryptopp_ccm<B, 14>(c, encrypt, in, tag_in);
            default: return cryptopp_ccm<B, 16>(c, encrypt, in, tag_in);
            }
        } else {
            Buf out(in.size());
            std::string sink;
            if (encrypt) {
                typename CryptoPP::XTS<B>::Encryption e;
                e.SetKeyWithIV(c.key.data(), c.key.size(), c.iv.data(), c.iv.size());
                CryptoPP::StringSource ss(in.data(), in.size(), true,
                                          new CryptoPP::StreamTransformationFilter(
                                              e, new CryptoPP::StringSink(sink),
                                              CryptoPP::BlockPaddingSchemeDef::NO_PADDING));
            } else {
                typename CryptoPP::XTS<B>::Decryption d;
                d.SetKeyWithIV(c.key.data(), c.key.size(), c.iv.data(), c.iv.size());
                CryptoPP::StringSource ss(in.data(), in.size(), true,
                                          new CryptoPP::StreamTransformationFilter(
                                              d, new CryptoPP::StringSink(sink),
                                              CryptoPP::BlockPaddingSchemeDef::NO_PADDING));
            }
            r.ok = true;
            r.out.assign(sink.begin(), sink.end());
        }
    } catch (const CryptoPP::Exception &) {
        r = Result{};  // parameters it does not take: no comparison
    }
    return r;
}

Result cryptopp(const Ours &o, const Case &c, bool encrypt, const Bytes &in, const Bytes &tag_in)
{
    if (!(o.peers & CRYPTOPP)) return Result{};
    std::string p = o.peer;
    if (p == "AES") return cryptopp_with<CryptoPP::AES>(c, encrypt, in, tag_in);
    if (p == "ARIA") return cryptopp_with<CryptoPP::ARIA>(c, encrypt, in, tag_in);
    if (p == "LEA") return cryptopp_with<CryptoPP::LEA>(c, encrypt, in, tag_in);
    return Result{};
}

// ---- the case

Case decode(FuzzedDataProvider &fdp, size_t *which)
{
    Case c;
    *which = fdp.ConsumeIntegralInRange<size_t>(0, ours().size() - 1);
    c.mode = (Mode)fdp.ConsumeIntegralInRange<int>(0, NMODES - 1);
    c.key = fdp.ConsumeBytes<uint8_t>(c.mode == XTS ? 32 : 16);
    c.key.resize(c.mode == XTS ? 32 : 16);
    static const size_t gcm_tags[] = {16, 15, 14, 13, 12, 8, 4};
    switch (c.mode) {
    case GCM:
        c.iv.resize(fdp.ConsumeBool() ? 12 : fdp.ConsumeIntegralInRange<size_t>(1, 80));
        c.tag_len = gcm_tags[fdp.ConsumeIntegralInRange<size_t>(0, 6)];
        break;
    case CCM:
        c.iv.resize(fdp.ConsumeIntegralInRange<size_t>(7, 13));
        c.tag_len = 2 * fdp.ConsumeIntegralInRange<size_t>(2, 8);
        break;
    case XTS: c.iv.resize(16); break;
    default: c.tag_len = 16; break;
    }
    for (auto &b : c.iv) b = fdp.ConsumeIntegral<uint8_t>();
    if (c.mode == GCM || c.mode == CCM) c.aad = fdp.ConsumeBytes<uint8_t>(fdp.ConsumeIntegralInRange<size_t>(0, 300));
    size_t n = fdp.ConsumeIntegralInRange<size_t>(c.mode == XTS ? 16 : 0, 3000);
    c.tamper = fdp.ConsumeIntegralInRange<int>(0, 3);
    c.tamper_at = fdp.ConsumeIntegral<uint16_t>();
    size_t left = n;
    while (left > 0 && fdp.remaining_bytes() > 0) {
        size_t k = fdp.ConsumeIntegralInRange<size_t>(0, left);
        c.chunks.push_back(k);
        left -= k;
    }
    c.chunks.push_back(left);
    c.data = fdp.ConsumeRemainingBytes<uint8_t>();
    c.data.resize(n);
    return c;
}

bool refused(const Result &r) { return r.ok && r.tag.size() == 1 && r.tag[0] == 0xff && r.out.empty(); }

void check_peer(const Ours &o, const Case &c, const char *peer, const Result &got, const Bytes &ct, const Bytes &tag)
{
    if (!got.ok) return;
    if (c.mode != XTS && c.mode != CMAC && got.tag != tag)
        fail(o.name, c.mode, (std::string("tag differs from ") + peer).c_str());
    if (c.mode == CMAC && got.tag != tag) fail(o.name, c.mode, (std::string("CMAC differs from ") + peer).c_str());
    if (c.mode != CMAC && got.out != ct) fail(o.name, c.mode, (std::string("output differs from ") + peer).c_str());
}

void run(const Ours &o, Case &c)
{
    std::vector<uint8_t> ks(o.key_size() + 64), xk(o.xts_key_size() + 64);
    void *key = ks.data(), *xkey = xk.data();
    Buf ct(c.data.size()), back(c.data.size());
    Bytes tag(c.tag_len);
    const uint8_t *in = c.data.empty() ? ct.p() : c.data.data();
    if (c.mode == XTS) {
        bool equal = std::memcmp(c.key.data(), c.key.data() + 16, 16) == 0;
        int rc = o.xts_set_key(xkey, c.key.data(), 32);
        if (equal) {
            if (rc != CIPHERSPEC_ERR_PARAM) fail(o.name, c.mode, "equal key halves accepted");
            return;
        }
        if (rc != CIPHERSPEC_OK || o.xts_encrypt(xkey, c.iv.data(), in, ct.p(), c.data.size()) != CIPHERSPEC_OK
            || o.xts_decrypt(xkey, c.iv.data(), ct.p(), back.p(), c.data.size()) != CIPHERSPEC_OK)
            fail(o.name, c.mode, "a valid call was refused");
    } else {
        if (o.set_key(key, c.key.data(), 16) != CIPHERSPEC_OK) fail(o.name, c.mode, "set_key refused");
        if (c.mode == CMAC) {
            if (o.cmac(key, in, c.data.size(), tag.data(), c.tag_len) != CIPHERSPEC_OK) fail(o.name, c.mode, "refused");
        } else if (c.mode == GCM) {
            if (o.gcm_encrypt(key, c.iv.data(), c.iv.size(), P(c.aad), c.aad.size(), in, ct.p(), c.data.size(),
                              tag.data(), c.tag_len) != CIPHERSPEC_OK)
                fail(o.name, c.mode, "encrypt refused");
            // incremental over the chunking == one-shot
            std::vector<uint8_t> gs(o.gcm_size() + 64);
            Buf ct2(c.data.size());
            Bytes tag2(c.tag_len);
            size_t at = 0;
            if (o.gcm_init(gs.data(), key, c.iv.data(), c.iv.size()) != CIPHERSPEC_OK
                || o.gcm_aad(gs.data(), P(c.aad), c.aad.size()) != CIPHERSPEC_OK)
                fail(o.name, c.mode, "incremental init refused");
            for (size_t k : c.chunks) {
                if (o.gcm_encrypt_update(gs.data(), in + at, ct2.p() + at, k) != CIPHERSPEC_OK)
                    fail(o.name, c.mode, "incremental update refused");
                at += k;
            }
            if (o.gcm_finish(gs.data(), tag2.data(), c.tag_len) != CIPHERSPEC_OK) fail(o.name, c.mode, "finish refused");
            if (std::memcmp(ct.p(), ct2.p(), c.data.size()) != 0 || tag != tag2)
                fail(o.name, c.mode, "incremental differs from one-shot");
            if (o.gcm_decrypt(key, c.iv.data(), c.iv.size(), P(c.aad), c.aad.size(), ct.p(), back.p(),
                              c.data.size(), tag.data(), c.tag_len) != CIPHERSPEC_OK)
                fail(o.name, c.mode, "decrypt of our own output refused");
        } else {
            if (o.ccm_encrypt(key, c.iv.data(), c.iv.size(), P(c.aad), c.aad.size(), in, ct.p(), c.data.size(),
                              tag.data(), c.tag_len) != CIPHERSPEC_OK)
                fail(o.name, c.mode, "encrypt refused");
            if (o.ccm_decrypt(key, c.iv.data(), c.iv.size(), P(c.aad), c.aad.size(), ct.p(), back.p(),
                              c.data.size(), tag.data(), c.tag_len) != CIPHERSPEC_OK)
                fail(o.name, c.mode, "decrypt of our own output refused");
        }
    }
    if (c.mode != CMAC && std::memcmp(back.p(), in, c.data.size()) != 0) fail(o.name, c.mode, "decrypt != data");
    Bytes ctv(ct.p(), ct.p() + c.data.size());
    if (c.mode == GCM && std::getenv("CS_FUZZ_INJECT")) tag[0] ^= 1;  // the self-test: a wrong tag must be caught
    check_peer(o, c, "OpenSSL", openssl(o, c, true, c.data, {}), ctv, tag);
    check_peer(o, c, "libgcrypt", gcrypt(o, c, true, c.data, {}), ctv, tag);
    check_peer(o, c, "Crypto++", cryptopp(o, c, true, c.data, {}), ctv, tag);
    if (c.mode == XTS || c.mode == CMAC || c.tamper == 0) return;
    // a tampered message: ours refuses (zeroed output), and so does every peer that ran
    Case t = c;
    Bytes tct = ctv, ttag = tag;
    if (c.tamper == 1 && !tct.empty()) tct[c.tamper_at % tct.size()] ^= 1;
    else if (c.tamper == 2 && !t.aad.empty()) t.aad[c.tamper_at % t.aad.size()] ^= 1;
    else ttag[c.tamper_at % ttag.size()] ^= 1;
    Buf out(c.data.size());
    std::memset(out.p(), 0x5a, c.data.size());
    const uint8_t *tin = tct.empty() ? out.p() : tct.data();
    int rc = c.mode == GCM ? o.gcm_decrypt(key, t.iv.data(), t.iv.size(), P(t.aad), t.aad.size(), tin, out.p(),
                                           tct.size(), ttag.data(), ttag.size())
                           : o.ccm_decrypt(key, t.iv.data(), t.iv.size(), P(t.aad), t.aad.size(), tin, out.p(),
                                           tct.size(), ttag.data(), ttag.size());
    if (rc != CIPHERSPEC_ERR_AUTH) fail(o.name, c.mode, "a tampered message was accepted");
    for (size_t i = 0; i < tct.size(); i++)
        if (out.p()[i] != 0) fail(o.name, c.mode, "a refused decryption left output");
    const Result peers[] = {openssl(o, t, false, tct, ttag), gcrypt(o, t, false, tct, ttag),
                            cryptopp(o, t, false, tct, ttag)};
    for (const Result &p : peers)
        if (p.ok && !refused(p)) fail(o.name, c.mode, "a peer accepted the tampered message ours refused");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ours().empty()) return 0;
    FuzzedDataProvider fdp(data, size);
    size_t which;
    Case c = decode(fdp, &which);
    run(ours()[which], c);
    return 0;
}
