"""GHASH (NIST SP 800-38D, 6.4): the universal hash of GCM and GMAC, over Python integers.

A 16-byte block is the big-endian integer of its bytes, so bit 0 of the SP (the leftmost bit) is the
integer's most significant bit, and "multiply by x" is a right shift.  The multiply is the SP's
Algorithm 1, bit by bit: slow and simple, the oracle the fast targets are checked against.

    h = int.from_bytes(E(K, 0^128), "big")
    g = Ghash(h);  g.update(aad);  g.pad();  g.update(ciphertext);  g.pad()
    g.update(lengths_block);  g.value          -> the 128-bit result as an integer
"""

from __future__ import annotations

R = 0xE1 << 120  # the SP's R = 11100001 || 0^120
MASK128 = (1 << 128) - 1


def gf128_mul(x: int, y: int) -> int:
    """x * y in GF(2^128) in GCM's bit order (SP 800-38D Algorithm 1).

    gf128_mul(1 << 127, y) == y  (1 << 127 is the field's 1: the bit string 10...0)."""
    z, v = 0, y
    for i in range(127, -1, -1):
        if (x >> i) & 1:
            z ^= v
        v = (v >> 1) ^ R if v & 1 else v >> 1
    return z


class Ghash:
    """GHASH_H over a byte stream fed in any pieces; ``pad`` completes a partial block with zeros (the
    end of GCM's AAD or ciphertext), ``value`` is Y_m after the whole blocks so far."""

    def __init__(self, h: int):
        self.h, self.value = h, 0
        self._partial = b""

    def update(self, data: bytes) -> None:
        data = self._partial + bytes(data)
        whole = len(data) - len(data) % 16
        y, h = self.value, self.h
        for i in range(0, whole, 16):
            y = gf128_mul(y ^ int.from_bytes(data[i : i + 16], "big"), h)
        self.value, self._partial = y, data[whole:]

    def pad(self) -> None:
        if self._partial:
            self.update(bytes(16 - len(self._partial)))
