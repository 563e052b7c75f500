"""Which 256-entry tables AESE/AESD compute, and the affine maps around the instruction, as NEON sees them.

A table T is ``after ∘ box ∘ before`` with box the AES S-box (AESE with a zero round key: SubBytes after
ShiftRows) or its inverse (AESD), each map affine over GF(2)^8 or absent.  The one-sided forms come from
generator/common/affine.match (AES's S, ARIA's SB1..SB4: at most one map); any other table the IR's S-box
analysis finds affine-equivalent to GF(2^8) inversion (cipherspec/sbox.py: SM4's, Camellia's) gets the
two-sided form of affine.two_sided, a map on both sides.  A map is applied as two 16-entry nibble TBLs:
L(x) = lo[x & 15] ^ hi[x >> 4] (L(0) folded into lo).

    form(AES S)     -> AesForm("S", before=None, after=None)          (AESE alone)
    form(ARIA SB2)  -> AesForm("S", before=None, after=(lo, hi))
    form(SM4 S)     -> AesForm("S", before=(lo, hi), after=(lo, hi))  (the C backend's AES-NI facts)
    form(random)    -> None
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from cipherspec.sbox import AffineMap
from generator.common.affine import match, two_sided

Nibbles = tuple[bytes, bytes]  # (lo[n] = L(n), hi[n] = L(n << 4) ^ L(0))


@dataclass(frozen=True)
class AesForm:
    box: str  # "S" (AESE) or "S-1" (AESD)
    before: Nibbles | None  # the map applied to the index first (None: none)
    after: Nibbles | None  # the map applied to the instruction's result (None: none)

    @property
    def maps(self) -> int:
        return (self.before is not None) + (self.after is not None)


def _nibbles(f: AffineMap) -> Nibbles:
    return bytes(f(n) for n in range(16)), bytes(f(n << 4) ^ f(0) for n in range(16))


def form(values, two_sided_forms: bool = True) -> AesForm | None:
    """T's form, or None; ``two_sided_forms=False``: the one-sided forms only."""
    return _form(tuple(values), two_sided_forms)


@cache
def _form(values: tuple[int, ...], two_sided_forms: bool) -> AesForm | None:
    m = match(values)
    if m is not None:
        nib = None if m.identity else (m.lo, m.hi)
        return AesForm(m.box, None if m.after else nib, nib if m.after else None)
    t = two_sided(values) if two_sided_forms else None
    if t is None:
        return None
    return AesForm("S", None if t.inp.identity else _nibbles(t.inp), None if t.out.identity else _nibbles(t.out))
