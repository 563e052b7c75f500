"""Target "c": a generated C library, already compiled for the host, called through ctypes.

    c = CCipher(module, schedule, lib_path)      # generator/c's Backend.load builds lib_path
    c.variants(), c.variant                                  # ["vaes_avx2", "aesni", "avx2", "sse2"], "vaes_avx2"
    c.with_isa("avx2")                                       # the same library, keys set up for another variant
    rk = c.expand_key(key)                                   # the C key struct (a ctypes array)
    c.encrypt_blocks(rk, blocks)                             # the library's ECB
    c.run_mode(rk, "ctr", "encrypt", data, iv)               # the library's own ECB/CBC/CTR
    c.crypt_into(rk, "ctr", "encrypt", buf, n, iv)           # the same in place on a writable buffer (streaming)

The binding itself (symbols, key set-up, the in-place modes, error codes) is runtime.c_library.CLibrary,
which the command line loads alone when it already knows the library; this class adds the cipher's
module and schedule and the bytes-in, bytes-out block API over numpy.  The C side never sees a bad IV
length (the C API takes the IV by pointer, so Python checks it first).
"""

from __future__ import annotations

import ctypes

import numpy as np

from cipherspec.blockcipher import as_blocks
from cipherspec.errors import UsageError
from cipherspec.modes import MODES

from .c_library import CLibrary, address


class CCipher(CLibrary):
    def __init__(self, module, schedule, lib_path, isa: str | None = None):
        """``schedule``: the generator's schedule value (its ``name`` is checked against the library)."""
        super().__init__(lib_path, module.cipher, module.block.nbytes, module.key.nbytes, schedule.name, isa)
        self.module, self.schedule = module, schedule

    def with_isa(self, isa: str | None) -> CCipher:
        return CCipher(self.module, self.schedule, self.lib_path, isa)

    def expand_key(self, key) -> ctypes.Array:
        """The C key struct (CLibrary.expand_key); ``key`` may also be one key as a uint8 array."""
        if not isinstance(key, (bytes, bytearray, memoryview)):
            key = np.ascontiguousarray(key, dtype=np.uint8)
            if key.ndim != 1:
                raise UsageError("the C target takes one key at a time (lane_keys is False)")
            key = key.tobytes()
        return super().expand_key(key)

    @staticmethod
    def _buffers(data, n: int) -> tuple[np.ndarray, np.ndarray]:
        src = np.empty(max(n, 1), np.uint8)
        if n:
            src[:n] = (
                np.frombuffer(data, np.uint8)
                if isinstance(data, (bytes, bytearray, memoryview))
                else np.asarray(data, np.uint8).reshape(-1)
            )
        return src, np.empty(max(n, 1), np.uint8)

    def _iv(self, iv) -> np.ndarray:
        if iv is None:
            raise UsageError(f"this mode needs an IV of {self.block_bytes} bytes")
        if len(iv) != self.block_bytes:
            raise UsageError(f"{self.name} needs a {self.block_bytes}-byte IV, got {len(iv)} bytes")
        return np.frombuffer(bytes(iv), np.uint8).copy()

    def _ecb(self, kind: str, rk: np.ndarray, blocks) -> np.ndarray:
        blocks = as_blocks(blocks, self.block_bytes)
        src, dst = self._buffers(blocks, blocks.size)
        self._check(self.fn[f"ecb_{kind}"](address(rk), address(src), address(dst), blocks.size), "ECB", blocks.size)
        return dst[: blocks.size].reshape(-1, self.block_bytes)

    def encrypt_blocks(self, rk, blocks) -> np.ndarray:
        return self._ecb("encrypt", rk, blocks)

    def decrypt_blocks(self, rk, blocks) -> np.ndarray:
        return self._ecb("decrypt", rk, blocks)

    def ctr(self, rk, iv, data) -> tuple[bytes, bytes]:
        """The library's CTR: (output, IV for the next call)."""
        ivb = self._iv(iv)
        n = len(data)
        src, dst = self._buffers(data, n)
        self._check(self.fn["ctr"](address(rk), address(ivb), address(src), address(dst), n), "CTR", n)
        return dst[:n].tobytes(), ivb.tobytes()

    def run_mode(self, rk, mode: str, direction: str, data, iv=None) -> bytes:
        if mode not in MODES:
            raise UsageError(f"unknown mode '{mode}' (modes: {', '.join(MODES)})")
        if direction not in ("encrypt", "decrypt"):
            raise UsageError(f"unknown direction '{direction}' (encrypt or decrypt)")
        if mode == "ctr":
            return self.ctr(rk, iv, data)[0]
        n = len(data)
        if mode == "ecb":
            src, dst = self._buffers(data, n)
            rc = self.fn[f"ecb_{direction}"](address(rk), address(src), address(dst), n)
        else:
            ivb = self._iv(iv)
            src, dst = self._buffers(data, n)
            rc = self.fn[f"cbc_{direction}"](address(rk), address(ivb), address(src), address(dst), n)
        self._check(rc, mode.upper(), n)
        return dst[:n].tobytes()
