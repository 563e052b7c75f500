"""The NEON library's own modes (<prefix>_modes.h: GCM/GMAC, CCM, XTS, CMAC), run under qemu-aarch64.

A mixin of runtime.neon_target.NeonCipher: the methods have the names and arguments of the oracle's
functions in cipherspec.aead (minus the cipher) and its errors (UsageError for a bad parameter, with
the C library's checks and wording; AuthenticationError for a wrong tag).  They take the round keys of
NeonCipher.expand_key, which remember the key bytes: the library sets its own key up (<prefix>_set_key).
A build without the modes (a single schedule) runs the oracle's definitions over the NEON block kernels.

    ct, tag = c.gcm_encrypt(rk, iv, aad, data);  pt = c.gcm_decrypt(rk, iv, aad, ct, tag)
    c.run_modes([ModeRequest("gcm_encrypt", key, iv, aad, data, 16), ...])   # many in ONE qemu run
      -> [(status, output, tag), ...]   (a failed decryption's output: what the library left, zeros)
    c.modes_info(key, isa="crypto") -> ("aes128_neon_b16_crypto_il1", "portable")
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from cipherspec import aead
from cipherspec.errors import AuthenticationError, UsageError

from .c_abi import ERR_AUTH, ERR_PARAM
from .c_aead import CCM_TAGS, GCM_TAGS, XTS_MAX_BLOCKS, CAead, _check_tag

MODE_OPS = {
    "gcm_encrypt": 16,
    "gcm_decrypt": 17,
    "gmac": 18,
    "ccm_encrypt": 19,
    "ccm_decrypt": 20,
    "xts_encrypt": 21,
    "xts_decrypt": 22,
    "cmac": 23,
    "gcm_stream_encrypt": 24,
    "gcm_stream_decrypt": 25,
    "info": 26,
    "cmac_stream": 27,
}
_DECRYPT = {"gcm_decrypt", "ccm_decrypt", "gcm_stream_decrypt"}
_UNTAGGED = {"xts_encrypt", "xts_decrypt", "info"}
_MACS = {"cmac", "cmac_stream"}  # answer the tag only
INFO_BYTES = 128


@dataclass(frozen=True)
class ModeRequest:
    """One call of the library: ``tag`` is the tag length (tagging ops) or the tag (decryption);
    ``iv`` is the IV, nonce or XTS tweak; ``isa`` a feature ceiling ("neon", "crypto+pmull"; None: the
    CPU's own); ``chunk``: update size of the incremental ops."""

    op: str
    key: bytes
    iv: bytes = b""
    aad: bytes = b""
    data: bytes = b""
    tag: bytes | int = 0
    isa: str | None = None
    chunk: int = 0


class NeonModes:
    """Needs ``files``, ``prefix``, ``block_bytes``, ``key_bytes`` and ``_run(data) -> bytes`` (one QEMU run)."""

    files: dict[str, str]
    prefix: str
    block_bytes: int
    key_bytes: int

    def _run(self, data: bytes) -> bytes:
        raise NotImplementedError

    @property
    def has_modes(self) -> bool:
        return f"{self.prefix}_modes.h" in self.files

    def run_modes(self, requests: list[ModeRequest]) -> list[tuple[int, bytes, bytes]]:
        """Every request in one QEMU run: (status, output, tag) each."""
        if not requests:
            return []
        if not self.has_modes:
            raise UsageError(f"{self.prefix} has no modes (a single schedule: build the library)")
        parts = []
        for r in requests:
            decrypting = r.op in _DECRYPT
            tag_bytes = bytes(r.tag) if decrypting else b""
            tag_len = len(tag_bytes) if decrypting else int(r.tag)
            n = INFO_BYTES if r.op == "info" else len(r.data)
            isa = (r.isa or "").encode()
            parts.append(struct.pack("<4I", MODE_OPS[r.op], n, len(r.key), tag_len))
            parts.append(struct.pack("<4I", len(r.iv), len(r.aad), len(isa), r.chunk))
            parts += [r.key, r.iv, r.aad, isa, bytes(n) if r.op == "info" else r.data, tag_bytes]
        parts.append(struct.pack("<4I", 255, 0, 0, 0))
        out = self._run(b"".join(parts))
        results, pos = [], 0
        for r in requests:
            n = INFO_BYTES if r.op == "info" else 0 if r.op in _MACS else len(r.data)
            t = 0 if r.op in _DECRYPT or r.op in _UNTAGGED else int(r.tag)
            status = struct.unpack("<i", out[pos : pos + 4])[0]
            results.append((status, out[pos + 4 : pos + 4 + n], out[pos + 4 + n : pos + 4 + n + t]))
            pos += 4 + n + t
        if pos != len(out):
            raise UsageError(f"harness answered {len(out)} bytes, expected {pos}")
        return results

    def modes_info(self, key: bytes, isa: str | None = None) -> tuple[str, str]:
        """(kernel variant, GHASH variant) a key set up under ``isa`` uses ("-" where none)."""
        status, out, _ = self.run_modes([ModeRequest("info", bytes(key), isa=isa)])[0]
        if status:
            raise UsageError(f"set_key_isa({isa!r}) failed with {status}")
        kv, gv = out.rstrip(b"\0").decode().split(" ")
        return kv, gv

    # ------------------------------------------------------------------ the oracle's interface
    def _one(self, mode: str, r: ModeRequest) -> tuple[bytes, bytes]:
        status, out, tag = self.run_modes([r])[0]
        if status == ERR_AUTH:
            raise AuthenticationError()
        if status == ERR_PARAM:
            raise UsageError(f"{mode}: a length or parameter is out of the mode's range")
        if status:
            raise UsageError(f"{mode}: the NEON library returned {status}")
        return out, tag

    @staticmethod
    def _key(rk) -> bytes:
        key = getattr(rk, "key", None)
        if key is None:
            raise UsageError("the NEON library's modes need round keys of one key from expand_key(key bytes)")
        return key

    def _native(self, name: str, sizes: tuple[int, ...]) -> bool:
        return self.has_modes and self.block_bytes in sizes

    def gcm_encrypt(self, rk, iv, aad, data, tag_len: int = 16) -> tuple[bytes, bytes]:
        if not self._native("gcm", (16,)):
            return aead.gcm_encrypt(self, rk, iv, aad, data, tag_len)
        _check_tag("GCM", tag_len, GCM_TAGS)
        CAead._check_iv(bytes(iv))
        return self._one("GCM", ModeRequest("gcm_encrypt", self._key(rk), bytes(iv), bytes(aad), bytes(data), tag_len))

    def gcm_decrypt(self, rk, iv, aad, data, tag) -> bytes:
        if not self._native("gcm", (16,)):
            return aead.gcm_decrypt(self, rk, iv, aad, data, tag)
        _check_tag("GCM", len(tag), GCM_TAGS)
        CAead._check_iv(bytes(iv))
        r = ModeRequest("gcm_decrypt", self._key(rk), bytes(iv), bytes(aad), bytes(data), bytes(tag))
        return self._one("GCM", r)[0]

    def gmac(self, rk, iv, aad, tag_len: int = 16) -> bytes:
        if not self._native("gcm", (16,)):
            return aead.gmac(self, rk, iv, aad, tag_len)
        _check_tag("GCM", tag_len, GCM_TAGS)
        CAead._check_iv(bytes(iv))
        return self._one("GMAC", ModeRequest("gmac", self._key(rk), bytes(iv), bytes(aad), b"", tag_len))[1]

    def ccm_encrypt(self, rk, nonce, aad, data, tag_len: int = 16) -> tuple[bytes, bytes]:
        if not self._native("ccm", (16,)):
            return aead.ccm_encrypt(self, rk, nonce, aad, data, tag_len)
        CAead._check_ccm(bytes(nonce), len(data), tag_len)
        r = ModeRequest("ccm_encrypt", self._key(rk), bytes(nonce), bytes(aad), bytes(data), tag_len)
        return self._one("CCM", r)

    def ccm_decrypt(self, rk, nonce, aad, data, tag) -> bytes:
        if not self._native("ccm", (16,)):
            return aead.ccm_decrypt(self, rk, nonce, aad, data, tag)
        _check_tag("CCM", len(tag), CCM_TAGS)
        CAead._check_ccm(bytes(nonce), len(data), len(tag))
        r = ModeRequest("ccm_decrypt", self._key(rk), bytes(nonce), bytes(aad), bytes(data), bytes(tag))
        return self._one("CCM", r)[0]

    def _xts(self, direction: str, key, tweak, data) -> bytes:
        key, tweak, data = bytes(key), bytes(tweak), bytes(data)
        k = self.key_bytes
        ok = len(key) == 2 * k and key[:k] != key[k:] and len(tweak) == 16 and 16 <= len(data) <= 16 * XTS_MAX_BLOCKS
        if not (ok and self._native("xts", (16,))):  # the oracle: its checks and messages (or its result)
            return (aead.xts_encrypt if direction == "encrypt" else aead.xts_decrypt)(self, key, tweak, data)
        return self._one("XTS", ModeRequest(f"xts_{direction}", key, tweak, b"", data))[0]

    def xts_encrypt(self, key, tweak, data) -> bytes:
        return self._xts("encrypt", key, tweak, data)

    def xts_decrypt(self, key, tweak, data) -> bytes:
        return self._xts("decrypt", key, tweak, data)

    def cmac(self, rk, msg, tag_len: int | None = None) -> bytes:
        tag_len = self.block_bytes if tag_len is None else tag_len
        if not self._native("cmac", (8, 16)) or not 1 <= tag_len <= self.block_bytes:
            return aead.cmac(self, rk, msg, tag_len)
        return self._one("CMAC", ModeRequest("cmac", self._key(rk), data=bytes(msg), tag=tag_len))[1]
