"""Affine equivalence with the AES S-box: which 256-entry tables the AES instructions can compute.

For a table T, tries T = L∘S, T = S∘L, T = L∘S⁻¹, T = S⁻¹∘L with S the AES S-box and L affine over
GF(2)^8: the candidate L is T∘S⁻¹, S⁻¹∘T, T∘S or S∘T, and it is affine when L(x) ^ L(0) is linear
(equal to the XOR of L(2^i) ^ L(0) over the bits i of x, for every x).  An affine L costs two 16-entry
nibble TBLs and an EOR: L(x) = LO[x & 15] ^ HI[x >> 4] (L(0) folded into LO).

    match(AES S)          -> Affine("S", after=True, lo=identity, hi=identity)   (no L at all)
    match(ARIA SB2)       -> Affine("S", after=True, ...)      SB2 = L∘S
    match(ARIA SB4)       -> Affine("S⁻¹", after=False, ...)   SB4 = S⁻¹∘L
    match(random table)   -> None

Two-sided form (the C bitsliced schedule, which has a circuit for S only): every table that matches
one of the four forms is T = Lout∘S∘Lin with Lout, Lin affine, because S⁻¹ = A⁻¹∘S∘A⁻¹ (S = A∘inv,
A the FIPS-197 affine map); so is every other table affine-equivalent to GF(2^8) inversion (the IR's
S-box facts, cipherspec/sbox.py: SM4's, Camellia's).  Each map is given as bit rows: output bit i =
parity(x & rows[i]) ^ c_i.  The field arithmetic and AffineMap live in cipherspec/sbox.py.

    two_sided(AES S)      -> SboxForm(out=identity, inp=identity)
    two_sided(AES S⁻¹)    -> SboxForm(out=A⁻¹, inp=A⁻¹)
    two_sided(SM4 S)      -> SboxForm(out=A·M⁻¹ ⊕ c, inp=B·x ⊕ b)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from cipherspec.sbox import AffineMap, aes_sbox, facts
from cipherspec.sbox import inverses as _inverses

__all__ = ["SHIFT_ROWS", "Affine", "AffineMap", "SboxForm", "aes_sbox", "match", "two_sided"]

SHIFT_ROWS = tuple((i + 4 * (i % 4)) % 16 for i in range(16))  # AESE: result byte i is (S of) state byte SHIFT_ROWS[i]


@dataclass(frozen=True)
class Affine:
    box: str  # "S" (AESE) or "S-1" (AESD)
    after: bool  # T = L∘box (L after the instruction) or box∘L (before)
    lo: bytes  # L(n) for the low nibble n (includes L(0))
    hi: bytes  # L(n << 4) ^ L(0)

    @property
    def identity(self) -> bool:
        return self.lo == bytes(range(16)) and self.hi == bytes(n << 4 for n in range(16))


def _affine(f: list[int]) -> bool:
    c = f[0]
    basis = [f[1 << i] ^ c for i in range(8)]
    for x in range(256):
        v = c
        for i in range(8):
            if x >> i & 1:
                v ^= basis[i]
        if v != f[x]:
            return False
    return True


def match(table) -> Affine | None:
    return _match(tuple(table))


@cache
def _match(table: tuple[int, ...]) -> Affine | None:
    t = list(table)
    if len(t) != 256 or any(not 0 <= v < 256 for v in t):
        return None
    s, si = aes_sbox()
    forms = (
        ("S", True, [t[si[y]] for y in range(256)]),  # T = L∘S:   L = T∘S⁻¹
        ("S", False, [si[t[x]] for x in range(256)]),  # T = S∘L:   L = S⁻¹∘T
        ("S-1", True, [t[s[y]] for y in range(256)]),  # T = L∘S⁻¹: L = T∘S
        ("S-1", False, [s[t[x]] for x in range(256)]),
    )  # T = S⁻¹∘L: L = S∘T
    for box, after, f in forms:
        if _affine(f):
            return Affine(box, after, bytes(f[n] for n in range(16)), bytes(f[n << 4] ^ f[0] for n in range(16)))
    return None


@dataclass(frozen=True)
class SboxForm:
    """T(x) = out(S(inp(x))) with S the AES S-box."""

    out: AffineMap
    inp: AffineMap


def two_sided(table) -> SboxForm | None:
    """T as Lout∘S∘Lin, or None when T is not affine-equivalent to GF(2^8) inversion (cipherspec.sbox):
    one of match's one-sided forms where there is one, else the general A·inv(B·x ⊕ b) ⊕ a with the AES
    affine map folded into Lout."""
    return _two_sided(tuple(table))


@cache
def _two_sided(table: tuple[int, ...]) -> SboxForm | None:
    t = list(table)
    m = match(t)
    if m is None:
        f = facts(t)
        if f is None or f.inversion is None:
            return None
        out_map, in_map = f.inversion.via_aes()
        general = SboxForm(out_map, in_map)
        if any(general.out(aes_sbox()[0][general.inp(x)]) != t[x] for x in range(256)):
            raise AssertionError("two_sided: affine decomposition does not reproduce the table")
        return general
    s, si = aes_sbox()
    ident = list(range(256))
    inv = _inverses()
    a_inv = [inv[si[x]] for x in range(256)]  # A(y) = S(inv(y)); A⁻¹(z) = inv(S⁻¹(z)) as a table
    lin = [(m.lo[x & 15] ^ m.hi[x >> 4]) for x in range(256)]
    if m.box == "S":
        out, inp = (lin, ident) if m.after else (ident, lin)
    else:  # S⁻¹ = A⁻¹∘S∘A⁻¹
        out, inp = (
            ([lin[a_inv[y]] for y in range(256)], a_inv) if m.after else (a_inv, [a_inv[lin[x]] for x in range(256)])
        )
    form = SboxForm(AffineMap.from_table(out), AffineMap.from_table(inp))
    if any(form.out(s[form.inp(x)]) != t[x] for x in range(256)):
        raise AssertionError("two_sided: affine decomposition does not reproduce the table")
    return form
