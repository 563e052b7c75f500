"""AESE/AESD key folding: a uniform XOR operand of an S-box input becomes the instruction's round-key operand.

``AESE d, k`` computes SubBytes(ShiftRows(d ^ k)); the crypto schedules used it with k = 0 and did the
key addition with EORs.  When the lookup's index is an XOR tree (single-use XOR nodes flattened) with a
uniform leaf -- a broadcast round-key word or a constant, the same in every lane, so ShiftRows leaves it
alone -- and the table needs no affine map before the S-box (T = L∘S, S, L∘S⁻¹ or S⁻¹), the leaf goes into
the AES instruction and the other leaves are XORed as before (EOR3 where the schedule has FEAT_SHA3).
Decided from the IR alone: any spec whose S-box input is ``state ^ key`` gets it (AES's AddRoundKey, ARIA's
key addition the XOR network merged into its diffusion).

    before:  %3 = xor %1, k;  %4 = xor %3, %2;  %5 = lut SB1 %4
             eor t, v1, k;  eor u, t, v2;  aese u, zero
    after:   eor u, v1, v2;  aese u, k                      (one EOR fewer per S-box register)

    plan(fn, uses, width, uniform, foldable) -> {index value id: (other leaves, uniform leaf)}
"""

from __future__ import annotations

from collections import Counter

from cipherspec.ir import Function


def fold(fn: Function, arg: int, uses: Counter, width: int, uniform: set[int]) -> tuple[list[int], int] | None:
    """Leaves of the XOR tree rooted at value ``arg`` (single-use XOR nodes below the root expanded) and the
    uniform leaf (an id in ``uniform``) to fold; None when the root is no XOR or no leaf is uniform."""
    ops = fn.ops
    if ops[arg].code != "xor" or ops[arg].width != width:
        return None
    leaves: list[int] = []
    stack = [arg]
    while stack:
        v = stack.pop()
        op = ops[v]
        if op.code == "xor" and op.width == width and (v == arg or uses[v] == 1):
            stack.extend(reversed(op.args))
        else:
            leaves.append(v)
    for leaf in leaves:
        if leaf in uniform:
            rest = [x for x in leaves if x != leaf]
            if rest and len(set(leaves)) == len(leaves):  # a leaf twice would cancel: left to the plain rules
                return rest, leaf
    return None


def plan(fn: Function, uses: Counter, width: int, uniform: set[int], foldable) -> dict[int, tuple[list[int], int]]:
    """For every lookup whose table ``foldable(name)`` allows it and whose index value nothing else reads:
    index value id -> (other leaves, uniform leaf).  The index is then selected as the XOR of the other leaves
    (at its own place in the order, so live ranges stay as they were) and the lookup takes the leaf as key."""
    out: dict[int, tuple[list[int], int]] = {}
    for op in fn.ops:
        if op.code == "lut" and foldable(op.imm[0]):
            arg = op.args[0]
            if uses[arg] == 1:
                f = fold(fn, arg, uses, width, uniform)
                if f is not None:
                    out[arg] = f
    return out
