"""Other ways to write a table as Lout∘S∘Lin: GF(2^8) inversion's self-equivalences moved into the affine maps.

Inversion commutes with multiplication and with squaring: inv(a·x^(2^k)) = a⁻¹·inv(x)^(2^k), so
inv = P∘inv∘Q with Q(x) = a·x^(2^k) and P(y) = (a·y)^(2^(8-k)), for each of the 255 x 8 pairs (a, k).  With
S = A∘inv (A the FIPS-197 affine map), a table T = Lout∘S∘Lin (affine.two_sided) is also

    T = (Lout∘A∘P∘A⁻¹) ∘ S ∘ (Q∘Lin)        for every (a, k): 2,040 decompositions, one table

and each puts other matrices into the circuit's merged linear parts (its top, 8 input bits -> 22 or 28
signals, and its bottom, 18 products -> 8 bits).  ``candidates`` ranks all of them by how many ones those two
merged matrices hold (a cheap stand-in for their XOR count; the maps are composed as bit matrices) and keeps
the lightest few, the given decomposition first; the lowering prices those few exactly and keeps the best.

    ARIA's S2⁻¹ on the GPU (113-gate circuit, merged): (a, k) = (1, 0): 82 LOP3 -> the lightest 8: 78
"""

from __future__ import annotations

from functools import cache

from cipherspec.gf import gf_mul
from cipherspec.sbox import POLY, AffineMap, aes_sbox, inverses

from .affine import SboxForm
from .sbox_circuit import circuit

KEEP = 8  # decompositions a lowering prices exactly


def _compose(first: AffineMap, then: AffineMap) -> AffineMap:
    """then∘first as bit matrices: row i of the product XORs the rows of ``first`` that then's row i selects."""
    rows = []
    for r in then.rows:
        acc = 0
        for k in range(8):
            if r >> k & 1:
                acc ^= first.rows[k]
        rows.append(acc)
    return AffineMap(tuple(rows), then(first.const))


def _linear(f) -> AffineMap:
    return AffineMap.linear([f(1 << j) for j in range(8)])


@cache
def _maps() -> tuple[AffineMap, AffineMap, list[AffineMap], list[AffineMap]]:
    """(A, A⁻¹, multiply by a for a = 1..255, square k times for k = 0..7)."""
    s, si = aes_sbox()
    inv = inverses()
    a_map = AffineMap.from_table([s[inv[y]] for y in range(256)])
    a_inv = AffineMap.from_table([inv[si[z]] for z in range(256)])
    mul = [_linear(lambda x, a=a: gf_mul(a, x, POLY)) for a in range(1, 256)]
    sq = [AffineMap(tuple(1 << i for i in range(8)), 0)]
    square = _linear(lambda x: gf_mul(x, x, POLY))
    for _ in range(7):
        sq.append(_compose(sq[-1], square))
    return a_map, a_inv, mul, sq


def variant(form: SboxForm, a: int, k: int) -> SboxForm:
    """The decomposition (Lout∘A∘P∘A⁻¹, Q∘Lin) of form's table for the pair (a, k); (1, 0): form itself."""
    if (a, k) == (1, 0):
        return form
    a_map, a_inv, mul, sq = _maps()
    q = _compose(sq[k], mul[a - 1])  # x -> a·x^(2^k)
    p = _compose(mul[a - 1], sq[(8 - k) % 8])  # y -> (a·y)^(2^(8-k))
    return SboxForm(_compose(_compose(_compose(a_inv, p), a_map), form.out), _compose(form.inp, q))


def decompositions(form: SboxForm):
    """Every (a, k) with its (Lout', Lin'), the identity pair (1, 0) first."""
    for a in range(1, 256):
        for k in range(8):
            yield (a, k), variant(form, a, k)


def weight(form: SboxForm, shape: str) -> int:
    """Ones in the circuit's top merged with Lin and its bottom merged with Lout (constants aside)."""
    circ = circuit(shape)
    total = 0
    for m in circ.top.values():
        total += bin(_row(form.inp.rows, m)).count("1")
    for r in form.out.rows:
        total += bin(_row(tuple(b for b, _ in circ.bottom), r)).count("1")
    return total


def _row(rows: tuple[int, ...], select: int) -> int:
    acc = 0
    for k in range(len(rows)):
        if select >> k & 1:
            acc ^= rows[k]
    return acc


@cache
def candidates(form: SboxForm, shape: str, keep: int = KEEP) -> tuple[tuple[int, int], ...]:
    """The pairs (a, k) of the ``keep`` - 1 lightest decompositions of form's table other than form itself
    (weight; ties: (a, k) order)."""
    ranked = sorted((weight(f, shape), key) for key, f in decompositions(form) if key != (1, 0))
    return tuple(key for _, key in ranked[: keep - 1])
