"""Bytes as affine forms over GF(2): the linear algebra the AES-round recognizer (rounds.py) runs on the IR.

Every byte between two S-box layers is an affine function of "atom" bytes (S-box outputs, state and key
inputs): bit i of the byte is the XOR of a set of atom bits and a constant.  A form holds, per bit, that
set as a Python int (bit 8·a + j = bit j of atom a) and the constant bits.

    x = Form.atom(3)                  bit i = bit i of atom 3
    Form.atom(3).gmul(2, 0x11b)       {02}·x: bit 0 = x7, bit 1 = x0 ^ x7, bit 2 = x1, bit 3 = x2 ^ x7, ...
    a ^ b, a.shl(1), a.rotl(3), a.and_const(0x0f), a.xor_const(0x63)

    restrict(form, atoms) -> the part over those atoms;  form.byte_coeffs(atom) -> the 8x8 matrix of one atom
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from cipherspec.gf import gf_mul


@dataclass(frozen=True)
class Form:
    bits: tuple[int, ...]  # 8 masks over atom bits (bit 8·a + j)
    const: int = 0

    @staticmethod
    def atom(a: int) -> "Form":
        return Form(tuple(1 << (8 * a + i) for i in range(8)))

    @staticmethod
    def constant(c: int) -> "Form":
        return Form((0,) * 8, c & 0xFF)

    def __xor__(self, other: "Form") -> "Form":
        return Form(tuple(x ^ y for x, y in zip(self.bits, other.bits)), self.const ^ other.const)

    def xor_const(self, c: int) -> "Form":
        return Form(self.bits, self.const ^ (c & 0xFF))

    def _map(self, src: list[int | None]) -> "Form":
        """Output bit i = input bit src[i] (None: 0)."""
        return Form(
            tuple(self.bits[j] if j is not None else 0 for j in src),
            sum(((self.const >> j) & 1) << i for i, j in enumerate(src) if j is not None),
        )

    def shl(self, k: int) -> "Form":
        return self._map([i - k if i >= k else None for i in range(8)])

    def shr(self, k: int) -> "Form":
        return self._map([i + k if i + k < 8 else None for i in range(8)])

    def rotl(self, k: int) -> "Form":
        return self._map([(i - k) % 8 for i in range(8)])

    def and_const(self, m: int) -> "Form":
        return Form(tuple(b if m >> i & 1 else 0 for i, b in enumerate(self.bits)), self.const & m)

    def or_const(self, m: int) -> "Form":
        return Form(tuple(0 if m >> i & 1 else b for i, b in enumerate(self.bits)), self.const | (m & 0xFF))

    def gmul(self, c: int, poly: int) -> "Form":
        """c·x in GF(2^8) mod poly: column j of the matrix is c·2^j."""
        cols = [gf_mul(1 << j, c, poly) for j in range(8)]
        bits = []
        for i in range(8):
            acc = 0
            for j in range(8):
                if cols[j] >> i & 1:
                    acc ^= self.bits[j]
            bits.append(acc)
        cst = 0
        for j in range(8):
            if self.const >> j & 1:
                cst ^= cols[j]
        return Form(tuple(bits), cst)

    def atoms(self) -> set[int]:
        mask = 0
        for b in self.bits:
            mask |= b
        out, a = set(), 0
        while mask:
            if mask & 0xFF:
                out.add(a)
            mask >>= 8
            a += 1
        return out

    def coeffs(self, a: int) -> tuple[int, ...]:
        """The 8x8 matrix by which atom ``a`` enters: row i = the atom bits in output bit i (a byte)."""
        return tuple((b >> (8 * a)) & 0xFF for b in self.bits)


@cache
def matrix_of(c: int, poly: int) -> tuple[int, ...]:
    """The rows of x -> c·x, as Form.coeffs reports them."""
    return Form.atom(0).gmul(c, poly).coeffs(0)


IDENTITY = tuple(1 << i for i in range(8))
