"""Instruction selection: one IR function -> the body of a CUDA device function, in one of two flavours.

``ptx``: every cipher op is an inline-PTX statement (non-volatile, so nvcc may still schedule,
share and drop them): ``add.u32``, ``sub.u32``, ``xor.b32``/``and.b32``/``or.b32``/``not.b32`` or
``lop3.b32`` for fused logic trees (lop3.py), ``shf.l.wrap.b32``/``shf.r.wrap.b32`` for 32-bit
rotations, ``prmt.b32`` + ``shf.l.wrap.b32`` for 8/16-bit rotations, ``shl.b32``/``shr.b32``,
``and.b32`` for masks.  ``c``: the same dataflow as plain CUDA C expressions (nvcc selects).
Table lookups are loads from the placement's memory in both flavours (an expression the caller
supplies).

64-bit values are register pairs (ptx) or ``uint64_t`` (c): wide.py.  8- and 16-bit words live in 32-bit registers.  Each value carries a *clean* flag (bits above its
width are zero).  Ops whose low bits depend only on the operands' low bits (add, sub, xor, and, or,
not, shl, rotl via prmt+shf) accept dirty operands; shr, table indices, zext and function outputs
need clean ones, and get one ``and.b32`` the first time a dirty value is used that way:

    IR (u8):  %2 = add %0, %1     %3 = lut S, %2
    ptx:      asm("add.u32 %0, %1, %2;" : "=r"(v2) : "r"(v0), "r"(v1));        // hight.cs:40:5 ...
              asm("and.b32 %0, %1, 0xff;" : "=r"(v2m) : "r"(v2));              // clean for lut
              const uint32_t v3 = S_LOOKUP(v2m);

Every emitted line ends with a comment naming the IR value(s) and their origin.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from cipherspec.errors import UsageError
from cipherspec.ir import Function, mask

from ..common.memo import by_shape
from ..mir import schedule as pressure
from . import lop3, lop3map, slices, wide
from .abswitch import former_bitsliced
from .values import Val, _comment

FLAVOURS = ("ptx", "c")


@dataclass
class Env:
    """What the caller binds: input name -> (expression, clean); table lookup and naming hooks."""

    inputs: dict[str, Val]
    lookup: Callable[[str, str], str]  # (table name, clean index expression) -> load expression
    prefix: str = "v"
    imad: frozenset = frozenset()  # shl/shr value ids to select as FMA-pipe multiplies (balance.py)
    pressure: bool = (
        False  # emit in register-pressure order (generator/mir/schedule.py, shared with NEON), not the IR's
    )


@dataclass
class Body:
    lines: list[str] = field(default_factory=list)
    outputs: list[tuple[str, str]] = field(default_factory=list)  # (output name, clean expression)


class Selector:
    def __init__(self, fn: Function, env: Env, flavour: str):
        if flavour not in FLAVOURS:
            raise UsageError(f"unknown kernel flavour {flavour!r}")
        for op in fn.ops:
            if op.code == "gmul":
                raise UsageError("cuda backend: run lower_gmul before instruction selection")
            if op.width == 64 and op.code in ("input", "lut"):
                raise UsageError(f"cuda backend: a 64-bit {op.code} ({op.origin}): run split_u64 first")
        self.fn, self.env, self.flavour = fn, env, flavour
        self.vals: dict[int, Val] = {}
        self.masked: dict[int, str] = {}
        self.body = Body()
        # 64-bit trees: once per half (wide.py); shared cones (lop3map.py) unless the A/B switch names the old cover
        self.trees = _tree_cover(os.environ.get("CIPHERSPEC_PTX_LOP3"))(fn, 64) if flavour == "ptx" else {}
        self.members = {m for t in self.trees.values() for m in t.members} - self.trees.keys()

    # ----------------------------------------------------------------------------- emission helpers
    def name(self, v: int) -> str:
        return f"{self.env.prefix}{v}"

    def line(self, text: str, comment: str) -> None:
        self.body.lines.append(f"{text:<96} {comment}")

    def asm(self, dst: str, template: str, srcs: list[str], comment: str) -> None:
        ins = ", ".join(f'"r"({s})' for s in srcs)
        self.line(f'uint32_t {dst}; asm("{template}" : "=r"({dst}) : {ins});', comment)

    def cdef(self, dst: str, expr: str, comment: str) -> None:
        self.line(f"const uint32_t {dst} = {expr};", comment)

    def clean(self, v: int) -> str:
        val = self.vals[v]
        if val.clean:
            return val.expr
        if v not in self.masked:
            w = self.fn.ops[v].width
            dst = f"{self.name(v)}m"
            byte = self._byte_of_word(v)
            if byte is not None and self.flavour == "ptx":  # byte r of a word, zero-extended: one PRMT
                src, r = byte
                self.asm(dst, f"prmt.b32 %0, %1, 0, {0x4440 + r:#06x};", [src], _comment(self.fn, v, f"byte {r}"))
            elif self.flavour == "ptx":
                self.asm(dst, f"and.b32 %0, %1, {mask(w):#x};", [val.expr], _comment(self.fn, v, f"clean u{w}"))
            else:
                self.cdef(dst, f"{val.expr} & {mask(w):#x}u", _comment(self.fn, v, f"clean u{w}"))
            self.masked[v] = dst
        return self.masked[v]

    def _byte_of_word(self, v: int) -> tuple[str, int] | None:
        """trunc.u8 of a 32-bit word, or of that word shifted right by 8r: (the word's expression, r)."""
        op = self.fn.ops[v]
        if op.code != "trunc" or op.width != 8:
            return None
        a = self.fn.ops[op.args[0]]
        if a.width != 32:
            return None
        if a.code == "shr" and a.imm[0] % 8 == 0 and op.args[0] in self.vals:
            return self.raw(a.args[0]), a.imm[0] // 8
        return self.raw(op.args[0]), 0

    def raw(self, v: int) -> str:
        return self.vals[v].expr

    # ----------------------------------------------------------------------------- selection
    def run(self) -> Body:
        fn = self.fn
        for v in self._order():
            self.vals[v] = self.select(v, fn.ops[v])
        for name, v in fn.outputs:
            self.body.outputs.append((name, self.clean(v)))
        return self.body

    def _order(self) -> list[int]:
        """The ops to select (LOP3 tree members are part of their root), in IR order or, with
        ``env.pressure``, in register-pressure order over the selected graph (a tree reads its leaves)."""
        fn = self.fn
        if not self.env.pressure:
            return [v for v in range(len(fn.ops)) if v not in self.members]
        held = tuple(
            v
            for v, op in enumerate(fn.ops)
            if op.code == "input" and self.env.inputs.get(op.imm[0], Val("", True)).register
        )
        return list(_pressure_order(fn, self.flavour, held, former_bitsliced(), os.environ.get("CIPHERSPEC_PTX_LOP3")))

    def select(self, v: int, op) -> Val:
        fn, w, code, d = self.fn, op.width, op.code, self.name(v)
        ptx = self.flavour == "ptx"
        cm = _comment(fn, v, f"{code}.u{w}" + (f" {op.imm[0]}" if op.imm and code != "const" else ""))
        if code == "input":
            name = op.imm[0]
            if name not in self.env.inputs:
                raise UsageError(f"cuda backend: input {name} is not bound")
            return self.env.inputs[name]
        if w == 64:
            return wide.select(self, v, op, d, cm)
        if code == "const":
            return Val(f"{op.imm[0]:#x}u", True)
        if v in self.trees:
            return self._logic(v, self.trees[v], d)
        if code in ("xor", "and", "or", "not"):  # c flavour: one op each
            if code == "not":
                self.cdef(d, f"~{self.raw(op.args[0])}", cm)
                return Val(d, w == 32)
            left, right = (self.vals[x] for x in op.args)
            sym = {"xor": "^", "and": "&", "or": "|"}[code]
            self.cdef(d, f"{left.expr} {sym} {right.expr}", cm)
            return Val(d, left.clean and right.clean)
        if code in ("add", "sub"):
            a, b = self.raw(op.args[0]), self.raw(op.args[1])
            if ptx:
                self.asm(d, f"{code}.u32 %0, %1, %2;", [a, b], cm)
            else:
                self.cdef(d, f"{a} {'+' if code == 'add' else '-'} {b}", cm)
            return Val(d, w == 32)
        if code == "shl":
            k = op.imm[0]
            if ptx and v in self.env.imad:  # IMAD.SHL on the FMA pipe
                self.asm(d, f"mul.lo.u32 %0, %1, {1 << k:#x};", [self.raw(op.args[0])], cm + " (fma pipe)")
            elif ptx:
                self.asm(d, f"shl.b32 %0, %1, {k};", [self.raw(op.args[0])], cm)
            else:
                self.cdef(d, f"{self.raw(op.args[0])} << {k}", cm)
            return Val(d, w == 32)
        if code == "shr":
            k, a = op.imm[0], self.clean(op.args[0])
            if ptx and v in self.env.imad and w == 32:  # IMAD.HI on the FMA pipe: x >> k == mulhi(x, 2^(32-k))
                self.asm(d, f"mul.hi.u32 %0, %1, {1 << (32 - k):#x};", [a], cm + " (fma pipe)")
            elif ptx:
                self.asm(d, f"shr.b32 %0, %1, {k};", [a], cm)
            else:
                self.cdef(d, f"{a} >> {k}", cm)
            return Val(d, True)
        if code == "rotl":
            return self._rotl(v, op, d, cm)
        if code == "lut":
            self.cdef(d, self.env.lookup(op.imm[0], self.clean(op.args[0])), cm)
            return Val(d, True)
        if code == "zext":
            return Val(self.clean(op.args[0]), True)
        if code == "trunc":
            src = self.vals[op.args[0]]
            if fn.ops[op.args[0]].width == 64:  # the low half (ptx) or a cast (c)
                return Val(src.expr if ptx else f"(uint32_t)({src.expr})", w == 32)
            return Val(src.expr, src.clean and fn.ops[op.args[0]].width <= w)
        raise UsageError(f"cuda backend: no selection for opcode {code}")

    def _byte_select(self, tree: lop3.Tree) -> tuple[list[int], int] | None:
        """A 32-bit tree that picks whole bytes of (shifted) values by a byte mask -> (sources, prmt selector).

        before: %5 = shl %1, 8   %7 = xor %5, (and (xor %0, %5), 0x00ff00ff)   (a byte select: SHF + LOP3)
        after:  prmt %0, %1, 0x6240                                            (one PRMT; the shl goes dead)
        """
        fn = self.fn
        if fn.ops[tree.root].width != 32 or len(tree.leaves) != 3:
            return None
        consts = [x for x in tree.leaves if fn.ops[x].code == "const"]
        if len(consts) != 1:
            return None
        mask_v = fn.ops[consts[0]].imm[0]
        if any((mask_v >> (8 * p) & 0xFF) not in (0, 0xFF) for p in range(4)):
            return None
        pos = {x: i for i, x in enumerate(tree.leaves)}
        others = [x for x in tree.leaves if x != consts[0]]
        bases: list[int] = []
        sel = 0
        for p in range(4):
            m = mask_v >> (8 * p) & 1
            picked = None
            for x in others:  # the output is leaf x whatever the other leaf is
                y = others[1] if x == others[0] else others[0]
                if all(
                    (tree.table >> ((bx << (2 - pos[x])) | (by << (2 - pos[y])) | (m << (2 - pos[consts[0]]))) & 1)
                    == bx
                    for bx in (0, 1)
                    for by in (0, 1)
                ):
                    picked = x
            if picked is None:
                return None
            src, shift = picked, 0
            op = fn.ops[picked]
            if op.code in ("shl", "shr") and op.imm[0] % 8 == 0:
                src, shift = op.args[0], (op.imm[0] // 8) * (1 if op.code == "shl" else -1)
            byte = p - shift
            if not 0 <= byte <= 3:
                return None  # a zero byte: not a select
            if src not in bases:
                bases.append(src)
            if len(bases) > 2:
                return None
            sel |= (4 * bases.index(src) + byte) << (4 * p)
        return bases, sel

    def _logic(self, v: int, tree: lop3.Tree, d: str) -> Val:
        op = self.fn.ops[v]
        picked = self._byte_select(tree)
        if picked is not None:
            bases, sel = picked
            srcs = [self.raw(x) for x in bases] + ([] if len(bases) == 2 else ["0"])
            cm = _comment(self.fn, list(tree.members)[::-1], f"byte select.u32 {sel:#06x}")
            self.asm(
                d,
                f"prmt.b32 %0, %1, %2, {sel:#06x};" if len(bases) == 2 else f"prmt.b32 %0, %1, 0, {sel:#06x};",
                srcs[: len(bases)],
                cm,
            )
            return Val(d, True)
        leaves = [self.vals[x] for x in tree.leaves]
        what = tree.simple
        cm = _comment(
            self.fn,
            list(tree.members)[::-1] if len(tree.members) > 1 else v,
            f"{what or 'lop3'}.u{op.width}" + ("" if what else f" {tree.table:#04x}"),
        )
        if what == "not":
            self.asm(d, "not.b32 %0, %1;", [leaves[0].expr], cm)
        elif what:
            self.asm(d, f"{what}.b32 %0, %1, %2;", [leaves[0].expr, leaves[1].expr], cm)
        else:
            srcs = [x.expr for x in leaves] + [leaves[0].expr] * (3 - len(leaves))
            self.asm(d, f"lop3.b32 %0, %1, %2, %3, {tree.table:#04x};", srcs, cm)
        clean = op.width == 32 or (all(x.clean for x in leaves) and not tree.table & 1)
        return Val(d, clean)

    def _rotl(self, v: int, op, d: str, cm: str) -> Val:
        w, k = op.width, op.imm[0]
        if self.flavour == "c":
            if w == 32:
                a = self.raw(op.args[0])
                self.cdef(d, f"({a} << {k}) | ({a} >> {32 - k})", cm)
                return Val(d, True)
            a = self.clean(op.args[0])
            self.cdef(d, f"({a} << {k}) | ({a} >> {w - k})", cm)
            return Val(d, False)
        a = self.raw(op.args[0])
        if w == 32:
            if k <= 16:
                self.asm(d, f"shf.l.wrap.b32 %0, %1, %1, {k};", [a], cm)
            else:
                self.asm(d, f"shf.r.wrap.b32 %0, %1, %1, {32 - k};", [a], cm)
            return Val(d, True)
        # replicate the word over 32 bits with prmt, then a 32-bit rotate leaves rotl_w in the low w bits
        sel = "0x1010" if w == 16 else "0x0000"
        self.asm(f"{d}r", f"prmt.b32 %0, %1, 0, {sel};", [a], cm + " (replicate)")
        self.asm(d, f"shf.l.wrap.b32 %0, %1, %1, {k};", [f"{d}r"], cm)
        return Val(d, False)


def _tree_cover(switch: str | None) -> Callable[[Function, int], dict[int, lop3.Tree]]:
    """The ptx flavour's LOP3 cover: shared cones (lop3map.py) unless the A/B switch names the old tree cover."""
    return lop3.cover if switch == "tree" else lop3map.cover


@by_shape(32)
def _pressure_order(
    fn: Function, flavour: str, held: tuple[int, ...], former: bool, switch: str | None
) -> tuple[int, ...]:
    """Selector._order's register-pressure order, a function of the IR's shape only (``held``: the inputs bound
    to registers; ``former``, ``switch``: the A/B switches), so that the kernels' copies of one core (single-key
    and multi-key CTR) and the same round-loop body in several ciphers are ordered once."""
    # the c flavour too is ordered as LOP3 trees (ptxas fuses them): a tree's members go right before its root
    own = _tree_cover(switch)(fn, 64) if flavour == "ptx" else {}
    trees = own if flavour == "ptx" else lop3.cover(fn)
    members = {m for t in trees.values() for m in t.members} - trees.keys()
    ops = [v for v in range(len(fn.ops)) if v not in members]
    leaves = [v for v in ops if fn.ops[v].code in ("input", "const")]
    nodes = [v for v in ops if fn.ops[v].code not in ("input", "const")]
    operands = {v: trees[v].leaves if v in trees else fn.ops[v].args for v in nodes}
    registers = set(nodes) | set(held)
    out = list(leaves)
    if not former:  # (the A/B switch, abswitch.py)
        nodes = slices.cluster(fn, nodes, operands, registers)  # a linear layer's slices one at a time
    for v in pressure.order(nodes, operands, registers, {v for _, v in fn.outputs}):
        if v in trees and v not in own:  # (c flavour) the tree's own ops, then its root
            out += [m for m in trees[v].members if m != v]
        out.append(v)
    return tuple(out)


def select(fn: Function, env: Env, flavour: str) -> Body:
    return Selector(fn, env, flavour).run()
