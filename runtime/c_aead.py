"""The C library's authenticated and storage modes through ctypes: GCM/GMAC, CCM, XTS, CMAC.

A mixin of runtime.c_library.CLibrary (so of CCipher): the methods have the names and arguments of the
oracle's functions in cipherspec.aead (minus the cipher), and raise the same errors: UsageError naming
the one bad parameter (checked here, before the C call, with the oracle's wording), AuthenticationError
for a wrong tag (the C side zeroes its output; nothing is returned).

    ct, tag = c.gcm_encrypt(rk, iv, aad, data, tag_len=16);  pt = c.gcm_decrypt(rk, iv, aad, ct, tag)
    tag = c.gmac(rk, iv, aad);  ct, tag = c.ccm_encrypt(rk, nonce, aad, data, tag_len=16)
    ct = c.xts_encrypt(key1 + key2, tweak, data);  tag = c.cmac(rk, msg, tag_len=None)
    s = c.gcm_stream(rk, iv, "encrypt"); s.aad(a); s.update(p) ...; s.finish_encrypt(16)
    m = c.cmac_stream(rk); m.update(msg); m.finish()
    c.ghash_variant                                         # "vpclmul_avx512", ..., "portable"
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from cipherspec.errors import AuthenticationError, UsageError

from .c_abi import ERR_AUTH, ERR_PARAM

_P = ctypes.c_void_p
_IN = ctypes.c_char_p  # read-only input: bytes passed without a copy (never NULL, even when empty)
_SIZE = ctypes.c_size_t
_INT = ctypes.c_int
AEAD_SIGNATURES = {
    "gcm_encrypt": [_P, _IN, _SIZE, _IN, _SIZE, _IN, _P, _SIZE, _P, _SIZE],
    "gcm_decrypt": [_P, _IN, _SIZE, _IN, _SIZE, _IN, _P, _SIZE, _IN, _SIZE],
    "gmac": [_P, _IN, _SIZE, _IN, _SIZE, _P, _SIZE],
    "gcm_init": [_P, _P, _IN, _SIZE],
    "gcm_aad": [_P, _IN, _SIZE],
    "gcm_encrypt_update": [_P, _IN, _P, _SIZE],
    "gcm_decrypt_update": [_P, _IN, _P, _SIZE],
    "gcm_finish": [_P, _P, _SIZE],
    "gcm_verify": [_P, _IN, _SIZE],
    "gcm_size": [],
    "gcm_key_init": [_P, _P],
    "gcm_init_key": [_P, _P, _IN, _SIZE],
    "gcm_key_size": [],
    "ccm_encrypt": [_P, _IN, _SIZE, _IN, _SIZE, _IN, _P, _SIZE, _P, _SIZE],
    "ccm_decrypt": [_P, _IN, _SIZE, _IN, _SIZE, _IN, _P, _SIZE, _IN, _SIZE],
    "xts_set_key_isa": [_P, _IN, _SIZE, ctypes.c_char_p],
    "xts_encrypt": [_P, _IN, _IN, _P, _SIZE],
    "xts_decrypt": [_P, _IN, _IN, _P, _SIZE],
    "xts_key_size": [],
    "ghash_variant": [],
    "ghash_variant_for": [ctypes.c_char_p],
    "cmac": [_P, _IN, _SIZE, _P, _SIZE],
    "cmac_init": [_P, _P],
    "cmac_update": [_P, _IN, _SIZE],
    "cmac_final": [_P, _P, _SIZE],
    "cmac_ctx_size": [],
}
_RESULT: dict[str, type] = {"gcm_size": _SIZE, "gcm_key_size": _SIZE, "xts_key_size": _SIZE, "cmac_ctx_size": _SIZE}
_RESULT.update(ghash_variant=ctypes.c_char_p, ghash_variant_for=ctypes.c_char_p)

GCM_TAGS = (16, 15, 14, 13, 12, 8, 4)  # SP 800-38D 5.2.1.2
GCM_MAX_DATA = (2**39 - 256) // 8
GCM_MAX_AAD = (2**64 - 1) // 8
CCM_TAGS = (4, 6, 8, 10, 12, 14, 16)
XTS_MAX_BLOCKS = 1 << 20
CTX_ALIGN = 64


def _tag_list(lengths) -> str:
    return ", ".join(str(n) for n in lengths[:-1]) + f" or {lengths[-1]}"


def _check_tag(mode: str, n: int, allowed) -> None:
    if n not in allowed:
        raise UsageError(f"{mode}: a tag is {_tag_list(allowed)} bytes, got {n}")


def _aligned(nbytes: int) -> ctypes.Array:
    """A zeroed, 64-byte aligned ctypes byte array (a C context or key struct)."""
    raw = bytearray(nbytes + CTX_ALIGN)
    off = -ctypes.addressof(ctypes.c_char.from_buffer(raw)) % CTX_ALIGN
    return (ctypes.c_char * nbytes).from_buffer(raw, off)


def _out(n: int) -> ctypes.Array:
    return ctypes.create_string_buffer(max(n, 1))


class CAead:
    """The mixin: needs ``lib``, ``name``, ``block_bytes``, ``key_bytes``, ``isa`` and ``_check``."""

    lib: ctypes.CDLL
    name: str
    block_bytes: int
    key_bytes: int
    isa: str | None
    _check: Callable[..., None]

    def _aead(self, short: str, mode: str):
        cache = self.__dict__.setdefault("_aead_fns", {})
        f = cache.get(short)
        if f is None:
            try:
                f = getattr(self.lib, f"{self.name}_{short}")
            except AttributeError:
                raise UsageError(
                    f"{mode} needs a 128-bit block; {self.name} has a {8 * self.block_bytes}-bit block"
                ) from None
            f.argtypes, f.restype = AEAD_SIGNATURES[short], _RESULT.get(short, _INT)
            cache[short] = f
        return f

    def _rc(self, rc: int, mode: str) -> None:
        if rc == ERR_AUTH:
            raise AuthenticationError()
        if rc == ERR_PARAM:  # the checks above name the parameter; this is a limit the C side found
            raise UsageError(f"{mode}: a length or parameter is out of the mode's range")
        self._check(rc, mode)

    @property
    def ghash_variant(self) -> str | None:
        """The GHASH variant this object's keys use (``isa``'s pick, or the library's default)."""
        v = (
            self._aead("ghash_variant_for", "GCM")(self.isa.encode())
            if self.isa
            else self._aead("ghash_variant", "GCM")()
        )
        return v.decode() if v is not None else None

    # ------------------------------------------------------------------------------ GCM, GMAC and CCM
    def _seal(self, mode: str, rk, nonce: bytes, aad: bytes, data: bytes, tag_len: int) -> tuple[bytes, bytes]:
        """<P>_gcm_encrypt / <P>_ccm_encrypt (same arguments): (ciphertext, tag)."""
        out, tag = _out(len(data)), _out(16)
        f = self._aead(f"{mode.lower()}_encrypt", mode)
        self._rc(f(rk, nonce, len(nonce), aad, len(aad), data, out, len(data), tag, tag_len), mode)
        return out.raw[: len(data)], tag.raw[:tag_len]

    def _open(self, mode: str, rk, nonce: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
        """<P>_gcm_decrypt / <P>_ccm_decrypt: the plaintext, or AuthenticationError (the C side zeroes it)."""
        out = _out(len(data))
        f = self._aead(f"{mode.lower()}_decrypt", mode)
        self._rc(f(rk, nonce, len(nonce), aad, len(aad), data, out, len(data), tag, len(tag)), mode)
        return out.raw[: len(data)]

    @staticmethod
    def _check_iv(iv: bytes) -> None:
        if not iv:
            raise UsageError("GCM: the IV is empty")

    @classmethod
    def _check_gcm(cls, iv: bytes, data_len: int, tag_len: int) -> None:
        _check_tag("GCM", tag_len, GCM_TAGS)
        cls._check_iv(iv)
        if data_len > GCM_MAX_DATA:
            raise UsageError(f"GCM: the data is longer than 2^39 - 256 bits ({GCM_MAX_DATA} bytes)")

    def gcm_encrypt(self, rk, iv, aad, data, tag_len: int = 16) -> tuple[bytes, bytes]:
        iv, aad, data = bytes(iv), bytes(aad), bytes(data)
        self._check_gcm(iv, len(data), tag_len)
        return self._seal("GCM", rk, iv, aad, data, tag_len)

    def gcm_decrypt(self, rk, iv, aad, data, tag) -> bytes:
        iv, aad, data, tag = bytes(iv), bytes(aad), bytes(data), bytes(tag)
        self._check_gcm(iv, len(data), len(tag))
        return self._open("GCM", rk, iv, aad, data, tag)

    def gmac(self, rk, iv, aad, tag_len: int = 16) -> bytes:
        iv, aad = bytes(iv), bytes(aad)
        self._check_gcm(iv, 0, tag_len)
        tag = _out(16)
        self._rc(self._aead("gmac", "GMAC")(rk, iv, len(iv), aad, len(aad), tag, tag_len), "GMAC")
        return tag.raw[:tag_len]

    def gcm_stream(self, rk, iv, direction: str, gcm_key=None) -> CGcmStream:
        """An incremental GCM message; with gcm_key (from gcm_key(rk)) it starts from the key's cached
        H powers (<P>_gcm_init_key) instead of deriving them (<P>_gcm_init)."""
        return CGcmStream(self, rk, bytes(iv), direction, gcm_key)

    def gcm_key(self, rk) -> ctypes.Array:
        """<P>_gcm_key for rk: H and its powers, once per key (rk must outlive it)."""
        gk = _aligned(self._aead("gcm_key_size", "GCM")())
        self._rc(self._aead("gcm_key_init", "GCM")(gk, rk), "GCM")
        return gk

    @staticmethod
    def _check_ccm(nonce: bytes, data_len: int, tag_len: int) -> None:
        if not 7 <= len(nonce) <= 13:
            raise UsageError(f"CCM: the nonce is 7 to 13 bytes, got {len(nonce)}")
        _check_tag("CCM", tag_len, CCM_TAGS)
        limit = 2 ** (8 * (15 - len(nonce))) - 1
        if data_len > limit:
            raise UsageError(f"CCM: a {len(nonce)}-byte nonce allows at most {limit} bytes of data, got {data_len}")

    def ccm_encrypt(self, rk, nonce, aad, data, tag_len: int = 16) -> tuple[bytes, bytes]:
        nonce, aad, data = bytes(nonce), bytes(aad), bytes(data)
        self._check_ccm(nonce, len(data), tag_len)
        return self._seal("CCM", rk, nonce, aad, data, tag_len)

    def ccm_decrypt(self, rk, nonce, aad, data, tag) -> bytes:
        nonce, aad, data, tag = bytes(nonce), bytes(aad), bytes(data), bytes(tag)
        self._check_ccm(nonce, len(data), len(tag))
        return self._open("CCM", rk, nonce, aad, data, tag)

    # ------------------------------------------------------------------------------ XTS
    def xts_key(self, key) -> ctypes.Array:
        """The C XTS key struct (data and tweak keys) for key1 || key2."""
        key = bytes(key)
        k = self.key_bytes
        if len(key) != 2 * k:
            raise UsageError(f"XTS: the key is two {self.name} keys, {2 * k} bytes (key1 || key2), got {len(key)}")
        if key[:k] == key[k:]:
            raise UsageError("XTS: the two key halves are equal")
        xk = _aligned(self._aead("xts_key_size", "XTS")())
        isa = self.isa.encode() if self.isa else None
        self._rc(self._aead("xts_set_key_isa", "XTS")(xk, key, len(key), isa), "XTS")
        return xk

    def _xts(self, direction: str, key, tweak, data) -> bytes:
        tweak, data = bytes(tweak), bytes(data)
        xk = self.xts_key(key)
        if len(tweak) != 16:
            raise UsageError(f"XTS: the tweak is 16 bytes, got {len(tweak)}")
        if len(data) < 16:
            raise UsageError(f"XTS: a data unit is at least 16 bytes, got {len(data)}")
        if len(data) > 16 * XTS_MAX_BLOCKS:
            raise UsageError(f"XTS: a data unit is at most 2^20 blocks ({16 * XTS_MAX_BLOCKS} bytes), got {len(data)}")
        out = _out(len(data))
        self._rc(self._aead(f"xts_{direction}", "XTS")(xk, tweak, data, out, len(data)), "XTS")
        return out.raw[: len(data)]

    def xts_encrypt(self, key, tweak, data) -> bytes:
        return self._xts("encrypt", key, tweak, data)

    def xts_decrypt(self, key, tweak, data) -> bytes:
        return self._xts("decrypt", key, tweak, data)

    # ------------------------------------------------------------------------------ CMAC
    def _check_cmac_tag(self, tag_len: int) -> None:
        if not 1 <= tag_len <= self.block_bytes:
            raise UsageError(f"CMAC: a tag is 1 to {self.block_bytes} bytes, got {tag_len}")

    def cmac(self, rk, msg, tag_len: int | None = None) -> bytes:
        msg = bytes(msg)
        tag_len = self.block_bytes if tag_len is None else tag_len
        self._check_cmac_tag(tag_len)
        tag = _out(self.block_bytes)
        self._rc(self._aead("cmac", "CMAC")(rk, msg, len(msg), tag, tag_len), "CMAC")
        return tag.raw[:tag_len]

    def cmac_stream(self, rk) -> CCmacStream:
        return CCmacStream(self, rk)


class CGcmStream:
    """cipherspec.aead.GcmStream over the library's incremental GCM (<P>_gcm): aad, update,
    finish_encrypt / finish_decrypt.  Keeps the key struct alive as long as the context."""

    def __init__(self, c: CAead, rk, iv: bytes, direction: str, gcm_key=None):
        if direction not in ("encrypt", "decrypt"):
            raise UsageError(f"GCM: unknown direction '{direction}' (encrypt or decrypt)")
        c._check_iv(iv)
        self.c, self.rk, self.gk, self.direction = c, rk, gcm_key, direction
        self.ctx = _aligned(c._aead("gcm_size", "GCM")())
        if gcm_key is None:
            c._rc(c._aead("gcm_init", "GCM")(self.ctx, rk, iv, len(iv)), "GCM")
        else:
            c._rc(c._aead("gcm_init_key", "GCM")(self.ctx, gcm_key, iv, len(iv)), "GCM")
        self._state = "aad"
        self._data_bytes = 0

    def _done(self) -> UsageError:
        return UsageError("GCM: the message is finished (one finish per stream)")

    def aad(self, data) -> None:
        if self._state != "aad":
            raise UsageError("GCM: all AAD comes before the data") if self._state == "data" else self._done()
        data = bytes(data)
        self.c._rc(self.c._aead("gcm_aad", "GCM")(self.ctx, data, len(data)), "GCM")

    def update(self, data) -> bytes:
        if self._state == "done":
            raise self._done()
        data = bytes(data)
        if self._data_bytes + len(data) > GCM_MAX_DATA:
            raise UsageError(f"GCM: the data is longer than 2^39 - 256 bits ({GCM_MAX_DATA} bytes)")
        self._state = "data"
        out = _out(len(data))
        f = self.c._aead(f"gcm_{self.direction}_update", "GCM")
        self.c._rc(f(self.ctx, data, out, len(data)), "GCM")
        self._data_bytes += len(data)
        return out.raw[: len(data)]

    def finish_encrypt(self, tag_len: int = 16) -> bytes:
        if self.direction != "encrypt":
            raise UsageError("GCM: finish_encrypt on a decrypting stream (use finish_decrypt(tag))")
        _check_tag("GCM", tag_len, GCM_TAGS)
        if self._state == "done":
            raise self._done()
        tag = _out(16)
        self._state = "done"
        self.c._rc(self.c._aead("gcm_finish", "GCM")(self.ctx, tag, tag_len), "GCM")
        return tag.raw[:tag_len]

    def finish_decrypt(self, tag) -> None:
        """Returns when the tag is right; raises AuthenticationError when it is not."""
        if self.direction != "decrypt":
            raise UsageError("GCM: finish_decrypt on an encrypting stream (use finish_encrypt())")
        tag = bytes(tag)
        _check_tag("GCM", len(tag), GCM_TAGS)
        if self._state == "done":
            raise self._done()
        self._state = "done"
        self.c._rc(self.c._aead("gcm_verify", "GCM")(self.ctx, tag, len(tag)), "GCM")


class CCmacStream:
    """cipherspec.aead.CmacStream over the library's <P>_cmac_ctx: update, finish."""

    def __init__(self, c: CAead, rk):
        self.c, self.rk = c, rk
        self.ctx = _aligned(c._aead("cmac_ctx_size", "CMAC")())
        c._rc(c._aead("cmac_init", "CMAC")(self.ctx, rk), "CMAC")
        self._done = False

    def update(self, msg) -> None:
        if self._done:
            raise UsageError("CMAC: the message is finished (one finish per stream)")
        msg = bytes(msg)
        self.c._rc(self.c._aead("cmac_update", "CMAC")(self.ctx, msg, len(msg)), "CMAC")

    def finish(self, tag_len: int | None = None) -> bytes:
        tag_len = self.c.block_bytes if tag_len is None else tag_len
        self.c._check_cmac_tag(tag_len)
        if self._done:
            raise UsageError("CMAC: the message is finished (one finish per stream)")
        self._done = True
        tag = _out(self.c.block_bytes)
        self.c._rc(self.c._aead("cmac_final", "CMAC")(self.ctx, tag, tag_len), "CMAC")
        return tag.raw[:tag_len]
