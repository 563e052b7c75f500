"""A built C cipher library bound through ctypes, and nothing else: no numpy, no IR, no generator.

What the streaming command needs from the library, with the few facts it needs about the cipher
(name, block and key size, the schedule it was built for) given by the caller, so that loading it costs
a dlopen and a dozen symbol look-ups.  runtime.c_target.CCipher adds the block API over numpy on top.

    lib = CLibrary(path, "lea128", block_bytes=16, key_bytes=16, schedule_name="lea128_c_sliced_v32")
    rk = lib.expand_key(key)                              # the C key struct (a 64-byte aligned ctypes array)
    buf = bytearray(n + 16); iv = bytearray(iv16)
    lib.crypt_into(rk, "ctr", "encrypt", buf, n, iv)      # in place; CTR advances iv
    lib.variants(), lib.variant, lib.with_isa("avx2")
    lib.gcm_encrypt(rk, iv, aad, data), lib.gcm_stream(rk, iv, "decrypt"), lib.cmac(rk, msg), ...  (c_aead.py)

Buffers are anything writable with the buffer protocol (bytearray, memoryview, a numpy array): the C
functions get their address, with no copy.  C error codes become UsageError with a clear message.
"""

from __future__ import annotations

import ctypes

from cipherspec.errors import UsageError

from .c_abi import ERR_ISA, ERR_KEY_LENGTH, ERR_LENGTH, ERR_NULL
from .c_aead import CAead

_P = ctypes.c_void_p
_SIZE = ctypes.c_size_t
KEY_ALIGN = 64  # the key struct's alignment (AVX-512 loads of round keys)
SIGNATURES = {
    "set_key_isa": ([_P, _P, _SIZE, ctypes.c_char_p], ctypes.c_int),
    "ecb_encrypt": ([_P, _P, _P, _SIZE], ctypes.c_int),
    "ecb_decrypt": ([_P, _P, _P, _SIZE], ctypes.c_int),
    "cbc_encrypt": ([_P, _P, _P, _P, _SIZE], ctypes.c_int),
    "cbc_decrypt": ([_P, _P, _P, _P, _SIZE], ctypes.c_int),
    "ctr": ([_P, _P, _P, _P, _SIZE], ctypes.c_int),
    "variant": ([], ctypes.c_char_p),
    "dispatch_error": ([], ctypes.c_char_p),
    "variant_for": ([ctypes.c_char_p], ctypes.c_char_p),
    "variant_name": ([ctypes.c_int], ctypes.c_char_p),
    "key_size": ([], _SIZE),
    "schedule_name": ([], ctypes.c_char_p),
}


def address(buf) -> int:
    """The address of a writable buffer's first byte (a ctypes array, bytearray, memoryview, numpy array)."""
    if isinstance(buf, ctypes.Array):
        return ctypes.addressof(buf)
    return ctypes.addressof(ctypes.c_char.from_buffer(buf))


class CLibrary(CAead):
    """The block modes here; GCM/GMAC, CCM, XTS and CMAC from CAead (runtime/c_aead.py)."""

    target = "c"
    lane_keys = False

    def __init__(
        self, lib_path, name: str, block_bytes: int, key_bytes: int, schedule_name: str, isa: str | None = None
    ):
        """``schedule_name`` is checked against the library's own; ``isa``: an ISA level for set_key_isa
        (None: the library's own choice, CIPHERSPEC_X86_ISA or the CPU's)."""
        self.name, self.block_bytes, self.key_bytes = name, block_bytes, key_bytes
        self.schedule_name, self.isa, self.lib_path = schedule_name, isa, lib_path
        self.lib = ctypes.CDLL(str(lib_path))
        self.fn = {}
        for short, (args, result) in SIGNATURES.items():
            f = getattr(self.lib, f"{name}_{short}")
            f.argtypes, f.restype = args, result
            self.fn[short] = f
        self.key_struct_bytes = self.fn["key_size"]()
        built = self.fn["schedule_name"]().decode()
        if built != schedule_name:
            raise RuntimeError(f"{lib_path} was built for {built}, not {schedule_name}")

    def with_isa(self, isa: str | None) -> CLibrary:
        return CLibrary(self.lib_path, self.name, self.block_bytes, self.key_bytes, self.schedule_name, isa)

    # ------------------------------------------------------------------------------ variants (x86 dispatch)
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

    def _runnable(self) -> list[str]:
        return [v for v in self.variants() if self.variant_for(v) == v]

    # ------------------------------------------------------------------------------ keys and modes
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

    def expand_key(self, key) -> ctypes.Array:
        """The C key struct filled by <cipher>_set_key_isa: a ctypes array, 64-byte aligned, over a bytearray."""
        key = bytes(key)
        kb = ctypes.create_string_buffer(key, len(key) + 1)  # +1: never a zero-size buffer
        raw = bytearray(self.key_struct_bytes + KEY_ALIGN)
        off = -address(raw) % KEY_ALIGN
        ks = (ctypes.c_char * self.key_struct_bytes).from_buffer(raw, off)
        isa = self.isa.encode() if self.isa else None
        self._check(self.fn["set_key_isa"](ks, kb, len(key), isa), "set_key", len(key))
        return ks

    def crypt_into(self, rk, mode: str, direction: str, buf, n: int, iv=None) -> None:
        """The library's ECB/CBC/CTR over buf[:n] in place (a writable buffer; no copies): what
        cipherspec.chunked streams with.  CTR advances ``iv`` (a writable buffer) to the next counter, as
        the C function does; CBC leaves it (the caller chains)."""
        if memoryview(buf).nbytes < n:
            raise UsageError(f"{mode.upper()}: a buffer of {memoryview(buf).nbytes} bytes cannot hold {n}")
        if iv is not None and memoryview(iv).nbytes != self.block_bytes:  # the C side reads one block
            raise UsageError(f"{self.name} needs a {self.block_bytes}-byte IV, got {memoryview(iv).nbytes} bytes")
        p, k = address(buf), address(rk)
        if mode == "ctr":
            assert iv is not None  # chunked passes one for every mode but ECB
            rc = self.fn["ctr"](k, address(iv), p, p, n)
        elif mode == "cbc":
            assert iv is not None
            rc = self.fn[f"cbc_{direction}"](k, address(iv), p, p, n)
        else:
            rc = self.fn[f"ecb_{direction}"](k, p, p, n)
        self._check(rc, mode.upper(), n)

    def make_drbg(self, **kwargs):
        """The library's own CTR_DRBG (same interface as cipherspec.drbg.CtrDrbg)."""
        from .c_drbg import CDrbg

        return CDrbg(self, **kwargs)
