"""S-box facts at the IR level: what a 4- or 8-bit table is, from its values alone, computed once per table.

    facts(AES S)        -> SboxFacts(bits=8, bijective=True, differential_uniformity=4, linearity=32,
                                     degree=7, inversion=InversionForm(A, B, b, a))
    facts(random perm)  -> SboxFacts(bits=8, bijective=True, differential_uniformity=10, ..., inversion=None)
    facts(4-bit table)  -> SboxFacts(bits=4, ..., inversion=None)   (inversion is an 8-bit question)

``inversion`` is set when T(x) = A·inv(B·x ⊕ b) ⊕ a for every byte x, with A, B invertible 8×8 bit
matrices and inv the inversion in GF(2^8) mod 0x11B (0 -> 0); inversion in any other representation of
GF(2^8) is linearly equivalent to this one, so one field suffices.  The search (``_inversion``):

1. cheap invariants first: T bijective, differentially 4-uniform with exactly one 4 per DDT row (the
   spectrum of inversion); a random bijection or a near miss fails here, in milliseconds;
2. the point x0 = B⁻¹·b that inv sees as 0: every 4-solution set of inversion's DDT is a coset
   x0 ⊕ (2-dim subspace), so the sets of input differences 1 and 2 meet in x0 alone;
3. T'(y) = T(y ⊕ x0) ⊕ T(x0) = A·inv(B·y) is then linearly equivalent to inv; inv's self-equivalences
   (multiplication by a constant, Frobenius) fix B·1 = 1 and B·u = ω (u from the 4-set of difference 1,
   ω a cube root of unity), and a to-and-fro propagation (B known on a span gives A on the inverses, A
   known gives B through T'⁻¹) with one guessed image completes both maps or refutes the guess.

The maps are checked on all 256 inputs before they are returned.  Also here: the AES S-box and the
affine maps as bit rows (``AffineMap``), used by the backends (AES-NI, GFNI, bitsliced circuits).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from .gf import gf_mul

POLY = 0x11B  # the field inversion is computed in (the AES one)


@cache
def inverses() -> tuple[int, ...]:
    """x⁻¹ in GF(2^8) mod 0x11B for every byte x (0 -> 0)."""
    inv = [0] * 256
    for x in range(1, 256):
        if not inv[x]:
            y = next(y for y in range(1, 256) if gf_mul(x, y, POLY) == 1)
            inv[x], inv[y] = y, x
    return tuple(inv)


@cache
def aes_sbox() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(S, S⁻¹), from the definition: inversion in GF(2^8) then the FIPS-197 affine map."""
    inv = inverses()
    s = []
    for x in range(256):
        b = inv[x]
        v = b
        for k in range(1, 5):
            v ^= ((b << k) | (b >> (8 - k))) & 0xFF
        s.append(v ^ 0x63)
    si = [0] * 256
    for x, y in enumerate(s):
        si[y] = x
    return tuple(s), tuple(si)


def _parity(x: int) -> int:
    return bin(x).count("1") & 1


@dataclass(frozen=True)
class AffineMap:
    """x -> M·x ^ const over GF(2)^8; rows[i] is the mask of input bits that XOR into output bit i."""

    rows: tuple[int, ...]
    const: int

    @staticmethod
    def from_table(f) -> AffineMap:
        c = f[0]
        cols = [f[1 << j] ^ c for j in range(8)]
        return AffineMap(tuple(sum(1 << j for j in range(8) if cols[j] >> i & 1) for i in range(8)), c)

    @staticmethod
    def linear(images) -> AffineMap:
        """The linear map with images[j] = M·(1 << j)."""
        return AffineMap(tuple(sum(1 << j for j in range(8) if images[j] >> i & 1) for i in range(8)), 0)

    def __call__(self, x: int) -> int:
        return self.const ^ sum(_parity(x & r) << i for i, r in enumerate(self.rows))

    def table(self) -> tuple[int, ...]:
        return tuple(self(x) for x in range(256))

    def then(self, other: AffineMap) -> AffineMap:
        """other ∘ self (self first)."""
        return AffineMap.from_table([other(self(x)) for x in range(256)])

    @property
    def identity(self) -> bool:
        return self.const == 0 and self.rows == tuple(1 << i for i in range(8))


@dataclass(frozen=True)
class InversionForm:
    """T(x) = out(inv(inp(x))): out = A·y ⊕ a, inp = B·x ⊕ b, inv the inversion mod 0x11B."""

    out: AffineMap
    inp: AffineMap

    def __call__(self, x: int) -> int:
        return self.out(inverses()[self.inp(x)])

    def via_aes(self) -> tuple[AffineMap, AffineMap]:
        """(out', inp') with T = out'∘S∘inp' for S the AES S-box: inv = M⁻¹·(S ⊕ 0x63), folded into out."""
        s, si = aes_sbox()
        inv = inverses()
        m_inv = AffineMap.from_table([inv[si[y]] for y in range(256)])  # y -> inv(S⁻¹(y)) = M⁻¹·(y ⊕ 63)
        return m_inv.then(self.out), self.inp


@dataclass(frozen=True)
class SboxFacts:
    bits: int
    bijective: bool
    differential_uniformity: int
    linearity: int  # max |Walsh coefficient| over nonzero output masks
    degree: int  # max algebraic degree of the coordinate functions
    inversion: InversionForm | None  # 8-bit tables affine-equivalent to GF(2^8) inversion

    def describe(self) -> str:
        inv = (
            "affine-equivalent to GF(2^8) inversion"
            if self.inversion
            else ("not affine-equivalent to GF(2^8) inversion" if self.bits == 8 else "")
        )
        parts = [
            f"u{self.bits}",
            "bijective" if self.bijective else "not bijective",
            f"differential uniformity {self.differential_uniformity}",
            f"linearity {self.linearity}",
            f"degree {self.degree}",
        ]
        return ", ".join(parts + ([inv] if inv else []))


def facts(values) -> SboxFacts | None:
    """The facts of a table with 16 or 256 entries of 4 or 8 bits (None for any other shape); cached."""
    return _facts(tuple(values))


@cache
def _facts(t: tuple[int, ...]) -> SboxFacts | None:
    n = {16: 4, 256: 8}.get(len(t))
    if n is None or any(not 0 <= v < (1 << n) for v in t):
        return None
    arr = np.array(t, dtype=np.int64)
    bij = len(set(t)) == len(t)
    return SboxFacts(
        n, bij, _uniformity(arr), _linearity(arr, n), _degree(t, n), _inversion(t) if n == 8 and bij else None
    )


def _ddt(arr: np.ndarray) -> np.ndarray:
    size = len(arr)
    x = np.arange(size)
    d = np.zeros((size, size), dtype=np.int64)
    for a in range(1, size):
        d[a] = np.bincount(arr[x ^ a] ^ arr, minlength=size)
    return d


def _uniformity(arr: np.ndarray) -> int:
    return int(_ddt(arr)[1:].max())


def _linearity(arr: np.ndarray, n: int) -> int:
    size = 1 << n
    x = np.arange(size)
    bits = np.array([[bin(v).count("1") & 1 for v in range(size)]], dtype=np.int64)[0]
    # signs[b, x] = (-1)^(b·T(x)); Walsh over input masks a by a fast transform along axis 1
    w = 1 - 2 * bits[np.bitwise_and.outer(x, arr)]
    h = 1
    while h < size:
        w = w.reshape(size, -1, 2, h)
        w = np.concatenate([w[:, :, 0] + w[:, :, 1], w[:, :, 0] - w[:, :, 1]], axis=2).reshape(size, size)
        h *= 2
    return int(np.abs(w[1:]).max())


def _degree(t: tuple[int, ...], n: int) -> int:
    deg = 0
    for i in range(n):
        f = [v >> i & 1 for v in t]
        step = 1
        while step < len(f):  # Möbius transform: truth table -> ANF coefficients
            for x in range(len(f)):
                if x & step:
                    f[x] ^= f[x ^ step]
            step <<= 1
        deg = max([deg] + [bin(m).count("1") for m, c in enumerate(f) if c])
    return deg


def _four_sets(t: tuple[int, ...], a: int) -> list[set[int]]:
    """For input difference a: the solution sets {x : T(x ⊕ a) ⊕ T(x) = β} that have 4 elements."""
    by: dict[int, set[int]] = {}
    for x in range(256):
        by.setdefault(t[x ^ a] ^ t[x], set()).add(x)
    return [s for s in by.values() if len(s) == 4]


def _inversion(t: tuple[int, ...]) -> InversionForm | None:
    arr = np.array(t, dtype=np.int64)
    d = _ddt(arr)[1:]
    if d.max() != 4 or not bool(((d == 4).sum(axis=1) == 1).all()):
        return None  # inversion's differential spectrum: exactly one 4 per row, the rest 2 or 0
    s1, s2 = _four_sets(t, 1), _four_sets(t, 2)
    for x0 in sorted(s1[0] & s2[0]):
        form = _linear_to_inv([t[y ^ x0] ^ t[x0] for y in range(256)])
        if form is None:
            continue
        b_map, a_map = form
        inp = AffineMap(b_map.rows, b_map(x0))  # B·(x ⊕ x0) = B·x ⊕ B·x0
        out = AffineMap(a_map.rows, t[x0])
        got = InversionForm(out, inp)
        if all(got(x) == t[x] for x in range(256)):
            return got
    return None


class _Partial:
    """A linear map known on a span: every point of the span and its image (both ways)."""

    def __init__(self) -> None:
        self.fwd: dict[int, int] = {0: 0}
        self.bwd: dict[int, int] = {0: 0}

    def add(self, p: int, q: int, fresh: list[tuple[int, int]]) -> bool:
        """Require p -> q; new points go to fresh; False on a contradiction (not linear or not injective)."""
        if p in self.fwd:
            return self.fwd[p] == q
        if q in self.bwd:
            return False
        new = [(s ^ p, v ^ q) for s, v in self.fwd.items()]
        for s, v in new:
            self.fwd[s] = v
            self.bwd[v] = s
        fresh.extend(new)
        return True


def _linear_to_inv(tp: list[int]) -> tuple[AffineMap, AffineMap] | None:
    """(B, A) linear with tp(y) = A·inv(B·y) for every y, or None."""
    inv = inverses()
    tinv = [0] * 256
    for y, v in enumerate(tp):
        tinv[v] = y
    omega = next(w for w in range(2, 256) if gf_mul(w, gf_mul(w, w, POLY), POLY) == 1)  # w^3 = 1
    u = min(next(s for s in _four_sets(tuple(tp), 1) if 0 in s) - {0, 1})

    def propagate(b: _Partial, a: _Partial, b_fresh: list[tuple[int, int]]) -> bool:
        a_fresh: list[tuple[int, int]] = []
        while b_fresh or a_fresh:
            while b_fresh:
                y, z = b_fresh.pop()
                if not a.add(inv[z], tp[y], a_fresh):  # A·inv(B·y) = tp(y)
                    return False
            while a_fresh:
                w, v = a_fresh.pop()
                if not b.add(tinv[v], inv[w], b_fresh):  # B·tp⁻¹(v) = inv(A⁻¹·v)
                    return False
        return True

    def solve(b: _Partial, a: _Partial, fresh: list[tuple[int, int]]) -> tuple[_Partial, _Partial] | None:
        if not propagate(b, a, fresh):
            return None
        if len(b.fwd) == 256:
            return b, a
        x = next(y for y in range(256) if y not in b.fwd)
        for g in range(1, 256):
            if g in b.bwd:
                continue
            b2, a2 = _Partial(), _Partial()
            b2.fwd, b2.bwd, a2.fwd, a2.bwd = dict(b.fwd), dict(b.bwd), dict(a.fwd), dict(a.bwd)
            f: list[tuple[int, int]] = []
            b2.add(x, g, f)
            got = solve(b2, a2, f)
            if got is not None:
                return got
        return None

    b, a = _Partial(), _Partial()
    fresh: list[tuple[int, int]] = []
    if not (b.add(1, 1, fresh) and b.add(u, omega, fresh)):
        return None
    got = solve(b, a, fresh)
    if got is None:
        return None
    bm, am = got
    return (
        AffineMap.linear([bm.fwd[1 << j] for j in range(8)]),
        AffineMap.linear([am.fwd[1 << j] for j in range(8)]),
    )
