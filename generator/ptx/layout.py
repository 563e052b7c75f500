"""Block bytes <-> IR words, through 32-bit memory words and byte permutes (``prmt.b32``).

A block of B bytes is read as B/4 little-endian memory words M[k] (one uint4 for 16-byte blocks).
IR word j of width w covers bytes j*w/8 ... of the block; ``unpack`` gives each IR word as a
``prmt`` of one memory word (selector nibble s = the byte of M[k] holding significance s, 4 = zero):

    u32[4] little: X[j] = M[j]                      (identity, no instruction)
    u32[4] big:    X[j] = prmt(M[j], 0, 0x0123)     (byte swap)
    u16[4] big:    X[1] = prmt(M[0], 0, 0x4423)
    u8[16]:        X[5] = prmt(M[1], 0, 0x4441)

``pack`` is the inverse: each memory word from up to four IR words, one ``prmt`` per pair.
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.errors import UsageError
from cipherspec.ir import WordLayout


@dataclass(frozen=True)
class Piece:
    word: int  # IR word index
    mem: int  # memory word index
    # byte of the memory word (0..3) holding each significance byte of the IR word
    bytes: tuple[int, ...]


def check(layout: WordLayout) -> None:
    if layout.width > 32:
        raise UsageError(f"cuda backend: {layout} blocks (64-bit words) are not supported yet; use --target c")
    if layout.nbytes % 4:
        raise UsageError(f"cuda backend: block of {layout.nbytes} bytes is not a whole number of 32-bit words")


def pieces(layout: WordLayout) -> list[Piece]:
    check(layout)
    nb = layout.width // 8
    out = []
    for j in range(layout.count):
        first = j * nb
        offs = [first + t for t in range(nb)]  # memory order
        sig = offs if layout.endian == "little" or nb == 1 else offs[::-1]  # significance order
        out.append(Piece(j, first // 4, tuple(o % 4 for o in sig)))
    return out


def unpack_selector(p: Piece) -> int:
    nibbles = list(p.bytes) + [4] * (4 - len(p.bytes))
    return sum(n << (4 * s) for s, n in enumerate(nibbles))


def pack_plan(layout: WordLayout) -> list[list[tuple[int, int, int]]]:
    """Per memory word: (memory byte, IR word, significance byte) for its 4 bytes."""
    plan: list[list[tuple[int, int, int]]] = [[] for _ in range(layout.nbytes // 4)]
    for p in pieces(layout):
        for s, b in enumerate(p.bytes):
            plan[p.mem].append((b, p.word, s))
    for row in plan:
        row.sort()
    return plan


def unpack_expr(p: Piece, mem: str, flavour: str) -> str:
    sel = unpack_selector(p)
    if sel == 0x3210:
        return mem
    if flavour == "ptx":
        return f"cs_prmt({mem}, {sel:#06x})"
    terms = []
    for s, b in enumerate(p.bytes):
        sh = 8 * b - 8 * s
        t = f"({mem} >> {sh})" if sh > 0 else (f"({mem} << {-sh})" if sh < 0 else mem)
        terms.append(f"({t} & {0xFF << (8 * s):#x}u)")
    return " | ".join(terms)


def pack_lines(layout: WordLayout, words: list[str], dst: str, flavour: str) -> list[str]:
    """Statements setting ``dst[k]`` (memory words) from IR word expressions (clean)."""
    lines = []
    for k, row in enumerate(pack_plan(layout)):
        srcs = list(dict.fromkeys(w for _, w, _ in row))
        if flavour == "c":
            terms = []
            for b, w, s in row:
                sh = 8 * b - 8 * s
                t = f"({words[w]} << {sh})" if sh > 0 else (f"({words[w]} >> {-sh})" if sh < 0 else words[w])
                terms.append(f"({t} & {0xFF << (8 * b):#x}u)")
            lines.append(f"{dst}[{k}] = {' | '.join(terms)};")
            continue
        if len(srcs) == 1:  # one 32-bit word: identity or byte swap
            sel = sum(s << (4 * b) for b, _, s in row)
            lines.append(
                f"{dst}[{k}] = {words[srcs[0]]};"
                if sel == 0x3210
                else f"{dst}[{k}] = cs_prmt({words[srcs[0]]}, {sel:#06x});"
            )
        elif len(srcs) == 2:  # two 16-bit words: one prmt
            sel = sum((s + 4 * srcs.index(w)) << (4 * b) for b, w, s in row)
            lines.append(f"{dst}[{k}] = cs_prmt2({words[srcs[0]]}, {words[srcs[1]]}, {sel:#06x});")
        else:  # four bytes: two pairs, then one prmt
            a, b_ = row[0:2], row[2:4]
            s01 = (a[0][2]) | ((a[1][2] + 4) << 4)
            s23 = (b_[0][2]) | ((b_[1][2] + 4) << 4)
            lines.append(
                f"{dst}[{k}] = cs_prmt2(cs_prmt2({words[a[0][1]]}, {words[a[1][1]]}, {s01:#06x}), "
                f"cs_prmt2({words[b_[0][1]]}, {words[b_[1][1]]}, {s23:#06x}), 0x5410);"
            )
    return lines


def counter_memword(flavour: str, lo: str) -> str:
    """The block's last memory word for counter low bits ``lo`` (big-endian bytes): a byte swap."""
    return f"cs_prmt({lo}, 0x0123)" if flavour == "ptx" else f"cs_bswap_c({lo})"
