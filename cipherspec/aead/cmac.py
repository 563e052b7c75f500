"""CMAC (NIST SP 800-38B) over any cipher with a 64- or 128-bit block; tags of 1 to block bytes.

Subkeys: L = E_K(0^b), K1 = L * x, K2 = K1 * x in GF(2^b) (R_64 = 0x1b, R_128 = 0x87).  The last block
is XORed with K1 when it is complete, else padded with 10* and XORed with K2 (an empty message too).

    tag = cmac(c, rk, b"message", tag_len=16)
    s = CmacStream(c, rk); s.update(b"mess"); s.update(b"age"); s.finish(tag_len=16) == tag
"""

from __future__ import annotations

from ..errors import UsageError
from .common import encrypt_one, require_block, xor

R_B = {8: 0x1B, 16: 0x87}


def _double(block: bytes) -> bytes:
    """block * x in GF(2^b): shift left one bit, fold R_b in when a bit falls off."""
    b = len(block)
    v = int.from_bytes(block, "big") << 1
    if v >> (8 * b):
        v ^= (1 << (8 * b)) | R_B[b]
    return v.to_bytes(b, "big")


def check_tag_length(c, tag_len: int) -> None:
    if not 1 <= tag_len <= c.block_bytes:
        raise UsageError(f"CMAC: a tag is 1 to {c.block_bytes} bytes, got {tag_len}")


class CmacStream:
    """CMAC over a message fed in any pieces.  The last block (up to b bytes) is held back until
    ``finish``, since only then is it known to be the last."""

    def __init__(self, c, rk):
        require_block(c, "CMAC", tuple(R_B))
        self.c, self.rk, self.b = c, rk, c.block_bytes
        self.k1 = _double(encrypt_one(c, rk, bytes(self.b)))
        self.k2 = _double(self.k1)
        self._y = bytes(self.b)
        self._held = b""
        self._done = False

    def update(self, msg: bytes) -> None:
        if self._done:
            raise UsageError("CMAC: the message is finished (one finish per stream)")
        data = self._held + bytes(msg)
        b = self.b
        keep = len(data) % b or min(len(data), b)  # what may be the last block stays held
        y = self._y
        for i in range(0, len(data) - keep, b):  # CBC is sequential by definition
            y = encrypt_one(self.c, self.rk, xor(y, data[i : i + b]))
        self._y, self._held = y, data[len(data) - keep :]

    def finish(self, tag_len: int | None = None) -> bytes:
        tag_len = self.b if tag_len is None else tag_len
        check_tag_length(self.c, tag_len)
        if self._done:
            raise UsageError("CMAC: the message is finished (one finish per stream)")
        self._done = True
        last = self._held
        if len(last) == self.b:
            last = xor(last, self.k1)
        else:
            last = xor(last + b"\x80" + bytes(self.b - len(last) - 1), self.k2)
        return encrypt_one(self.c, self.rk, xor(self._y, last))[:tag_len]


def cmac(c, rk, msg: bytes, tag_len: int | None = None) -> bytes:
    """The CMAC tag of ``msg`` (``tag_len`` bytes; the default is the whole block)."""
    s = CmacStream(c, rk)
    if tag_len is not None:
        check_tag_length(c, tag_len)
    s.update(msg)
    return s.finish(tag_len)
