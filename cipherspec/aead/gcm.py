"""GCM and GMAC (NIST SP 800-38D), generic over any cipher with a 128-bit block.

The counter is inc32: J0's low 32 bits count, modulo 2^32, and the high 96 bits stay (not the full-width
CTR of cipherspec.modes).  A 12-byte IV gives J0 = IV || 0^31 || 1; any other non-empty IV is hashed.

    ct, tag = gcm_encrypt(c, rk, iv, aad, data, tag_len=16)
    data = gcm_decrypt(c, rk, iv, aad, ct, tag)               # AuthenticationError on a wrong tag
    tag = gmac(c, rk, iv, aad)
    s = GcmStream(c, rk, iv, "encrypt"); s.aad(a); s.update(p1) + s.update(p2); s.finish_encrypt(16)
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..ghash import Ghash
from .common import check_direction, check_tag_length, encrypt_many, encrypt_one, require_block, verify, xor

TAG_LENGTHS = (16, 15, 14, 13, 12, 8, 4)  # SP 800-38D 5.2.1.2
MAX_DATA_BYTES = (2**39 - 256) // 8  # plaintext: at most 2^39 - 256 bits
MAX_AAD_BYTES = (2**64 - 1) // 8  # AAD and IV: at most 2^64 - 1 bits


def inc32_blocks(j: bytes, first: int, n: int) -> np.ndarray:
    """(n, 16) uint8: J with its low 32 bits replaced by (low(J) + first + i) mod 2^32, i < n."""
    low = (int.from_bytes(j[12:], "big") + first + np.arange(n, dtype=np.uint64)) & np.uint64(0xFFFFFFFF)
    out = np.empty((n, 16), np.uint8)
    out[:, :12] = np.frombuffer(j[:12], np.uint8)
    out[:, 12:] = low.astype(">u4").view(np.uint8).reshape(n, 4)
    return out


class GcmStream:
    """One GCM message, fed in any pieces: all AAD first (``aad``, any number of calls), then the data
    (``update``: returns the ciphertext or the plaintext of this piece), then one ``finish_*``.

    On decryption the plaintext of ``update`` is not yet authenticated: a caller that must not release
    unauthenticated plaintext holds it until ``finish_decrypt`` returns."""

    def __init__(self, c, rk, iv: bytes, direction: str):
        require_block(c, "GCM", (16,))
        check_direction("GCM", direction)
        iv = bytes(iv)
        if not iv:
            raise UsageError("GCM: the IV is empty")
        if len(iv) > MAX_AAD_BYTES:
            raise UsageError("GCM: the IV is longer than 2^64 - 1 bits")
        self.c, self.rk, self.direction = c, rk, direction
        h = int.from_bytes(encrypt_one(c, rk, bytes(16)), "big")
        if len(iv) == 12:
            self.j0 = iv + b"\x00\x00\x00\x01"
        else:
            g = Ghash(h)
            g.update(iv)
            g.pad()
            g.update(bytes(8) + (8 * len(iv)).to_bytes(8, "big"))
            self.j0 = g.value.to_bytes(16, "big")
        self._ghash = Ghash(h)
        self._blocks = 1  # counter blocks used: J0 is the tag's
        self._keystream = b""  # the unused rest of the last keystream block
        self.aad_bytes = self.data_bytes = 0
        self._state = "aad"

    def aad(self, data: bytes) -> None:
        if self._state != "aad":
            raise UsageError("GCM: all AAD comes before the data" if self._state == "data" else self._done())
        if self.aad_bytes + len(data) > MAX_AAD_BYTES:
            raise UsageError("GCM: the AAD is longer than 2^64 - 1 bits")
        self.aad_bytes += len(data)
        self._ghash.update(data)

    def update(self, data: bytes) -> bytes:
        if self._state == "done":
            raise UsageError(self._done())
        if self._state == "aad":
            self._ghash.pad()
            self._state = "data"
        data = bytes(data)
        if self.data_bytes + len(data) > MAX_DATA_BYTES:
            raise UsageError(f"GCM: the data is longer than 2^39 - 256 bits ({MAX_DATA_BYTES} bytes)")
        self.data_bytes += len(data)
        need = len(data) - len(self._keystream)
        if need > 0:
            n = -(-need // 16)
            self._keystream += encrypt_many(self.c, self.rk, inc32_blocks(self.j0, self._blocks, n).tobytes())
            self._blocks += n
        out = xor(data, self._keystream)
        self._keystream = self._keystream[len(data) :]
        self._ghash.update(out if self.direction == "encrypt" else data)
        return out

    def _tag(self) -> bytes:
        if self._state == "done":
            raise UsageError(self._done())
        self._state = "done"
        g = self._ghash
        g.pad()
        g.update((8 * self.aad_bytes).to_bytes(8, "big") + (8 * self.data_bytes).to_bytes(8, "big"))
        return xor(g.value.to_bytes(16, "big"), encrypt_one(self.c, self.rk, self.j0))

    def _done(self) -> str:
        return "GCM: the message is finished (one finish per stream)"

    def finish_encrypt(self, tag_len: int = 16) -> bytes:
        if self.direction != "encrypt":
            raise UsageError("GCM: finish_encrypt on a decrypting stream (use finish_decrypt(tag))")
        check_tag_length("GCM", tag_len, TAG_LENGTHS)
        return self._tag()[:tag_len]

    def finish_decrypt(self, tag: bytes) -> None:
        """Returns when the tag is right; raises AuthenticationError when it is not."""
        if self.direction != "decrypt":
            raise UsageError("GCM: finish_decrypt on an encrypting stream (use finish_encrypt())")
        check_tag_length("GCM", len(tag), TAG_LENGTHS)
        verify(self._tag()[: len(tag)], bytes(tag))


def gcm_encrypt(c, rk, iv: bytes, aad: bytes, data: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
    check_tag_length("GCM", tag_len, TAG_LENGTHS)
    s = GcmStream(c, rk, iv, "encrypt")
    s.aad(aad)
    ct = s.update(data)
    return ct, s.finish_encrypt(tag_len)


def gcm_decrypt(c, rk, iv: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
    """The plaintext, or AuthenticationError (and no plaintext) when the tag does not match."""
    check_tag_length("GCM", len(tag), TAG_LENGTHS)
    s = GcmStream(c, rk, iv, "decrypt")
    s.aad(aad)
    pt = s.update(data)
    s.finish_decrypt(tag)
    return pt


def gmac(c, rk, iv: bytes, aad: bytes, tag_len: int = 16) -> bytes:
    """GCM with no data: a MAC over ``aad``."""
    return gcm_encrypt(c, rk, iv, aad, b"", tag_len)[1]
