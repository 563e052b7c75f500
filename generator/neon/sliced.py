"""The sliced layout: state word i of L blocks in the L lanes of one register.

Loads are ``LDk`` (which de-interleaves by k = 4, 3, 2 or 1) followed by ``m`` levels of
``UZP1``/``UZP2`` when a block has k·2^m words; stores are the exact inverse (``ZIP1``/``ZIP2`` then
``STk``).  The shuffle network is derived by simulating register contents symbolically and is checked
before use, so a wrong network cannot be emitted.

    u32[4] (LEA):   ld4 {v0.4s-v3.4s}, [x1], #64            -> v<i> = word i of blocks 0..3
    u8[8] (PIPO):   ld4 ×2 (.16b) + 8 uzp1/uzp2              -> word i of blocks 0..15
    u8[16] (ARIA):  ld4 ×4 (.16b) + 32 uzp1/uzp2             -> byte i of blocks 0..15
    u64[2] (SPECK-128-like):  ld2 {v0.2d-v1.2d}, [x1], #32   -> word i of blocks 0..1
    u32[2] (64-bit blocks):   ld2 {v0.4s-v1.4s}, [x1], #32   -> word i of blocks 0..3
Big-endian words of 16/32/64 bits get ``REV16``/``REV32``/``REV64`` after loading and before storing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from cipherspec.errors import UsageError
from cipherspec.ir import WordLayout

from ..mir.interleave import interleave, stream_name
from ..mir.mir import Instr, Text, Vec, VecList, VReg, VRegFactory
from . import polarity
from .arrangement import ARR
from .isel import Selector
from .layout import Draft, ctr_mix, distinct, state_names


@dataclass(frozen=True)
class Sliced:
    """The sliced layout object the kernel driver runs: ``load`` (LDk + UZP per block group), ``body`` (the
    il groups interleaved, then isel), ``store`` (CTR's EOR with the input, ZIP + STk per group)."""

    block: WordLayout
    schedulable: ClassVar[bool] = True

    @property
    def lanes(self) -> int:
        return 128 // self.block.width

    @property
    def arr(self) -> str:
        return ARR[self.block.width]

    @property
    def k(self) -> int:
        """Words per LDk structure: the largest of 4, 3, 2, 1 leaving a power of two of them per block."""
        return _structure(self.block.count)

    @property
    def levels(self) -> int:
        return (self.block.count // self.k).bit_length() - 1

    @property
    def group_bytes(self) -> int:
        return self.lanes * self.block.nbytes

    def blocks(self, il: int) -> int:
        return il * self.lanes

    def load(self, d: Draft, src: str) -> dict:
        """Every group's words from [src]: {stream name of state word: vreg}."""
        L, state_in = self.lanes, {}
        for k in range(d.il):
            what = (
                f"counter blocks {k * L}..{k * L + L - 1}"
                if d.mode == "ctr"
                else f"load blocks {k * L}..{k * L + L - 1}"
            )
            ins, words = load_group(self, d.vf, src, what, k)
            d.code += ins
            for name, v in zip(state_names(d.module, d.fn), words):
                state_in[stream_name(k, name)] = v
        return state_in

    def body(self, d: Draft, state_in: dict) -> list:
        """The function on il interleaved groups; returns the output words of each group."""
        fn = (polarity.apply(d.fn) or d.fn) if d.polarity else d.fn
        woven, streams = interleave(fn, d.il, set(d.keys))
        sel = Selector(
            woven,
            d.module.tables,
            d.module.block.width,
            d.vf,
            d.pool,
            {n: i for i, n in enumerate(d.keys)},
            d.slice_ptr,
            streams,
            crypto=d.crypto,
            sha3=d.sha3,
            sink=d.sink,
        )
        sel.run(state_in)
        outputs = [[sel.at(v, 0) for name, v in woven.outputs if name.startswith(f"s{k}:")] for k in range(d.il)]
        d.code += sel.code
        d.key_table = list(d.keys)
        d.key_vregs = sel.key_vregs
        return outputs

    def store(self, d: Draft, outputs: list) -> None:
        """Each group to [x2]; CTR first loads that group's input from [x1] and XORs the keystream in."""
        L = self.lanes
        for k in range(d.il):
            outs = outputs[k]
            if d.mode == "ctr":
                ins, data = load_group(self, d.vf, "x1", f"input blocks {k * L}..{k * L + L - 1}", k)
                d.code += ins
                outs = ctr_mix(outs, data, d.vf, d.code, k)
            words = distinct(outs, d.vf, d.code, k)
            d.code += store_group(self, d.vf, words, "x2", f"store blocks {k * L}..{k * L + L - 1}", k)


def _structure(count: int) -> int:
    for k in (4, 3, 2, 1):
        per = count // k
        if count % k == 0 and per & (per - 1) == 0:
            return k
    return 0


def check_sliced(block: WordLayout, where: str) -> Sliced:
    c = block.count
    k = _structure(c)
    if block.width not in ARR or not k or c // k > 128 // block.width:
        raise UsageError(
            f"not supported by neon: sliced layout for block {block} at {where} (needs k·2^m words "
            f"with k = 1..4 and 2^m at most the {128 // block.width} lanes of a register; "
            f"use --target c)"
        )
    return Sliced(block)


def _initial(s: Sliced) -> list[list[list[tuple[int, int]]]]:
    """Contents of the k registers of each LDk: lists of (block, word) per lane."""
    per = 1 << s.levels  # words per LDk lane group of one block / k
    bpl = s.lanes // per  # blocks per LDk
    loads = []
    for h in range(per):
        regs = []
        for j in range(s.k):
            regs.append([(h * bpl + idx // per, j + s.k * (idx % per)) for idx in range(s.lanes)])
        loads.append(regs)
    return loads


def plan(s: Sliced) -> tuple[list[tuple[tuple[int, int], tuple[int, int]]], list[int]]:
    """The unzip network as pairs of register ids; registers are numbered: LDk h reg j = kh+j, then
    each uzp pair appends (uzp1, uzp2).  Returns [(inputs (a, b), outputs (u1, u2))] and checks the end."""
    contents: list[list[tuple[int, int]]] = [r for regs in _initial(s) for r in regs]
    live = list(range(len(contents)))
    steps: list[tuple[tuple[int, int], tuple[int, int]]] = []
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
        word_set = {w for _, w in contents[r]}
        blocks = [b for b, _ in contents[r]]
        if len(word_set) != 1 or blocks != list(range(s.lanes)):
            raise AssertionError(f"sliced load network is wrong for {s.block}")
        final[word_set.pop()] = r
    if sorted(final) != list(range(s.block.count)):
        raise AssertionError(f"sliced load network misses words for {s.block}")
    return steps, [final[i] for i in range(s.block.count)]


def load_group(s: Sliced, vf: VRegFactory, ptr: str, origin: str, stream: int) -> tuple[list[Instr], list]:
    """Instructions loading one group from [ptr] (post-incremented) and the vregs of words 0..count-1."""
    steps, final = plan(s)
    regs: dict[int, VReg] = {}
    out: list[Instr] = []
    per, k = 1 << s.levels, s.k
    for h in range(per):
        group = tuple(vf.new(f"ld{h}.{j}") for j in range(k))
        for j, v in enumerate(group):
            regs[k * h + j] = v
        out.append(
            Instr(
                f"ld{k}",
                (VecList(group, s.arr), Text(f"[{ptr}]"), Text(f"#{16 * k}")),
                defs=group,
                origin=origin,
                stream=stream,
                extra={"group_defs": group},
            )
        )
    for (a, b), (u1, u2) in steps:
        for code, dst in (("uzp1", u1), ("uzp2", u2)):
            regs[dst] = vf.new()
            out.append(
                Instr(
                    code,
                    (Vec(regs[dst], s.arr), Vec(regs[a], s.arr), Vec(regs[b], s.arr)),
                    defs=(regs[dst],),
                    uses=(regs[a], regs[b]),
                    origin=origin,
                    stream=stream,
                )
            )
    words = [regs[r] for r in final]
    words = _swap_big_endian(s, vf, words, out, origin, stream)
    return out, words


def _swap_big_endian(s: Sliced, vf: VRegFactory, words: list, out: list, origin: str, stream: int) -> list:
    """Big-endian block words: REV16/REV32/REV64 each word register (the same on load and store); else as is."""
    if s.block.width == 8 or s.block.endian != "big":
        return words
    fixed = []
    for v in words:
        w = vf.new()
        out.append(
            Instr(
                f"rev{s.block.width}",
                (Vec(w, "16b"), Vec(v, "16b")),
                defs=(w,),
                uses=(v,),
                origin=origin + " (big-endian words)",
                stream=stream,
            )
        )
        fixed.append(w)
    return fixed


def store_group(s: Sliced, vf: VRegFactory, words: list, ptr: str, origin: str, stream: int) -> list[Instr]:
    """The inverse of ``load_group``: words 0..count-1 (vregs) to [ptr] (post-incremented)."""
    steps, final = plan(s)
    out: list[Instr] = []
    words = _swap_big_endian(s, vf, words, out, origin, stream)
    regs: dict[int, VReg] = {r: words[i] for i, r in enumerate(final)}
    for (a, b), (u1, u2) in reversed(steps):
        for code, dst in (("zip1", a), ("zip2", b)):
            regs[dst] = vf.new()
            out.append(
                Instr(
                    code,
                    (Vec(regs[dst], s.arr), Vec(regs[u1], s.arr), Vec(regs[u2], s.arr)),
                    defs=(regs[dst],),
                    uses=(regs[u1], regs[u2]),
                    origin=origin,
                    stream=stream,
                )
            )
    for h in range(1 << s.levels):
        group = tuple(regs[s.k * h + j] for j in range(s.k))
        out.append(
            Instr(
                f"st{s.k}",
                (VecList(group, s.arr), Text(f"[{ptr}]"), Text(f"#{16 * s.k}")),
                uses=group,
                origin=origin,
                stream=stream,
                kind="store",
                extra={"group_uses": group},
            )
        )
    return out
