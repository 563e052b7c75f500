"""The sliced layout: state word i of L blocks in the L lanes of one register.

Loads are ``LD4`` (which de-interleaves by four) followed by ``m`` levels of ``UZP1``/``UZP2`` when a
block has 4·2^m words; stores are the exact inverse (``ZIP1``/``ZIP2`` then ``ST4``).  The shuffle
network is derived by simulating register contents symbolically and is checked before use, so a wrong
network cannot be emitted.

    u32[4] (LEA):   ld4 {v0.4s-v3.4s}, [x1], #64            -> v<i> = word i of blocks 0..3
    u8[8] (PIPO):   ld4 ×2 (.16b) + 8 uzp1/uzp2              -> word i of blocks 0..15
    u8[16] (ARIA):  ld4 ×4 (.16b) + 32 uzp1/uzp2             -> byte i of blocks 0..15
Big-endian words of 16/32 bits get ``REV16``/``REV32`` after loading and before storing.
"""
from __future__ import annotations

from dataclasses import dataclass

from cipherspec.errors import UsageError
from cipherspec.ir import WordLayout

from ..mir.mir import Instr, Text, Vec, VecList, VRegFactory

ARR = {8: "16b", 16: "8h", 32: "4s"}


@dataclass(frozen=True)
class Sliced:
    block: WordLayout

    @property
    def lanes(self) -> int:
        return 128 // self.block.width

    @property
    def arr(self) -> str:
        return ARR[self.block.width]

    @property
    def levels(self) -> int:
        m, c = 0, self.block.count
        while c > 4:
            c //= 2
            m += 1
        return m

    @property
    def group_bytes(self) -> int:
        return self.lanes * self.block.nbytes


def check_sliced(block: WordLayout, where: str) -> Sliced:
    c = block.count
    if block.width not in ARR or c < 4 or c & (c - 1):
        raise UsageError(f"not supported by neon: sliced layout for block {block} (needs u8/u16/u32 words, "
                         f"4·2^m of them) at {where}")
    return Sliced(block)


def _initial(s: Sliced) -> list[list[list[tuple[int, int]]]]:
    """Contents of the 4 registers of each LD4: lists of (block, word) per lane."""
    per = 1 << s.levels  # words per LD4 lane group of one block / 4
    bpl = s.lanes // per  # blocks per LD4
    loads = []
    for h in range(per):
        regs = []
        for j in range(4):
            regs.append([(h * bpl + idx // per, j + 4 * (idx % per)) for idx in range(s.lanes)])
        loads.append(regs)
    return loads


def plan(s: Sliced) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The unzip network as pairs of register ids; registers are numbered: LD4 h reg j = 4h+j, then
    each uzp pair appends (uzp1, uzp2).  Returns [(inputs (a, b), outputs (u1, u2))] and checks the end."""
    contents: list[list[tuple[int, int]]] = [r for regs in _initial(s) for r in regs]
    live = list(range(len(contents)))
    steps = []
    for _ in range(s.levels):
        # pair registers whose block ranges are adjacent chunks and whose word patterns agree
        by_key: dict[tuple, int] = {}
        nxt = []
        for r in live:
            blocks = sorted({b for b, _ in contents[r]})
            words = tuple(w for b, w in contents[r] if b == blocks[0])
            by_key[(blocks[0], words)] = r
        span = {r: len({b for b, _ in contents[r]}) for r in live}
        used = set()
        for r in live:
            if r in used:
                continue
            blocks = sorted({b for b, _ in contents[r]})
            words = tuple(w for b, w in contents[r] if b == blocks[0])
            partner = by_key.get((blocks[0] + span[r], words))
            if partner is None or (blocks[0] // span[r]) % 2:
                continue
            used |= {r, partner}
            cat = contents[r] + contents[partner]
            contents.append(cat[0::2])
            contents.append(cat[1::2])
            steps.append(((r, partner), (len(contents) - 2, len(contents) - 1)))
            nxt += [len(contents) - 2, len(contents) - 1]
        live = nxt
    final = {}
    for r in live:
        words = {w for _, w in contents[r]}
        blocks = [b for b, _ in contents[r]]
        if len(words) != 1 or blocks != list(range(s.lanes)):
            raise AssertionError(f"sliced load network is wrong for {s.block}")
        final[words.pop()] = r
    if sorted(final) != list(range(s.block.count)):
        raise AssertionError(f"sliced load network misses words for {s.block}")
    return steps, [final[i] for i in range(s.block.count)]


def load(s: Sliced, vf: VRegFactory, ptr: str, origin: str, stream: int) -> tuple[list[Instr], list]:
    """Instructions loading one group from [ptr] (post-incremented) and the vregs of words 0..count-1."""
    steps, final = plan(s)
    regs: dict[int, object] = {}
    out: list[Instr] = []
    per = 1 << s.levels
    for h in range(per):
        group = tuple(vf.new(f"ld{h}.{j}") for j in range(4))
        for j, v in enumerate(group):
            regs[4 * h + j] = v
        out.append(Instr("ld4", (VecList(group, s.arr), Text(f"[{ptr}]"), Text("#64")), defs=group,
                         origin=origin, stream=stream, extra={"group_defs": group}))
    for (a, b), (u1, u2) in steps:
        for code, dst in (("uzp1", u1), ("uzp2", u2)):
            regs[dst] = vf.new()
            out.append(Instr(code, (Vec(regs[dst], s.arr), Vec(regs[a], s.arr), Vec(regs[b], s.arr)),
                             defs=(regs[dst],), uses=(regs[a], regs[b]), origin=origin, stream=stream))
    words = [regs[r] for r in final]
    words = _swap_big_endian(s, vf, words, out, origin, stream)
    return out, words


def _swap_big_endian(s: Sliced, vf: VRegFactory, words: list, out: list, origin: str, stream: int) -> list:
    """Big-endian block words: REV16/REV32 each word register (the same on load and store); else as is."""
    if s.block.width == 8 or s.block.endian != "big":
        return words
    fixed = []
    for v in words:
        w = vf.new()
        out.append(Instr(f"rev{s.block.width}", (Vec(w, "16b"), Vec(v, "16b")), defs=(w,), uses=(v,),
                         origin=origin + " (big-endian words)", stream=stream))
        fixed.append(w)
    return fixed


def store(s: Sliced, vf: VRegFactory, words: list, ptr: str, origin: str, stream: int) -> list[Instr]:
    """The inverse of ``load``: words 0..count-1 (vregs) to [ptr] (post-incremented)."""
    steps, final = plan(s)
    out: list[Instr] = []
    words = _swap_big_endian(s, vf, words, out, origin, stream)
    regs: dict[int, object] = {r: words[i] for i, r in enumerate(final)}
    for (a, b), (u1, u2) in reversed(steps):
        for code, dst in (("zip1", a), ("zip2", b)):
            regs[dst] = vf.new()
            out.append(Instr(code, (Vec(regs[dst], s.arr), Vec(regs[u1], s.arr), Vec(regs[u2], s.arr)),
                             defs=(regs[dst],), uses=(regs[u1], regs[u2]), origin=origin, stream=stream))
    for h in range(1 << s.levels):
        group = tuple(regs[4 * h + j] for j in range(4))
        out.append(Instr("st4", (VecList(group, s.arr), Text(f"[{ptr}]"), Text("#64")), uses=group,
                         origin=origin, stream=stream, kind="store", extra={"group_uses": group}))
    return out
