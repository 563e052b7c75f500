"""GCM, CCM and XTS through OpenSSL 3's EVP API (ctypes; the handle from runtime.libcrypto): one message per call, as applications drive it.

The provider target's AEAD methods (runtime/openssl_target.OsslCipher) and the tests that hold our provider
against OpenSSL's own ciphers both run through ``aead_evp``, so the two sides are driven identically:

    aead_evp(lib, cipher, "gcm", True, key, iv, aad=b"hdr", data=b"...", tag_len=16)   -> (ciphertext, tag)
    aead_evp(lib, cipher, "gcm", False, key, iv, aad=b"hdr", data=ct, tag=tag)         -> (plaintext, b"")
    aead_evp(lib, cipher, "xts", True, key1 + key2, tweak, data=sector)                 -> (ciphertext, b"")

The calls are OpenSSL's documented AEAD sequence: init with the cipher, set the IV length (GCM, CCM) and,
for CCM, the tag (its length when encrypting), init with key and IV, CCM's total length, the AAD as an
update without output, the data, final, and the tag from the context.  A tag that does not verify raises
AuthenticationError; any other refusal raises UsageError with OpenSSL's error text.
"""

from __future__ import annotations

import ctypes

from cipherspec.errors import AuthenticationError, UsageError

from .libcrypto import errors

_INT = ctypes.c_int
EVP_CTRL_AEAD_SET_IVLEN = 0x9
EVP_CTRL_AEAD_GET_TAG = 0x10
EVP_CTRL_AEAD_SET_TAG = 0x11


def aead_evp(
    lib,
    cipher,
    mode: str,
    encrypt: bool,
    key: bytes,
    iv: bytes,
    aad: bytes = b"",
    data: bytes = b"",
    tag: bytes | None = None,
    tag_len: int = 16,
    name: str = "",
) -> tuple[bytes, bytes]:
    """One message through EVP; (output, tag) -- the tag only when encrypting under GCM or CCM."""
    what = name or mode.upper()
    ctx = lib.EVP_CIPHER_CTX_new()
    if not ctx:
        raise MemoryError("EVP_CIPHER_CTX_new failed")
    n = _INT(0)
    try:

        def check(ok, step: str) -> None:
            if not ok:
                raise UsageError(f"{what}: {step} failed: {errors(lib)}")

        check(lib.EVP_CipherInit_ex2(ctx, cipher, None, None, int(encrypt), None), "init")
        if mode in ("gcm", "ccm"):
            check(lib.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, len(iv), None) > 0, "IV length")
        if mode == "ccm":
            if encrypt:
                check(lib.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, tag_len, None) > 0, "tag length")
            else:
                t = ctypes.create_string_buffer(bytes(tag or b""), max(len(tag or b""), 1))
                check(lib.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, len(tag or b""), t) > 0, "tag")
        kb = ctypes.create_string_buffer(bytes(key), max(len(key), 1))
        ivb = ctypes.create_string_buffer(bytes(iv), max(len(iv), 1))
        check(lib.EVP_CipherInit_ex2(ctx, None, kb, ivb, -1, None), "key and IV")
        if mode == "ccm":
            check(lib.EVP_CipherUpdate(ctx, None, ctypes.byref(n), None, len(data)), "length")
        if aad or mode == "ccm":
            a = ctypes.create_string_buffer(bytes(aad), max(len(aad), 1))
            check(lib.EVP_CipherUpdate(ctx, None, ctypes.byref(n), a, len(aad)), "AAD")
        out = ctypes.create_string_buffer(max(len(data), 1) + 16)
        src = ctypes.create_string_buffer(bytes(data), max(len(data), 1))
        produced = 0
        if data or mode == "ccm":
            ok = lib.EVP_CipherUpdate(ctx, out, ctypes.byref(n), src, len(data))
            if not ok and mode == "ccm" and not encrypt:
                errors(lib)
                raise AuthenticationError()
            check(ok, "update")
            produced = n.value
        if mode == "gcm" and not encrypt:
            t = ctypes.create_string_buffer(bytes(tag or b""), max(len(tag or b""), 1))
            check(lib.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, len(tag or b""), t) > 0, "tag")
        tail = ctypes.create_string_buffer(32)
        if not lib.EVP_CipherFinal_ex(ctx, tail, ctypes.byref(n)):
            if mode == "gcm" and not encrypt:
                errors(lib)
                raise AuthenticationError()
            check(False, "final")
        result = out.raw[:produced] + tail.raw[: n.value]
        tag_out = b""
        if encrypt and mode in ("gcm", "ccm"):
            tb = ctypes.create_string_buffer(16)
            check(lib.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, tag_len, tb) > 0, "get tag")
            tag_out = tb.raw[:tag_len]
        return result, tag_out
    finally:
        lib.EVP_CIPHER_CTX_free(ctx)
