"""libcrypto (OpenSSL 3) through ctypes: the handle with the EVP calls' signatures, and the error queue as text.

lib = libcrypto()            # one CDLL with argtypes/restype set for every call the runtime makes
errors(lib)                  # -> "error:1C800066:Provider routines::cipher operation failed; ..." (queue emptied)
"""

from __future__ import annotations

import ctypes

from toolchain.openssl import libcrypto_name

_P = ctypes.c_void_p
_INT = ctypes.c_int
CHUNK = 1 << 30  # EVP_CipherUpdate takes an int length

SIGNATURES = {
    "OSSL_LIB_CTX_new": ([], _P),
    "OSSL_LIB_CTX_free": ([_P], None),
    "OSSL_PROVIDER_load": ([_P, ctypes.c_char_p], _P),
    "OSSL_PROVIDER_unload": ([_P], _INT),
    "EVP_CIPHER_fetch": ([_P, ctypes.c_char_p, ctypes.c_char_p], _P),
    "EVP_CIPHER_free": ([_P], None),
    "EVP_CIPHER_CTX_new": ([], _P),
    "EVP_CIPHER_CTX_free": ([_P], None),
    "EVP_CipherInit_ex2": ([_P, _P, _P, _P, _INT, _P], _INT),
    "EVP_CIPHER_CTX_set_padding": ([_P, _INT], _INT),
    "EVP_CipherUpdate": ([_P, _P, ctypes.POINTER(_INT), _P, _INT], _INT),
    "EVP_CipherFinal_ex": ([_P, _P, ctypes.POINTER(_INT)], _INT),
    "EVP_CIPHER_CTX_ctrl": ([_P, _INT, _INT, _P], _INT),
    "ERR_get_error": ([], ctypes.c_ulong),
    "ERR_error_string_n": ([ctypes.c_ulong, ctypes.c_char_p, ctypes.c_size_t], None),
}


def libcrypto() -> ctypes.CDLL:
    lib = ctypes.CDLL(libcrypto_name())
    for fn, (args, res) in SIGNATURES.items():
        f = getattr(lib, fn)
        f.argtypes, f.restype = args, res
    return lib


def errors(lib) -> str:
    texts = []
    while code := lib.ERR_get_error():
        buf = ctypes.create_string_buffer(256)
        lib.ERR_error_string_n(code, buf, len(buf))
        texts.append(buf.value.decode(errors="replace"))
    return "; ".join(texts) or "no error queued"
