"""The packed layout: each block in contiguous lanes (Type 1), same-S-box bytes grouped for TBL (Type 2).

A group is 4·il registers = 64·il bytes: ``ld1 {v0.16b-v3.16b}, [x1], #64`` puts block b in register b
(16-byte blocks; 8-byte blocks: blocks 2r and 2r+1 in register r).  Non-linear ops ("nodes", linear.py)
are packed by depth and class, so all lanes of one vector run one instruction — ARIA's 4 lookups into
SB1 of 4 blocks form one 16-lane TBL chain (the seed's state Type 2).  XOR networks are never computed
op by op: every operand and output is rebuilt as the XOR of permuted copies of registers
(permute.cover: the register itself, REV16/REV32/REV64, EXT, TBL), so a diffusion layer becomes
permutations + EOR that the spec author never wrote.  When a layer's results feed wide XOR sums they
are regathered one block per register first (Type 1), so each permutation reads a single register.

    ARIA round on 4 blocks:  4 tbl (Type 1 -> Type 2);  4 × (tbl + 3 × (sub, tbx))  S-boxes;
                             4 tbl (-> Type 1);  4 × (7 single-register permutations + 7 eor incl. the key)

Only byte-word states (u8[16], u8[8]) with byte ops are packed; anything else is refused by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from cipherspec.errors import UsageError
from cipherspec.ir import Function, Module

from ..mir.mir import Instr, Text, Vec, VecList, VReg, VRegFactory
from .isel import LUT_CHUNK, Selector
from .layout import Draft, ctr_mix, distinct
from .linear import Expansion, Lin, expand
from .permute import Gather, cover

BINARY = {"and": "and", "orr": "orr", "bic": "bic", "orn": "orn", "add": "add", "sub": "sub"}


def check_packed(module: Module, where: str) -> Packed:
    b = module.block
    if b.width != 8 or b.nbytes not in (8, 16):
        raise UsageError(
            f"not supported by neon: packed layout for block {b} (needs u8[8] or u8[16]; "
            f"use the sliced layout) at {where}"
        )
    return Packed(b.nbytes)


@dataclass(frozen=True)
class Packed:
    """The packed layout object the kernel driver runs: ``load`` (LD1 of 4 registers per 64 bytes), ``body``
    (the Packer), ``store`` (CTR's EOR with the input, ST1)."""

    nbytes: int  # block bytes: 8 or 16
    schedulable: ClassVar[bool] = False  # its vectors mix blocks: no sinking, no list scheduling

    def blocks(self, il: int) -> int:
        return il * 64 // self.nbytes

    def load(self, d: Draft, src: str) -> list:
        ins, regs = load(d.vf, src, d.il, "counter blocks" if d.mode == "ctr" else "load blocks")
        d.code += ins
        return regs

    def body(self, d: Draft, regs: list) -> list:
        """The function on every block of the group; d.key_table: per vector, the 16 round-key names of its
        lanes (None: a zero lane)."""
        sel = Selector(d.fn, d.module.tables, 8, d.vf, d.pool, {}, d.slice_ptr, [0] * len(d.fn.ops))
        packer = Packer(d.fn, sel, set(d.keys), self.blocks(d.il), self.nbytes)
        outs = packer.run(regs)
        d.code += sel.code
        d.key_table = [names for names, _ in sorted(packer.key_slots.items(), key=lambda kv: kv[1])]
        return outs

    def store(self, d: Draft, outs: list) -> None:
        """Every 64 bytes to [x2]; CTR first loads the whole input from [x1] and XORs the keystream in."""
        if d.mode == "ctr":
            ins, data = load(d.vf, "x1", d.il, "input blocks")
            d.code += ins
            outs = ctr_mix(outs, data, d.vf, d.code, 0)
        for k in range(0, len(outs), 4):
            outs[k : k + 4] = distinct(outs[k : k + 4], d.vf, d.code, k // 4)
        d.code += store(outs, "x2", "store blocks")


@dataclass
class Packer:
    """Vectorises one function over ``blocks`` blocks; ``code`` collects the machine IR."""

    fn: Function
    sel: Selector  # constants, table slices, instruction emission
    keys: set
    blocks: int
    nb: int  # block bytes
    ex: Expansion = field(init=False)  # made by __post_init__
    contents: dict = field(default_factory=dict)  # vreg -> 16 atoms (None: don't care)
    where: dict = field(default_factory=dict)  # atom -> [(vreg, lane)]
    key_slots: dict = field(default_factory=dict)  # 16 key names (None: zero lane) -> ktab vector index
    _key_vregs: dict = field(default_factory=dict)
    _memo: dict = field(default_factory=dict)

    def __post_init__(self):
        self.ex = expand(self.fn, self.keys)
        wide = set()
        for lin in [lin for i in self.ex.nodes for _, lin in self.ex.form[i][1]] + [
            self.ex.lin[v] for _, v in self.fn.outputs
        ]:
            ints = [a for a in lin.atoms if isinstance(a, int)]
            if len(ints) >= 3:
                wide.update(ints)
        self.wide = wide

    @property
    def per_reg(self) -> int:
        return 16 // self.nb

    def stream_of(self, b: int) -> int:
        return b // (4 * self.per_reg)

    # ------------------------------------------------------------------ bookkeeping
    def record(self, v, atoms: list) -> None:
        self.contents[v] = list(atoms) + [None] * (16 - len(atoms))
        for j, a in enumerate(self.contents[v]):
            if a is not None:
                self.where.setdefault(a, []).append((v, j))

    def canon(self, b: int, lin: Lin) -> tuple:
        ints = sorted(a for a in lin.atoms if isinstance(a, int))
        ks = tuple(sorted(a[1] for a in lin.atoms if not isinstance(a, int)))
        if len(ints) == 1 and not ks and not lin.const:
            return (b, ints[0])
        return ("c", b, tuple(ints), ks, lin.const)

    def emit(self, mn: str, operands: tuple, defs=(), uses=(), tied=None, extra=None, origin="", stream=0):
        ins = self.sel.emit(mn, operands, defs, uses, None, tied, extra, origin)
        ins.stream = stream
        return ins

    # ------------------------------------------------------------------ operands
    def key_vector(self, names: tuple):
        if names not in self.key_slots:
            self.key_slots[names] = len(self.key_slots)
        slot = self.key_slots[names]
        if slot not in self._key_vregs:
            off = 16 * slot
            if off > 65520:
                raise UsageError("not supported by neon: more than 4096 packed round-key vectors")
            label = next(n for n in names if n)
            self._key_vregs[slot] = self.sel.vf.new(
                label,
                remat=lambda v, off=off, label=label: [
                    Instr(
                        "ldr",
                        (Vec(v, "q"), Text(f"[x0, #{off}]")),
                        defs=(v,),
                        kind="load",
                        origin=f"round keys {label}..",
                    )
                ],
            )
        return self._key_vregs[slot]

    def materialize(self, lanes: list, origin: str, stream: int):
        """A vreg whose lane l is lanes[l] = (block, Lin) (None: don't care)."""
        lanes = list(lanes) + [None] * (16 - len(lanes))
        cks = [self.canon(x[0], x[1]) if x is not None else None for x in lanes]
        memo = tuple(cks)
        if memo in self._memo:
            return self._memo[memo]
        need: list[set | None] = []
        keys: list[list] = []
        consts: list[int] = []
        for x, ck in zip(lanes, cks):
            if x is None or ck is None:  # ck is None exactly where x is
                need.append(None)
                keys.append([])
                consts.append(0)
            elif ck in self.where or ck[0] != "c":
                need.append({ck})
                keys.append([])
                consts.append(0)
            else:
                need.append(set((x[0], a) for a in ck[2]))
                keys.append(list(ck[3]))
                consts.append(ck[4])
        vecs = [self.gather(t, origin, stream) for t in cover(need, self.contents, self.where)]
        while any(keys):
            vecs.append(self.key_vector(tuple(k.pop(0) if k else None for k in keys)))
        if any(consts):
            live = {c for x, c in zip(lanes, consts) if x is not None}
            vecs.append(
                self.sel.const(live.pop(), 8)
                if len(live) == 1
                else self.sel.bytes_const(bytes(consts), "lane constants")
            )
        if not vecs:
            vecs = [self.sel.const(0, 8)]
        while len(vecs) > 1:  # a balanced EOR tree (short dependency chains)
            nxt = []
            for k in range(0, len(vecs) - 1, 2):
                d = self.sel.vf.new()
                self.emit(
                    "eor",
                    (Vec(d, "16b"), Vec(vecs[k], "16b"), Vec(vecs[k + 1], "16b")),
                    (d,),
                    (vecs[k], vecs[k + 1]),
                    origin=origin,
                    stream=stream,
                )
                nxt.append(d)
            vecs = nxt + (vecs[-1:] if len(vecs) % 2 else [])
        v = vecs[0]
        if v not in self.contents:
            self.record(v, cks)
        self._memo[memo] = v
        return v

    def gather(self, t: Gather, origin: str, stream: int):
        """Emits one term; the permuted copy is recorded, so later terms may permute it further."""
        if t.kind == "reg":
            return t.sources[0]
        d = self.sel.vf.new()
        x = t.sources[0]
        if t.kind.startswith("rev"):
            mn, arr = t.kind.split(".")
            self.emit(mn, (Vec(d, arr), Vec(x, arr)), (d,), (x,), origin=origin + " (permute)", stream=stream)
            mask = {
                ("rev16", "16b"): 1,
                ("rev32", "16b"): 3,
                ("rev64", "16b"): 7,
                ("rev32", "8h"): 2,
                ("rev64", "8h"): 6,
                ("rev64", "4s"): 4,
            }[(mn, arr)]
            self.record(d, [self.contents[x][j ^ mask] for j in range(16)])
            return d
        if t.kind.startswith("ext"):
            n = int(t.kind[3:])
            self.emit(
                "ext",
                (Vec(d, "16b"), Vec(x, "16b"), Vec(x, "16b"), Text(f"#{n}")),
                (d,),
                (x,),
                origin=origin + " (permute)",
                stream=stream,
            )
            self.record(d, [self.contents[x][(j + n) & 15] for j in range(16)])
            return d
        prev = None
        for c in range(0, len(t.sources), 4):
            srcs = tuple(t.sources[c : c + 4])
            idx = self.sel.bytes_const(t.index[4 * c : 4 * c + 16], "byte gather")
            d = self.sel.vf.new()
            ops = (Vec(d, "16b"), VecList(srcs, "16b"), Vec(idx, "16b"))
            extra = {"group_uses": srcs} if len(srcs) > 1 else None
            uses = (idx,) if len(srcs) > 1 else (srcs[0], idx)
            if prev is None:
                self.emit("tbl", ops, (d,), uses, extra=extra, origin=origin + " (gather)", stream=stream)
            else:
                self.emit(
                    "tbx", ops, (d,), (prev,) + uses, tied=prev, extra=extra, origin=origin + " (gather)", stream=stream
                )
            prev = d
        return prev

    # ------------------------------------------------------------------ the function
    def run(self, state_regs: list) -> list:
        """state_regs: the loaded registers (4 per 64 bytes); returns the output registers, same layout."""
        fn, ex = self.fn, self.ex
        states = [i for i, op in enumerate(fn.ops) if op.code == "input" and op.imm[0] not in self.keys]
        if len(states) != self.nb or len(fn.outputs) != self.nb:
            raise UsageError(f"not supported by neon: packed layout needs {self.nb} state bytes in and out")
        for r, v in enumerate(state_regs):
            self.record(v, [(r * self.per_reg + k // self.nb, states[k % self.nb]) for k in range(16)])
        layers: dict[int, list[int]] = {}
        for i in ex.nodes:
            layers.setdefault(ex.depth[i], []).append(i)
        for d in sorted(layers):
            self.layer(layers[d])
        outs = [v for _, v in fn.outputs]
        regs = []
        for r in range(len(state_regs)):
            lanes = [(r * self.per_reg + k // self.nb, ex.lin[outs[k % self.nb]]) for k in range(16)]
            regs.append(self.materialize(lanes, "output", self.stream_of(r * self.per_reg)))
        return regs

    def vectors(self, nodes: list[int]) -> list[list]:
        """Lanes (block, node) of the vectors of one class: whole blocks per vector where they fit."""
        n, out = len(nodes), []
        if n <= 16:
            per = 16 // n
            for b0 in range(0, self.blocks, per):
                out.append([(b, i) for b in range(b0, min(self.blocks, b0 + per)) for i in nodes])
        else:
            for b in range(self.blocks):
                out += [[(b, i) for i in nodes[c : c + 16]] for c in range(0, n, 16)]
        return out

    def layer(self, nodes: list[int]) -> None:
        ex = self.ex
        classes: dict = {}
        for i in nodes:
            classes.setdefault(ex.form[i][0], []).append(i)
        vecs = {cls: self.vectors(members) for cls, members in classes.items()}
        mixed = any(len({b for b, _ in lanes}) > 1 for vs in vecs.values() for lanes in vs)
        if mixed:
            self.pre_combine(nodes)
        for cls, vs in vecs.items():
            if cls[0] == "lut":
                self.lut(cls[1], vs)
            else:
                for lanes in vs:
                    self.node(cls, lanes)
        if mixed and len(nodes) <= 16 and any(i in self.wide for i in nodes):
            for b in range(self.blocks):  # back to one block per register (Type 1)
                origin = str(self.fn.ops[nodes[0]].origin or "") + " (regroup by block)"
                self.materialize([(b, Lin(frozenset([i]))) for i in nodes], origin, self.stream_of(b))

    def pre_combine(self, nodes: list[int]) -> None:
        """XOR sums read by a block-mixing layer: computed one block per register first, where each
        permutation reads one register, then gathered."""
        for b in range(self.blocks):
            seen = {}
            for i in nodes:
                for v, lin in self.ex.form[i][1]:
                    ck = self.canon(b, lin)
                    if ck[0] == "c" and ck not in self.where and ck not in seen:
                        seen[ck] = (v, lin)
            wanted = sorted(seen.values(), key=lambda x: x[0])
            for c in range(0, len(wanted), 16):
                chunk = wanted[c : c + 16]
                origin = str(self.fn.ops[chunk[0][0]].origin or "")
                self.materialize([(b, lin) for _, lin in chunk], origin, self.stream_of(b))

    def operands(self, lanes: list, k: int):
        origin = str(self.fn.ops[lanes[0][1]].origin or "")
        return self.materialize([(b, self.ex.form[i][1][k][1]) for b, i in lanes], origin, self.stream_of(lanes[0][0]))

    def node(self, cls: tuple, lanes: list) -> None:
        code = cls[0]
        s = self.stream_of(lanes[0][0])
        origin = str(self.fn.ops[lanes[0][1]].origin or "")
        args = [self.operands(lanes, k) for k in range(len(self.ex.form[lanes[0][1]][1]))]
        if code == "sum":  # the XOR sum itself, from now on an atom
            self.record(args[0], lanes)
            return
        d = self.sel.vf.new()
        if code in BINARY:
            self.emit(
                BINARY[code],
                (Vec(d, "16b"), Vec(args[0], "16b"), Vec(args[1], "16b")),
                (d,),
                tuple(args),
                origin=origin,
                stream=s,
            )
        elif code == "neg":
            self.emit("neg", (Vec(d, "16b"), Vec(args[0], "16b")), (d,), (args[0],), origin=origin, stream=s)
        elif code in ("sshr", "shl", "ushr"):
            self.emit(
                code,
                (Vec(d, "16b"), Vec(args[0], "16b"), Text(f"#{cls[1]}")),
                (d,),
                (args[0],),
                origin=origin,
                stream=s,
            )
        elif code == "rotl":
            t = self.sel.vf.new()
            self.emit(
                "shl",
                (Vec(t, "16b"), Vec(args[0], "16b"), Text(f"#{cls[1]}")),
                (t,),
                (args[0],),
                origin=origin,
                stream=s,
            )
            self.emit(
                "sri",
                (Vec(d, "16b"), Vec(args[0], "16b"), Text(f"#{8 - cls[1]}")),
                (d,),
                (t, args[0]),
                tied=t,
                origin=origin,
                stream=s,
            )
        else:  # pragma: no cover - linear._form only makes the classes above
            raise AssertionError(code)
        self.record(d, lanes)

    def lut(self, table: str, vectors: list) -> None:
        """256-entry lookups: TBL over the first 64-byte slice, SUB 64 + TBX over the others, each slice
        load serving a chunk of vectors."""
        sel = self.sel
        if len(sel.tables[table].values) == 16:  # a 4-bit S-box: the table fits one register, one TBL
            for lanes in vectors:
                ins_origin = str(self.fn.ops[lanes[0][1]].origin or "")
                d = sel.small_lookup(table, self.operands(lanes, 0), None, origin=ins_origin)
                sel.code[-1].stream = self.stream_of(lanes[0][0])
                self.record(d, lanes)
            return
        slices = sel.slices(table)
        c64 = sel.const(64, 8)
        for c in range(0, len(vectors), LUT_CHUNK):
            chunk = vectors[c : c + LUT_CHUNK]
            idx = [self.operands(lanes, 0) for lanes in chunk]
            res: list[VReg | None] = [None] * len(chunk)
            for s, group in enumerate(slices):
                remat = sel.slice_remat(table, s, group)
                for m, lanes in enumerate(chunk):
                    st = self.stream_of(lanes[0][0])
                    origin = str(self.fn.ops[lanes[0][1]].origin or "")
                    if s:
                        j = sel.vf.new()
                        self.emit(
                            "sub",
                            (Vec(j, "16b"), Vec(idx[m], "16b"), Vec(c64, "16b")),
                            (j,),
                            (idx[m], c64),
                            origin=origin,
                            stream=st,
                        )
                        idx[m] = j
                    d = sel.vf.new()
                    extra = {"group_uses": group, "group_remat": remat}
                    ops = (Vec(d, "16b"), VecList(group, "16b"), Vec(idx[m], "16b"))
                    if s == 0:
                        self.emit("tbl", ops, (d,), (idx[m],), extra=extra, origin=origin, stream=st)
                    else:
                        self.emit(
                            "tbx", ops, (d,), (res[m], idx[m]), tied=res[m], extra=extra, origin=origin, stream=st
                        )
                    res[m] = d
            for m, lanes in enumerate(chunk):
                self.record(res[m], lanes)


def load(vf: VRegFactory, ptr: str, groups: int, origin: str) -> tuple[list[Instr], list]:
    """``ld1 {4 registers}, [ptr], #64`` per 64 bytes: 64·groups bytes, blocks in order."""
    out: list[Instr] = []
    regs: list[VReg] = []
    for k in range(groups):
        group = tuple(vf.new(f"ld{k}.{j}") for j in range(4))
        out.append(
            Instr(
                "ld1",
                (VecList(group, "16b"), Text(f"[{ptr}]"), Text("#64")),
                defs=group,
                origin=origin,
                stream=k,
                extra={"group_defs": group},
            )
        )
        regs += group
    return out, regs


def store(regs: list, ptr: str, origin: str) -> list[Instr]:
    out = []
    for k in range(0, len(regs), 4):
        group = tuple(regs[k : k + 4])
        out.append(
            Instr(
                "st1",
                (VecList(group, "16b"), Text(f"[{ptr}]"), Text("#64")),
                uses=group,
                origin=origin,
                stream=k // 4,
                kind="store",
                extra={"group_uses": group},
            )
        )
    return out
