"""Target "c": a generated C library, already compiled for the host, called through ctypes.

    c = CCipher(module, schedule, lib_path)      # generator/c's Backend.load builds lib_path
    c.variants(), c.variant                                  # ["vaes_avx2", "aesni", "avx2", "sse2"], "vaes_avx2"
    c.with_isa("avx2")                                       # the same library, keys set up for another variant
    rk = c.expand_key(key)                                   # the C key struct, as a ctypes buffer
    c.encrypt_blocks(rk, blocks)                             # the library's ECB
    c.run_mode(rk, "ctr", "encrypt", data, iv)               # the library's own ECB/CBC/CTR
    c.crypt_into(rk, "ctr", "encrypt", buf, n, iv)           # the same in place on a uint8 array (streaming)

C error codes become UsageError with a clear message; the C side never sees a bad IV length
(the C API takes the IV by pointer, so Python checks it first).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from cipherspec.blockcipher import as_blocks
from cipherspec.errors import UsageError
from cipherspec.modes import MODES

from .c_abi import ERR_ISA, ERR_KEY_LENGTH, ERR_LENGTH, ERR_NULL

_P = ctypes.c_void_p
_SIZE = ctypes.c_size_t


def _ptr(arr: np.ndarray) -> int:
    return arr.ctypes.data


class CCipher:
    target = "c"
    lane_keys = False

    def __init__(self, module, schedule, lib_path, isa: str | None = None):
        """``schedule``: the generator's schedule value (its ``name`` is checked against the library);
        ``isa``: an ISA level for set_key_isa (None: the library's own choice, CIPHERSPEC_X86_ISA or the CPU's)."""
        self.isa = isa
        self.module = module
        self.schedule = schedule
        self.name = module.cipher
        self.block_bytes = module.block.nbytes
        self.key_bytes = module.key.nbytes
        self.lib_path = lib_path
        self.lib = ctypes.CDLL(str(lib_path))
        p = self.name
        sig = {
            "set_key_isa": [_P, _P, _SIZE, ctypes.c_char_p],
            "ecb_encrypt": [_P, _P, _P, _SIZE],
            "ecb_decrypt": [_P, _P, _P, _SIZE],
            "cbc_encrypt": [_P, _P, _P, _P, _SIZE],
            "cbc_decrypt": [_P, _P, _P, _P, _SIZE],
            "ctr": [_P, _P, _P, _P, _SIZE],
        }
        self.fn = {}
        for short, args in sig.items():
            f = getattr(self.lib, f"{p}_{short}")
            f.argtypes, f.restype = args, ctypes.c_int
            self.fn[short] = f
        queries: list[tuple[str, list[Any]]] = [
            ("variant", []),
            ("dispatch_error", []),
            ("variant_for", [ctypes.c_char_p]),
            ("variant_name", [ctypes.c_int]),
        ]
        for short, args in queries:
            f = getattr(self.lib, f"{p}_{short}")
            f.argtypes, f.restype = args, ctypes.c_char_p
            self.fn[short] = f
        key_size, schedule_name = getattr(self.lib, f"{p}_key_size"), getattr(self.lib, f"{p}_schedule_name")
        key_size.restype, key_size.argtypes = _SIZE, []
        schedule_name.restype, schedule_name.argtypes = ctypes.c_char_p, []
        self.key_struct_bytes = key_size()
        built = schedule_name().decode()
        if built != schedule.name:
            raise RuntimeError(f"{lib_path} was built for {built}, not {schedule.name}")

    def variants(self) -> list[str]:
        """Every kernel variant compiled into the library, best first."""
        out, i = [], 0
        while (name := self.fn["variant_name"](i)) is not None:
            out.append(name.decode())
            i += 1
        return out

    def variant_for(self, isa: str) -> str | None:
        """The variant an ISA level picks on this CPU; None when the CPU lacks the level (or it is no level)."""
        v = self.fn["variant_for"](isa.encode())
        return v.decode() if v is not None else None

    @property
    def variant(self) -> str | None:
        """The variant this object's keys use: ``isa``'s pick, or the library's default choice."""
        v = self.fn["variant_for"](self.isa.encode()) if self.isa else self.fn["variant"]()
        return v.decode() if v is not None else None

    def with_isa(self, isa: str | None) -> "CCipher":
        return CCipher(self.module, self.schedule, self.lib_path, isa)

    def _check(self, rc: int, what: str, nbytes: int = 0) -> None:
        if rc == 0:
            return
        if rc == ERR_LENGTH:
            raise UsageError(
                f"{what}: input is {nbytes} bytes, not a multiple of the {self.block_bytes}-byte block "
                "(ECB and CBC take whole blocks; pad first or use CTR)"
            )
        if rc == ERR_KEY_LENGTH:
            raise UsageError(f"{self.name} needs a {self.key_bytes}-byte key, got {nbytes} bytes")
        if rc == ERR_NULL:
            raise UsageError(f"{what}: a NULL buffer reached the C library")
        if rc == ERR_ISA:
            if self.isa:
                raise UsageError(
                    f"{self.name}: ISA level '{self.isa}' cannot run here (unknown level, or this CPU "
                    f"lacks it; this CPU runs: {', '.join(self._runnable()) or 'nothing'})"
                )
            raise UsageError(f"{self.name}: CIPHERSPEC_X86_ISA: {self.fn['dispatch_error']().decode()}")
        raise RuntimeError(f"{what}: the C library returned {rc}")

    def check_key(self, key: bytes) -> None:
        if len(key) != self.key_bytes:
            raise UsageError(f"{self.name} needs a {self.key_bytes}-byte key, got {len(key)} bytes")

    def expand_key(self, key) -> np.ndarray:
        """The C key struct filled by <cipher>_set_key, held in a uint8 array."""
        if not isinstance(key, (bytes, bytearray, memoryview)):
            key = np.ascontiguousarray(key, dtype=np.uint8)
            if key.ndim != 1:
                raise UsageError("the C target takes one key at a time (lane_keys is False)")
            key = key.tobytes()
        kb = np.frombuffer(bytes(key) + b"\0", np.uint8)  # +1: never a zero-size buffer
        ks = np.zeros(self.key_struct_bytes + 64, np.uint8)  # slack: the struct's alignment
        off = (-_ptr(ks)) % 64
        ks = ks[off : off + self.key_struct_bytes]
        isa = self.isa.encode() if self.isa else None
        self._check(self.fn["set_key_isa"](_ptr(ks), _ptr(kb), len(key), isa), "set_key", len(key))
        return ks

    def _runnable(self) -> list[str]:
        return [v for v in self.variants() if self.variant_for(v) == v]

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
        self._check(self.fn[f"ecb_{kind}"](_ptr(rk), _ptr(src), _ptr(dst), blocks.size), "ECB", blocks.size)
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
        self._check(self.fn["ctr"](_ptr(rk), _ptr(ivb), _ptr(src), _ptr(dst), n), "CTR", n)
        return dst[:n].tobytes(), ivb.tobytes()

    def crypt_into(self, rk, mode: str, direction: str, buf: np.ndarray, n: int, iv: np.ndarray | None = None) -> None:
        """The library's ECB/CBC/CTR over buf[:n] in place (a contiguous uint8 array; no copies): what
        cipherspec.chunked streams with.  CTR advances ``iv`` (a uint8 array) to the next counter, as the
        C function does; CBC leaves it (the caller chains)."""
        p = _ptr(buf)
        if mode == "ctr":
            assert iv is not None  # chunked passes one for every mode but ECB
            rc = self.fn["ctr"](_ptr(rk), _ptr(iv), p, p, n)
        elif mode == "cbc":
            assert iv is not None
            rc = self.fn[f"cbc_{direction}"](_ptr(rk), _ptr(iv), p, p, n)
        else:
            rc = self.fn[f"ecb_{direction}"](_ptr(rk), p, p, n)
        self._check(rc, mode.upper(), n)

    def make_drbg(self, **kwargs):
        """The library's own CTR_DRBG (same interface as cipherspec.drbg.CtrDrbg)."""
        from .c_drbg import CDrbg

        return CDrbg(self, **kwargs)

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
            rc = self.fn[f"ecb_{direction}"](_ptr(rk), _ptr(src), _ptr(dst), n)
        else:
            ivb = self._iv(iv)
            src, dst = self._buffers(data, n)
            rc = self.fn[f"cbc_{direction}"](_ptr(rk), _ptr(ivb), _ptr(src), _ptr(dst), n)
        self._check(rc, mode.upper(), n)
        return dst[:n].tobytes()
