"""Target "openssl-provider": a built provider module, called through OpenSSL 3's EVP API (ctypes).

    c = OsslCipher(module, schedule, provider_so, {"ecb": "LEA-128-ECB", "cbc": ..., "ctr": ...})
    rk = c.expand_key(key)                              # the key itself (EVP expands it per context)
    c.encrypt_blocks(rk, blocks)                        # EVP ECB, padding off
    c.run_mode(rk, "cbc", "encrypt", data, iv)          # EVP ECB/CBC (padding off: whole blocks) / CTR

Each cipher object has its own OSSL_LIB_CTX with only this provider loaded, and fetches with
"provider=cipherspec", so nothing else can answer.  An EVP failure becomes UsageError (bad input the
provider refused) carrying OpenSSL's error-queue text.
"""

from __future__ import annotations

import ctypes

import numpy as np

from cipherspec.blockcipher import as_blocks
from cipherspec.errors import UsageError
from cipherspec.modes import MODES

from .libcrypto import CHUNK, errors, libcrypto
from .openssl_aead import aead_evp


class OsslCipher:
    target = "openssl-provider"
    lane_keys = False

    def __init__(self, module, schedule, provider_path, algorithms: dict[str, str]):
        self.module = module
        self.schedule = schedule
        self.name = module.cipher
        self.block_bytes = module.block.nbytes
        self.key_bytes = module.key.nbytes
        self.algorithms = dict(algorithms)
        self.lib = lib = libcrypto()
        self._libctx = lib.OSSL_LIB_CTX_new()
        # an absolute path is taken as the module's file name
        self._provider = lib.OSSL_PROVIDER_load(self._libctx, str(provider_path).encode())
        if not self._provider:
            raise RuntimeError(f"OpenSSL cannot load the provider {provider_path}: {errors(lib)}")
        self._ciphers = {}
        for mode, alg in self.algorithms.items():
            c = lib.EVP_CIPHER_fetch(self._libctx, alg.encode(), b"provider=cipherspec")
            if not c:
                raise RuntimeError(f"the provider {provider_path} has no {alg}: {errors(lib)}")
            self._ciphers[mode] = c

    def __del__(self):
        lib = getattr(self, "lib", None)
        if lib is None:
            return
        for c in getattr(self, "_ciphers", {}).values():
            lib.EVP_CIPHER_free(c)
        if getattr(self, "_provider", None):
            lib.OSSL_PROVIDER_unload(self._provider)
        if getattr(self, "_libctx", None):
            lib.OSSL_LIB_CTX_free(self._libctx)

    def check_key(self, key: bytes) -> None:
        if len(key) != self.key_bytes:
            raise UsageError(f"{self.name} needs a {self.key_bytes}-byte key, got {len(key)} bytes")

    def expand_key(self, key) -> bytes:
        if not isinstance(key, (bytes, bytearray, memoryview)):
            key = np.ascontiguousarray(key, dtype=np.uint8)
            if key.ndim != 1:
                raise UsageError("the openssl-provider target takes one key at a time (lane_keys is False)")
        key = bytes(key)
        self.check_key(key)
        return key

    def evp(self, mode: str, encrypt: bool, key: bytes, iv: bytes | None, data: bytes, pad: bool = False) -> bytes:
        """One EVP operation: init, updates, final; padding off unless ``pad`` (ECB/CBC)."""
        lib = self.lib
        ctx = lib.EVP_CIPHER_CTX_new()
        if not ctx:
            raise MemoryError("EVP_CIPHER_CTX_new failed")
        try:
            kb = ctypes.create_string_buffer(bytes(key), len(key) or 1)
            ivb = ctypes.create_string_buffer(bytes(iv), len(iv)) if iv is not None else None
            if not lib.EVP_CipherInit_ex2(
                ctx, self._ciphers[mode], kb, ivb, int(encrypt), None
            ) or not lib.EVP_CIPHER_CTX_set_padding(ctx, int(pad)):
                raise UsageError(f"{self.algorithms[mode]}: init failed: {errors(lib)}")
            out = bytearray()
            n = ctypes.c_int(0)
            for i in range(0, len(data), CHUNK):
                part = bytes(data[i : i + CHUNK])
                buf = ctypes.create_string_buffer(len(part) + self.block_bytes)
                if not lib.EVP_CipherUpdate(ctx, buf, ctypes.byref(n), part, len(part)):
                    raise UsageError(f"{self.algorithms[mode]}: update failed: {errors(lib)}")
                out += buf.raw[: n.value]
            buf = ctypes.create_string_buffer(self.block_bytes)
            if not lib.EVP_CipherFinal_ex(ctx, buf, ctypes.byref(n)):
                raise UsageError(f"{self.algorithms[mode]}: final failed: {errors(lib)}")
            return bytes(out + buf.raw[: n.value])
        finally:
            lib.EVP_CIPHER_CTX_free(ctx)

    def _iv(self, iv) -> bytes:
        if iv is None:
            raise UsageError(f"this mode needs an IV of {self.block_bytes} bytes")
        if len(iv) != self.block_bytes:
            raise UsageError(f"{self.name} needs a {self.block_bytes}-byte IV, got {len(iv)} bytes")
        return bytes(iv)

    def _ecb(self, encrypt: bool, rk: bytes, blocks) -> np.ndarray:
        blocks = as_blocks(blocks, self.block_bytes)
        out = self.evp("ecb", encrypt, rk, None, blocks.tobytes())
        return np.frombuffer(out, np.uint8).reshape(-1, self.block_bytes).copy()

    def encrypt_blocks(self, rk, blocks) -> np.ndarray:
        return self._ecb(True, rk, blocks)

    def decrypt_blocks(self, rk, blocks) -> np.ndarray:
        return self._ecb(False, rk, blocks)

    def run_mode(self, rk, mode: str, direction: str, data, iv=None) -> bytes:
        if mode not in MODES:
            raise UsageError(f"unknown mode '{mode}' (modes: {', '.join(MODES)})")
        if direction not in ("encrypt", "decrypt"):
            raise UsageError(f"unknown direction '{direction}' (encrypt or decrypt)")
        data = bytes(data)
        if mode != "ctr" and len(data) % self.block_bytes:
            raise UsageError(
                f"{mode.upper()}: input is {len(data)} bytes, not a multiple of the "
                f"{self.block_bytes}-byte block (ECB and CBC take whole blocks; pad first or use CTR)"
            )
        return self.evp(mode, direction == "encrypt", rk, None if mode == "ecb" else self._iv(iv), data)

    # ---- GCM, CCM, XTS (128-bit blocks): the names and signatures of cipherspec.aead, through EVP

    def _aead(self, mode: str, encrypt: bool, key: bytes, iv: bytes, **kw) -> tuple[bytes, bytes]:
        if mode not in self._ciphers:
            raise UsageError(f"{mode.upper()} needs a 128-bit block; {self.name} has {8 * self.block_bytes} bits")
        return aead_evp(self.lib, self._ciphers[mode], mode, encrypt, key, iv, name=self.algorithms[mode], **kw)

    def gcm_encrypt(self, rk, iv: bytes, aad: bytes, data: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
        return self._aead("gcm", True, rk, iv, aad=aad, data=data, tag_len=tag_len)

    def gcm_decrypt(self, rk, iv: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
        return self._aead("gcm", False, rk, iv, aad=aad, data=data, tag=tag)[0]

    def ccm_encrypt(self, rk, nonce: bytes, aad: bytes, data: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
        return self._aead("ccm", True, rk, nonce, aad=aad, data=data, tag_len=tag_len)

    def ccm_decrypt(self, rk, nonce: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
        return self._aead("ccm", False, rk, nonce, aad=aad, data=data, tag=tag)[0]

    def xts_encrypt(self, key: bytes, tweak: bytes, data: bytes) -> bytes:
        return self._aead("xts", True, key, tweak, data=data)[0]

    def xts_decrypt(self, key: bytes, tweak: bytes, data: bytes) -> bytes:
        return self._aead("xts", False, key, tweak, data=data)[0]
