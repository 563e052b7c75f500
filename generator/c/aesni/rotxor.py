"""XORs of several rotations of one word, for the word-sliced kernels: grouped by the rotation amount mod 8
where the ISA has no vector rotate (AVX2, SSE: a rotation is two shifts and an OR, a rotation by a multiple
of 8 one PSHUFB), since rotl distributes over XOR:

    before: v ^ rotl(v, 2) ^ rotl(v, 10) ^ rotl(v, 18) ^ rotl(v, 24)      (4 rotations: 12 instructions)
    after:  (v ^ rotb(v, 24)) ^ rotl(v ^ rotb(v, 8) ^ rotb(v, 16), 2)     (3 PSHUFB + 1 rotation: 6)

With AVX-512 (VPROLD/VPROLQ: one instruction each) the rotations stay as they are.  ``find`` returns the
XOR trees with such a part (other leaves kept: X0 ^ L(b) is one tree), keyed by the tree's root.
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function


@dataclass(frozen=True)
class RotXor:
    """``root`` = XOR of ``others`` (value ids) and rotl(src, k) for k in ``amounts`` (0: src itself)."""

    root: int
    src: int
    amounts: tuple[int, ...]
    others: tuple[int, ...]


def _uses(fn: Function) -> list[int]:
    n = [0] * len(fn.ops)
    for op in fn.ops:
        for a in op.args:
            n[a] += 1
    for _, v in fn.outputs:
        n[v] += 1
    return n


def _tree(fn: Function, vid: int, w: int, uses: list[int], top: bool) -> tuple[list[int], list[int]] | None:
    """(leaves, internal nodes) of the XOR tree at vid; internal nodes below the top used once."""
    op = fn.ops[vid]
    if op.code != "xor" or op.width != w or (not top and uses[vid] != 1):
        return [vid], []
    leaves, inner = [], [vid]
    for a in op.args:
        got = _tree(fn, a, w, uses, False)
        if got is None:
            return None
        leaves += got[0]
        inner += got[1]
    return leaves, inner


def find(fn: Function, w: int, taken: set[int]) -> dict[int, RotXor]:
    """The XOR trees of width w whose rotations of one value regroup into fewer rotations (at least one
    class of amounts mod 8 but 0 with two members).  ``taken``: value ids other rewrites own."""
    uses = _uses(fn)
    found: dict[int, RotXor] = {}
    inside: set[int] = set()
    for vid in range(len(fn.ops) - 1, -1, -1):
        if vid in inside or vid in taken or fn.ops[vid].code != "xor" or fn.ops[vid].width != w:
            continue
        got = _tree(fn, vid, w, uses, True)
        if got is None:
            continue
        leaves, inner = got
        rot: dict[int, list[int]] = {}
        for leaf in leaves:
            op = fn.ops[leaf]
            if op.code == "rotl" and op.width == w and uses[leaf] == 1:
                rot.setdefault(op.args[0], []).append(op.imm[0] % w)
        for src, ks in rot.items():
            if src in leaves:
                ks.append(0)
            classes: dict[int, int] = {}
            for k in ks:
                classes[k % 8] = classes.get(k % 8, 0) + 1
            if len(ks) == len(set(ks)) and any(n >= 2 for r, n in classes.items() if r):
                rest = [leaf for leaf in leaves if not _is_rot(fn, leaf, src, w)]
                if 0 in ks:
                    rest.remove(src)
                found[vid] = RotXor(vid, src, tuple(sorted(ks)), tuple(rest))
                inside.update(inner)
                break
    return found


def _is_rot(fn: Function, leaf: int, src: int, w: int) -> bool:
    op = fn.ops[leaf]
    return op.code == "rotl" and op.width == w and op.args[0] == src


def routine(k: int, amounts: tuple[int, ...], w: int) -> list[str]:
    """static inline cs_vW cs_rotxor_<k>(cs_vW v): XOR of rotl(v, a) for a in amounts."""
    terms = " ^ ".join("v" if a == 0 else f"CS_V{w}_ROTL(v, {a})" for a in amounts)
    classes: dict[int, list[int]] = {}
    for a in amounts:
        classes.setdefault(a % 8, []).append(a)
    parts = []
    for r, members in sorted(classes.items()):
        inner = " ^ ".join("v" if a == r else f"CS_V{w}_ROTB(v, {a - r})" for a in members)
        parts.append(f"({inner})" if r == 0 else f"CS_V{w}_ROTL({inner}, {r})")
    return [
        f"/* XOR of rotl(v, k) for k in {', '.join(map(str, amounts))} */",
        f"static inline cs_v{w} cs_rotxor_{k}(cs_v{w} v)",
        "{",
        "#if defined(__AVX512F__)",
        f"    return {terms};  /* VPROL: one instruction per rotation */",
        "#else",
        f"    return {' ^ '.join(parts)};  /* grouped by k mod 8: byte rotations are PSHUFBs */",
        "#endif",
        "}",
    ]


def byte_rotations(w: int) -> list[str]:
    """CS_V<w>_ROTB(a, k), k a multiple of 8: one PSHUFB without AVX-512, else the rotate instruction."""
    nb = w // 8
    lines = ["#if defined(__AVX512F__)", f"#define CS_V{w}_ROTB(a, k) CS_V{w}_ROTL(a, k)", "#else"]
    for k in range(8, w, 8):
        mask = ", ".join(f"{lane * nb + (j - k // 8) % nb:#04x}" for lane in range(16 // nb) for j in range(nb))
        lines.append(f"static const uint8_t cs_rotb{w}_{k}[16] = {{{mask}}};  /* byte j <- byte j - {k // 8} */")
    lines += [
        f"#define CS_V{w}_ROTB(a, k) ((cs_v{w})CS_X_SHUFFLE((cs_x)(a), CS_X_BCAST16(cs_rotb{w}_##k)))",
        "#endif",
    ]
    return lines
