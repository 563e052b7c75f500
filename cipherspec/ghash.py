"""GHASH (NIST SP 800-38D, 6.4): the universal hash of GCM and GMAC, over Python integers.

A 16-byte block is the big-endian integer of its bytes, so bit 0 of the SP (the leftmost bit) is the
integer's most significant bit, and "multiply by x" is a right shift.  The multiply is the SP's
Algorithm 1, bit by bit (``gf128_mul``): the definition.  ``Ghash`` multiplies by its fixed H with the
same products grouped: Algorithm 1's V_i = H * x^i, XORed per 4-bit group of the other factor from a
table of 16 entries per group (32 lookups a block instead of 128 steps; Python, not constant-time, as
nothing in the oracle is).  A test checks the two against each other.

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


def times_h_tables(h: int) -> list[list[int]]:
    """T[j][n] = (n placed at the j-th 4-bit group from the left) * h: XORs of Algorithm 1's V_i."""
    v = [h]
    for _ in range(127):
        v.append((v[-1] >> 1) ^ R if v[-1] & 1 else v[-1] >> 1)
    tables = []
    for j in range(32):
        t = [0] * 16
        for n in range(1, 16):
            low = (n & -n).bit_length() - 1  # the lowest set bit of n: SP bit 4j + 3 - low
            t[n] = t[n & (n - 1)] ^ v[4 * j + 3 - low]
        tables.append(t)
    return tables


def mul_by_table(x: int, tables: list[list[int]]) -> int:
    """x * h, h the factor ``tables`` were made for: gf128_mul(x, h)."""
    z = 0
    for j in range(32):
        z ^= tables[j][(x >> (124 - 4 * j)) & 15]
    return z


class Ghash:
    """GHASH_H over a byte stream fed in any pieces; ``pad`` completes a partial block with zeros (the
    end of GCM's AAD or ciphertext), ``value`` is Y_m after the whole blocks so far."""

    def __init__(self, h: int):
        self.h, self.value = h, 0
        self._tables = times_h_tables(h)
        self._partial = b""

    def update(self, data: bytes) -> None:
        data = self._partial + bytes(data)
        whole = len(data) - len(data) % 16
        y, tables = self.value, self._tables
        for i in range(0, whole, 16):
            y = mul_by_table(y ^ int.from_bytes(data[i : i + 16], "big"), tables)
        self.value, self._partial = y, data[whole:]

    def pad(self) -> None:
        if self._partial:
            self.update(bytes(16 - len(self._partial)))
