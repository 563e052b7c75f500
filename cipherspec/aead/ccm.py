"""CCM (NIST SP 800-38C): CBC-MAC over the formatted message, then CTR; any cipher with a 128-bit block.

The nonce is 7..13 bytes; it leaves q = 15 - len(nonce) bytes for the data length, so the data is at
most 2^(8q) - 1 bytes (a 13-byte nonce: 65535).  Tags: 4, 6, 8, 10, 12, 14 or 16 bytes.  CCM needs
the data's length before its first byte (it is in B0), so the stream form takes it up front.

    ct, tag = ccm_encrypt(c, rk, nonce, aad, data, tag_len=16)
    data = ccm_decrypt(c, rk, nonce, aad, ct, tag)            # AuthenticationError on a wrong tag
    s = CcmStream(c, rk, nonce, "encrypt", aad, data_len=len(p1 + p2), tag_len=16)
    s.update(p1) + s.update(p2);  s.finish_encrypt()
"""

from __future__ import annotations

from ..errors import UsageError
from .common import check_direction, check_tag_length, encrypt_many, encrypt_one, require_block, verify, xor

TAG_LENGTHS = (4, 6, 8, 10, 12, 14, 16)
NONCE_LENGTHS = range(7, 14)


def max_data_bytes(nonce_len: int) -> int:
    return (1 << (8 * (15 - nonce_len))) - 1


def check_params(nonce: bytes, data_len: int, tag_len: int) -> None:
    """The one-line error for a nonce, tag or data length CCM cannot take."""
    if len(nonce) not in NONCE_LENGTHS:
        raise UsageError(f"CCM: the nonce is 7 to 13 bytes, got {len(nonce)}")
    check_tag_length("CCM", tag_len, TAG_LENGTHS)
    limit = max_data_bytes(len(nonce))
    if data_len > limit:
        raise UsageError(f"CCM: a {len(nonce)}-byte nonce allows at most {limit} bytes of data, got {data_len}")


def _aad_prefix(n: int) -> bytes:
    """SP 800-38C A.2.2: the encoding of the AAD length."""
    if n == 0:
        return b""
    if n < (1 << 16) - (1 << 8):
        return n.to_bytes(2, "big")
    if n < (1 << 32):
        return b"\xff\xfe" + n.to_bytes(4, "big")
    return b"\xff\xff" + n.to_bytes(8, "big")


class CcmStream:
    """One CCM message whose AAD and data length are known up front, its data fed in any pieces.
    On decryption ``update`` returns plaintext not yet authenticated (hold it until ``finish_decrypt``)."""

    def __init__(self, c, rk, nonce: bytes, direction: str, aad: bytes, data_len: int, tag_len: int = 16):
        require_block(c, "CCM", (16,))
        check_direction("CCM", direction)
        nonce = bytes(nonce)
        check_params(nonce, data_len, tag_len)
        self.c, self.rk, self.direction = c, rk, direction
        self.nonce, self.data_len, self.tag_len = nonce, data_len, tag_len
        q = 15 - len(nonce)
        flags = (0x40 if aad else 0) | ((tag_len - 2) // 2) << 3 | (q - 1)
        self._y = bytes(16)  # the CBC-MAC chain
        self._partial = b""
        self._mac(bytes([flags]) + nonce + data_len.to_bytes(q, "big"))
        if aad:
            self._mac(_aad_prefix(len(aad)) + bytes(aad))
            self._mac_pad()
        self._ctr_prefix = bytes([q - 1]) + nonce
        self._q = q
        self._next = 1  # the next counter index (0 is the tag's)
        self._keystream = b""
        self.seen = 0
        self._done = False

    def _mac(self, data: bytes) -> None:
        data = self._partial + data
        whole = len(data) - len(data) % 16
        y = self._y
        for i in range(0, whole, 16):  # CBC-MAC is sequential by definition
            y = encrypt_one(self.c, self.rk, xor(y, data[i : i + 16]))
        self._y, self._partial = y, data[whole:]

    def _mac_pad(self) -> None:
        if self._partial:
            self._mac(bytes(16 - len(self._partial)))

    def _counters(self, first: int, n: int) -> bytes:
        return b"".join(
            self._ctr_prefix + (i % (1 << (8 * self._q))).to_bytes(self._q, "big") for i in range(first, first + n)
        )

    def update(self, data: bytes) -> bytes:
        if self._done:
            raise UsageError("CCM: the message is finished (one finish per stream)")
        data = bytes(data)
        if self.seen + len(data) > self.data_len:
            raise UsageError(f"CCM: more data than the {self.data_len} bytes declared")
        self.seen += len(data)
        need = len(data) - len(self._keystream)
        if need > 0:
            n = -(-need // 16)
            self._keystream += encrypt_many(self.c, self.rk, self._counters(self._next, n))
            self._next += n
        out = xor(data, self._keystream)
        self._keystream = self._keystream[len(data) :]
        self._mac(data if self.direction == "encrypt" else out)
        return out

    def _tag(self) -> bytes:
        if self._done:
            raise UsageError("CCM: the message is finished (one finish per stream)")
        if self.seen != self.data_len:
            raise UsageError(f"CCM: {self.data_len} bytes of data declared, {self.seen} given")
        self._done = True
        self._mac_pad()
        s0 = encrypt_one(self.c, self.rk, self._counters(0, 1))
        return xor(self._y[: self.tag_len], s0)

    def finish_encrypt(self) -> bytes:
        if self.direction != "encrypt":
            raise UsageError("CCM: finish_encrypt on a decrypting stream (use finish_decrypt(tag))")
        return self._tag()

    def finish_decrypt(self, tag: bytes) -> None:
        if self.direction != "decrypt":
            raise UsageError("CCM: finish_decrypt on an encrypting stream (use finish_encrypt())")
        check_tag_length("CCM", len(tag), (self.tag_len,))
        verify(self._tag(), bytes(tag))


def ccm_encrypt(c, rk, nonce: bytes, aad: bytes, data: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
    s = CcmStream(c, rk, nonce, "encrypt", aad, len(data), tag_len)
    ct = s.update(data)
    return ct, s.finish_encrypt()


def ccm_decrypt(c, rk, nonce: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
    """The plaintext, or AuthenticationError (and no plaintext) when the tag does not match."""
    s = CcmStream(c, rk, nonce, "decrypt", aad, len(data), len(tag))
    pt = s.update(data)
    s.finish_decrypt(tag)
    return pt
