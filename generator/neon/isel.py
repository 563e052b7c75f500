"""Instruction selection: an IR function (one op per word of one block) -> NEON machine IR over vregs.

In the sliced layout an IR word op becomes one vector op over L blocks.  Rules:

    xor/and/or/not       eor/and/orr/mvn .16b      and(a, not b) -> bic, or(a, not b) -> orn;
                         or(a, and(t, m)) with a's bits under the constant m known zero -> bit (insert t
                         under m: a bit permutation's masked terms; cipherspec/bitlinear.known_zero)
    add/sub              add/sub .<w>               sub(0, x) -> neg;  sub(0, shr(x, w-1)) -> sshr (mask)
    rotl r               shl t,x,#r + sri t,x,#(w-r);  rev32 .8h (u32, 16);  rev16 .16b (u16, 8);
                         rev64 .4s (u64, 32); tbl with a byte permutation (other multiples of 8)
    shl/shr              shl/ushr
    lut (256 entries)    tbl over the first 64-byte slice, then 3 × (sub idx, 64; tbx) over the others,
                         a batch of lookups sharing each slice load (lutgroups)
    lut (16 entries)     one tbl on the table held in one register (a 4-bit S-box, index below 16)
    input (round key)    ldr q from the key table (rematerialised, never spilled)
    const                movi when encodable, else ldr q from the constant pool

    before:  %7 = rotl.u32 %5, 9          after:  shl v_t.4s, v5.4s, #9
                                                  sri v_t.4s, v5.4s, #23      (v_t tied)
Values narrower than the state words (bytes of 32-bit words: unpack/pack, byte S-boxes; halves of 64-bit
words) are views on the word registers, selected by subword.py; values wider than the block words arrive
as limbs of the word width (the split_wide pass, prepare.neon_passes).  What is still refused (round-key
words wider than the block words, tables not indexed by a byte) is refused with its spec location and
what to use.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from cipherspec.bitlinear import known_zero
from cipherspec.errors import UsageError
from cipherspec.ir import Function, Op, Table
from generator.common.affine import SHIFT_ROWS

from ..mir.lutgroups import lookup_depth
from ..mir.lutgroups import schedule as lut_schedule
from ..mir.mir import Instr, Text, Vec, VecList, VReg, VRegFactory
from ..mir.sink import sink as sink_order
from . import keyfold as KF
from . import sha3 as SHA3
from . import subword as SW
from .aesform import form as aes_form
from .arrangement import ARR
from .pool import Pool

THREE_INPUT_SHARE = 6  # EOR3/BCAX (+ a third of the TBLs) at most 1/6 of the selected code (Selector._three_input_room)
THREE_INPUT_SLACK = 48  # ... a burst this long (instructions) above the share is let through
LUT_CHUNK = 8  # lookups served per table-slice load (bounded by registers: idx + result per lookup)


def not_supported(op: Op, what: str | None = None, why: str = "") -> UsageError:
    where = f"{op.origin.file}:{op.origin.line}" if op.origin else "an unknown location"
    return UsageError(
        f"not supported by neon: {what or op.code + '.u' + str(op.width)} at {where}"
        + (f" ({why})" if why else "; use --target c (docs/language.md's matrix lists what each target runs)")
    )


def check_ops(fn: Function, tables: dict[str, Table], width: int) -> None:
    """Refuses, with the spec location and what to use instead, any op the sliced NEON selection has no
    rule for: round-key words wider than the block words (other wide values are limbs by now), lookups not
    indexed by a byte, gmul (lowered first)."""
    for op in fn.ops:
        if op.code == "gmul":
            raise not_supported(op)
        if op.width > width and op.code == "input":
            raise not_supported(
                op,
                f"a u{op.width} round key ({op.imm[0]})",
                f"a cipher whose block words are u{width}: a round-key word is broadcast into the u{width} "
                f"lanes of one register; give the key schedule u{width} outputs (unpack_le/unpack_be), "
                f"or use --target c",
            )
        if op.width > width:  # split_wide makes limbs of anything else: a new op without a limb rule
            raise not_supported(
                op,
                why=f"a {op.width}-bit value in a cipher whose block words are u{width}: the "
                f"sliced layout keeps {128 // width} blocks' words in the u{width} lanes of "
                f"one register; declare the block with u{op.width} words, or use --target c",
            )
        if op.code == "lut":
            t = tables[op.imm[0]]
            if (t.in_width, len(t.values)) not in ((8, 256), (4, 16)) or (t.in_width == 4 and t.out_width != 8):
                raise not_supported(
                    op,
                    f"lut of a {t.in_width}-bit-indexed table",
                    f"{len(t.values)} entries; "
                    f"TBL looks bytes up in 64-byte slices (a 16-entry table of bytes in one "
                    f"register): index tables by a byte, or use --target c",
                )


@dataclass
class Selector:
    """Builds machine code for one function; ``values`` maps IR value ids to vregs."""

    fn: Function
    tables: dict[str, Table]
    width: int
    vf: VRegFactory
    pool: Pool
    key_slot: dict[str, int]  # round-key input name -> vector index in the key table
    slice_ptr: dict  # (table, slice) -> GPR holding its address
    streams: list[int]
    crypto: bool = False  # AESE/AESD for tables affine-equivalent to the AES S-box (affine.py)
    sha3: bool = False  # EOR3/BCAX three-input logic (sha3.py)
    sink: bool = False  # demand-driven op order (common/sink.py)
    values: dict[int, VReg] = field(default_factory=dict)
    power: dict[int, int | None] = field(default_factory=dict)  # lanes permuted by ShiftRows^p (None: uniform)
    code: list[Instr] = field(default_factory=list)
    _fixed: dict[tuple, VReg] = field(default_factory=dict)
    _mixed: set = field(default_factory=set)  # lookup depths where AESE and AESD results meet
    _depth: list = field(default_factory=list)
    _consts: dict[tuple, VReg] = field(default_factory=dict)
    _slices: dict[tuple, tuple] = field(default_factory=dict)
    _uses: Counter[int] = field(default_factory=Counter)  # uses per value id (sha3 and crypto schedules only)
    _folded: dict[int, tuple] = field(default_factory=dict)  # lookup index id -> (leaves, key leaf) (keyfold.py)
    _pipes: tuple = (0, 0, 0)  # (instructions counted, three-input ops, lookups) for _three_input_room
    _nots: dict[int, int] = field(default_factory=dict)  # value id -> id of an op not(value)
    subword: bool = False  # values narrower than the lanes: views (subword.py)
    views: dict[int, tuple] = field(default_factory=dict)  # value id -> its bytes (subword.py)
    _placed: dict[tuple, VReg] = field(default_factory=dict)
    _kz: list[int] | None = None  # known-zero bits per value id (cipherspec/bitlinear.known_zero), on first or
    _or_uses: Counter[int] = field(default_factory=Counter)
    key_vregs: dict[VReg, int] = field(default_factory=dict)  # round-key vreg -> its key-table vector (keyload.py)

    # ----------------------------------------------------------- materialised values
    def const(self, value: int, width: int | None = None) -> VReg:
        width = width or self.width
        key = (width, value)
        if key not in self._consts:
            self._consts[key] = self.vf.new(f"#{value:#x}", remat=self._const_remat(width, value))
        return self._consts[key]

    def bytes_const(self, data: bytes, name: str) -> VReg:
        key = ("bytes", data)
        if key not in self._consts:
            off = self.pool.add_vector(data)
            self._consts[key] = self.vf.new(
                name,
                remat=lambda v, off=off: [
                    Instr("ldr", (Vec(v, "q"), Text(f"[x8, #{off}]")), defs=(v,), kind="load", origin=f"const {name}")
                ],
            )
        return self._consts[key]

    def _const_remat(self, width: int, value: int):
        arr = ARR[width]
        if width == 8 or value == 0:
            imm = value & 0xFF

            def mk(v, imm=imm):
                return [Instr("movi", (Vec(v, "16b"), Text(f"#{imm:#x}")), defs=(v,), kind="load", origin="const")]

            return mk if (width == 8 or value == 0) else None
        if width == 64:  # MOVI .2d takes a byte mask; anything else comes from the pool
            if all((value >> b) & 0xFF in (0, 0xFF) for b in range(0, 64, 8)):
                return lambda v: [
                    Instr("movi", (Vec(v, "2d"), Text(f"#{value:#x}")), defs=(v,), kind="load", origin="const")
                ]
        for shift in range(0, width if width < 64 else 0, 8):
            if value & ~(0xFF << shift) == 0:

                def mk(v, shift=shift):
                    return [
                        Instr(
                            "movi",
                            (Vec(v, arr), Text(f"#{value >> shift:#x}"), Text(f"lsl #{shift}")),
                            defs=(v,),
                            kind="load",
                            origin="const",
                        )
                    ]

                return mk
        data = value.to_bytes(width // 8, "little") * (128 // width)
        off = self.pool.add_vector(data)
        return lambda v: [
            Instr("ldr", (Vec(v, "q"), Text(f"[x8, #{off}]")), defs=(v,), kind="load", origin=f"const {value:#x}")
        ]

    def key(self, name: str) -> VReg:
        off = 16 * self.key_slot[name]
        if off > 65520:
            raise UsageError(f"not supported by neon: more than 4096 round-key words ({name})")
        v = self.vf.new(
            name,
            remat=lambda v: [
                Instr("ldr", (Vec(v, "q"), Text(f"[x0, #{off}]")), defs=(v,), kind="load", origin=f"round key {name}")
            ],
        )
        self.key_vregs[v] = self.key_slot[name]
        return v

    def slices(self, table: str) -> list[tuple]:
        out = []
        for s in range(4):
            key = (table, s)
            if key not in self._slices:
                base = self.pool.table_offset(table) + 64 * s
                self._slices[key] = tuple(
                    self.vf.new(
                        f"{table}[{base + 16 * k}:{base + 16 * k + 16}]", remat=self._row_remat(table, base + 16 * k)
                    )
                    for k in range(4)
                )
            out.append(self._slices[key])
        return out

    def small_lookup(self, table: str, idx: VReg, m: int | None, **kw) -> VReg:
        """A 16-entry table (held in one register, reloaded from the pool when evicted): one TBL."""
        key = ("table16", table)
        if key not in self._consts:
            self._consts[key] = self.vf.new(
                f"{table}[0:16]", remat=self._row_remat(table, self.pool.table_offset(table))
            )
        tab = self._consts[key]
        d = self.vf.new()
        self.emit("tbl", (Vec(d, "16b"), VecList((tab,), "16b"), Vec(idx, "16b")), (d,), (tab, idx), m, **kw)
        return d

    def _row_remat(self, table: str, off: int):
        """One 16-byte row of a table slice, reloaded alone (when only it was evicted)."""
        return lambda v: [
            Instr("ldr", (Vec(v, "q"), Text(f"[x8, #{off}]")), defs=(v,), kind="load", origin=f"table {table} row")
        ]

    def slice_remat(self, table: str, s: int, group: tuple):
        ptr = self.slice_ptr.get((table, s))
        off = self.pool.table_offset(table) + 64 * s

        def mk():
            pre = []
            reg = ptr
            if reg is None:
                pre = [Instr(f"add x9, x8, #{off}", (), kind="raw", origin=f"table {table} slice {s}")]
                reg = "x9"
            return pre + [
                Instr(
                    "ld1",
                    (VecList(group, "16b"), Text(f"[{reg}]")),
                    defs=group,
                    kind="load",
                    origin=f"table {table} bytes {64 * s}..{64 * s + 63}",
                )
            ]

        return mk

    # ----------------------------------------------------------- emission
    def emit(
        self,
        mnemonic: str,
        operands: tuple,
        defs=(),
        uses=(),
        op_id: int | None = None,
        tied=None,
        extra=None,
        origin: str | None = None,
    ):
        o = (
            origin
            if origin is not None
            else (str(self.fn.ops[op_id].origin) if op_id is not None and self.fn.ops[op_id].origin else "")
        )
        s = self.streams[op_id] if op_id is not None else 0
        ins = Instr(mnemonic, operands, tuple(defs), tuple(uses), origin=o, stream=s, tied=tied, extra=extra or {})
        self.code.append(ins)
        return ins

    def binop(self, mn: str, arr: str, a: VReg, b: VReg, i: int) -> VReg:
        d = self.vf.new()
        self.emit(mn, (Vec(d, arr), Vec(a, arr), Vec(b, arr)), (d,), (a, b), i)
        return d

    def unop(self, mn: str, arr: str, a: VReg, i: int, imm: int | None = None) -> VReg:
        d = self.vf.new()
        ops = (Vec(d, arr), Vec(a, arr)) + ((Text(f"#{imm}"),) if imm is not None else ())
        self.emit(mn, ops, (d,), (a,), i)
        return d

    # ----------------------------------------------------------- lane permutations (AESE/AESD)
    def at(self, vid: int, p: int | None) -> VReg:
        """Value vid with its lanes in the order ShiftRows^p (AESE leaves its result in ShiftRows order, so
        lanes of a value that went through k AESE and j AESD instructions sit at power k - j; a uniform
        value — a broadcast key or constant — fits any power).  A TBL realigns, once per (value, power).

            before: a at power 1 (after AESE), b at power 3 (after AESD):  eor a, b  would mix blocks
            after:  b' = tbl {b}, SR^2;  eor a, b'
        """
        if vid not in self.values:  # a view (subword.py) used as a whole word: made a register once
            self.values[vid] = SW.place(self, vid, self.width, 0)
        q = self.power.get(vid, 0)
        if q is None or p is None or q == p:
            return self.values[vid]
        key = (vid, p)
        if key not in self._fixed:
            self._fixed[key] = self._realign(self.values[vid], q, p, vid)
        return self._fixed[key]

    def _realign(self, x: VReg, q: int, p: int, vid: int) -> VReg:
        perm = list(range(16))
        for _ in range((p - q) % 4):
            perm = [perm[_SR[i]] for i in range(16)]
        idx = self.bytes_const(bytes(perm), f"ShiftRows^{(p - q) % 4} lanes")
        d = self.vf.new()
        self.emit(
            "tbl",
            (Vec(d, "16b"), VecList((x,), "16b"), Vec(idx, "16b")),
            (d,),
            (x, idx),
            vid,
            origin=f"realign lanes after AESE/AESD ({self.fn.ops[vid].origin})",
        )
        return d

    def _target(self, op: Op) -> int | None:
        return self._target_of(op.args)

    def _target_of(self, args) -> int | None:
        ps = [self.power.get(a, 0) for a in args]
        known = [x for x in ps if x is not None]
        return min(known) if known else None

    # ----------------------------------------------------------- selection
    def run(self, state_inputs: dict[str, VReg]) -> None:
        fn = self.fn
        check_ops(fn, self.tables, self.width)
        self.subword = SW.needed(fn, self.width)
        order, batches = lut_schedule(fn)
        if self.sink:
            order = sink_order(fn, order, batches)
        if self.sha3 or self.crypto:
            self._uses = SHA3.use_counts(fn)
            self._nots = {op.args[0]: i for i, op in enumerate(fn.ops) if op.code == "not"}
        if self.crypto:  # layers where AESE (ShiftRows) and AESD (InvShiftRows) results meet
            self._depth = lookup_depth(fn)
            boxes: dict[int, set] = {}
            for b in batches:
                aff = aes_form(self.tables[fn.ops[b[0]].imm[0]].values)
                if aff is not None:
                    boxes.setdefault(self._depth[b[0]], set()).add(aff.box)
            self._mixed = {d for d, bx in boxes.items() if len(bx) > 1}
        if self.crypto and not self.subword:
            uniform = {i for i, op in enumerate(fn.ops) if op.code == "const"}
            uniform |= {i for i, op in enumerate(fn.ops) if op.code == "input" and op.imm[0] not in state_inputs}

            def foldable(name: str) -> bool:
                aff = aes_form(self.tables[name].values)
                return aff is not None and aff.before is None

            self._folded = KF.plan(fn, self._uses, self.width, uniform, foldable)
        first_of_batch = {b[0]: b for b in batches}
        in_batch = {m for b in batches for m in b}
        for i in order:
            op = fn.ops[i]
            if op.code == "lut":
                if i in first_of_batch:
                    if self.subword:
                        SW.lut_batch(self, first_of_batch[i])
                    else:
                        self.lut_batch(first_of_batch[i])
                continue
            assert i not in in_batch
            if self.subword:
                SW.select(self, i, op, state_inputs)
            else:
                self.values[i] = self.select(i, op, state_inputs)

    def select(self, i: int, op: Op, state_inputs: dict[str, VReg], val=None) -> VReg:
        """op i as instructions over operands ``val[arg]`` (default: the word registers, ShiftRows-aligned)."""
        fn, w = self.fn, op.width
        arr = ARR[w]
        code = op.code
        if code == "input":
            name = op.imm[0]
            self.power[i] = 0 if name in state_inputs else None
            return state_inputs[name] if name in state_inputs else self.key(name)
        if code == "const":
            self.power[i] = None
            return self.const(op.imm[0])
        if i in self._folded:  # the index of an AESE/AESD without its uniform leaf (keyfold.py)
            rest = self._folded[i][0]
            p = self._target_of(rest)
            self.power[i] = p
            return self.xor_tree([self.at(v, p) for v in rest], i)
        p = self._target(op)
        self.power[i] = p
        val = _At(self, p) if val is None else val
        args = [fn.ops[a] for a in op.args]
        if self.sha3 and code in ("xor", "not") and w == self.width and self._three_input_room():
            fused = SHA3.fuse(self, i, op, val, self._uses)
            if fused is not None:
                return fused
        if code == "or" and not self.subword:
            inserted = self._insert(i, op, val)
            if inserted is not None:
                return inserted
        if code in ("and", "or"):
            for k in (0, 1):
                if args[k].code == "not":
                    other = val[op.args[1 - k]]
                    return self.binop("bic" if code == "and" else "orn", "16b", other, val[args[k].args[0]], i)
            return self.binop("and" if code == "and" else "orr", "16b", val[op.args[0]], val[op.args[1]], i)
        if code == "xor":
            return self.binop("eor", "16b", val[op.args[0]], val[op.args[1]], i)
        if code == "not":
            return self.unop("mvn", "16b", val[op.args[0]], i)
        if code == "add":
            return self.binop("add", arr, val[op.args[0]], val[op.args[1]], i)
        if code == "sub":
            if args[0].code == "const" and args[0].imm[0] == 0:
                inner = args[1]
                if inner.code == "shr" and inner.imm[0] == w - 1:
                    return self.unop("sshr", arr, val[inner.args[0]], i, w - 1)
                return self.unop("neg", arr, val[op.args[1]], i)
            return self.binop("sub", arr, val[op.args[0]], val[op.args[1]], i)
        if code == "shl":
            return self.unop("shl", arr, val[op.args[0]], i, op.imm[0])
        if code == "shr":
            return self.unop("ushr", arr, val[op.args[0]], i, op.imm[0])
        if code == "rotl":
            fused = SHA3.fuse_rotate(self, i, op, val, self._uses) if self.sha3 and w == self.width == 64 else None
            return fused if fused is not None else self.rotl(i, val[op.args[0]], op.imm[0], w)
        raise not_supported(op)

    def _insert(self, i: int, op: Op, val) -> VReg | None:
        """or(a, and(t, m)) where a is 0 under the constant mask m and the and has no other use: BIT (a tied),
        which inserts t's bits under m -- one instruction for the and and the orr (the and's is left dead)."""
        fn = self.fn
        if self._kz is None:
            self._kz = known_zero(fn, self.tables)
            self._or_uses = Counter(a for o in fn.ops for a in o.args)
        for k in (0, 1):
            acc, term = op.args[k], fn.ops[op.args[1 - k]]
            if term.code != "and" or self._or_uses[op.args[1 - k]] != 1:
                continue
            for j in (0, 1):
                c = fn.ops[term.args[j]]
                if c.code == "const" and self._kz[acc] & c.imm[0] == c.imm[0]:
                    t, m, a = val[term.args[1 - j]], val[term.args[j]], val[acc]
                    d = self.vf.new()
                    self.emit("bit", (Vec(d, "16b"), Vec(t, "16b"), Vec(m, "16b")), (d,), (a, t, m), i, tied=a)
                    return d
        return None

    def xor_tree(self, regs: list[VReg], i: int) -> VReg:
        """The XOR of regs (two or more distinct registers; one is returned as it is): EOR3 three at a time
        where the schedule has FEAT_SHA3, else EOR pairs (op i for origin and stream)."""
        regs = list(regs)
        while len(regs) > 1:
            if self.sha3 and len(regs) >= 3 and self._three_input_room():
                d = self.vf.new()
                a, b, c = regs[:3]
                self.emit("eor3", tuple(Vec(x, "16b") for x in (d, a, b, c)), (d,), (a, b, c), i)
                regs = [d] + regs[3:]
            else:
                regs = [self.binop("eor", "16b", regs[0], regs[1], i)] + regs[2:]
        return regs[0]

    def _three_input_room(self) -> bool:
        """Whether one more three-input op fits the pipe budget.  Neoverse-V2 (llvm's model) issues EOR3/BCAX
        on V0 only and TBL/TBX on V0/V1, any other vector op on V0-V3: a kernel rich in both (ARIA, AES with
        AESE) queues on V0 while V2/V3 idle.  The budget: three-input ops plus a third of the lookups selected
        so far at most a sixth of all instructions so far (a quarter would be V0's fair share; the margin is
        for the ordinary ops the round-robin puts there; sixth and third measured with llvm-mca on the crypto
        kernels, bench/neon).  Past it, two EORs on free pipes beat one EOR3 behind the queue.  Kernels without
        lookups whose EOR3/BCAX stay under a sixth of the code (PIPO's, HIGHT's) never reach it."""
        seen, three, tables = self._pipes
        for ins in self.code[seen:]:
            three += ins.mnemonic in ("eor3", "bcax")
            tables += ins.mnemonic in ("tbl", "tbx")
        self._pipes = (len(self.code), three, tables)
        return THREE_INPUT_SHARE * three + 2 * tables <= len(self.code) + THREE_INPUT_SLACK

    def complement_of(self, vid: int) -> int | None:
        """The id of an already selected op computing not(vid), if any."""
        n = self._nots.get(vid)
        return n if n is not None and n in self.values else None

    def rotl(self, i: int, x: VReg, r: int, w: int) -> VReg:
        arr = ARR[w]
        if w == 32 and r == 16:
            return self.unop("rev32", "8h", x, i)
        if w == 16 and r == 8:
            return self.unop("rev16", "16b", x, i)
        if w == 64 and r == 32:
            return self.unop("rev64", "4s", x, i)
        if w > 8 and r % 8 == 0:  # a byte permutation within each lane
            n = w // 8
            perm = bytes(j - j % n + (j - r // 8) % n for j in range(16))
            p = self.bytes_const(perm, f"rotl{r}.u{w} bytes")
            d = self.vf.new()
            self.emit("tbl", (Vec(d, "16b"), VecList((x,), "16b"), Vec(p, "16b")), (d,), (x, p), i)
            return d
        t = self.unop("shl", arr, x, i, r)
        d = self.vf.new()
        self.emit("sri", (Vec(d, arr), Vec(x, arr), Text(f"#{w - r}")), (d,), (t, x), i, tied=t)
        return d

    def lut_batch(self, members: list[int]) -> None:
        """Lookups into one table: each 64-byte slice loaded once per chunk of lookups (or AESE/AESD)."""
        fn = self.fn
        table = fn.ops[members[0]].imm[0]
        aff = aes_form(self.tables[table].values) if self.crypto else None
        if aff is not None:
            for m in members:
                self.values[m] = self.aes_lookup(m, aff)
            return
        for m in members:
            self.power[m] = self.power.get(fn.ops[m].args[0], 0)
        res = self.lookup_chains(table, [(self.values[fn.ops[m].args[0]], m) for m in members])
        for m, r in zip(members, res):
            self.values[m] = r

    def lookup_chains(self, table: str, items: list[tuple[VReg, int]]) -> list[VReg]:
        """table[x] on every byte of each (index register x, op id for origin and stream): TBL over the first
        64-byte slice, then SUB 64 + TBX over the others, each slice load serving LUT_CHUNK registers; a
        16-entry table (a 4-bit S-box) is one TBL per register."""
        if table in self.tables and len(self.tables[table].values) == 16:
            return [self.small_lookup(table, x, m) for x, m in items]
        slices = self.slices(table)
        c64 = self.const(64, 8)
        out: list[VReg] = []
        for c in range(0, len(items), LUT_CHUNK):
            chunk = items[c : c + LUT_CHUNK]
            idx = [x for x, _ in chunk]
            res: list = [None] * len(chunk)
            for s, group in enumerate(slices):
                remat = self.slice_remat(table, s, group)
                for k, (_, m) in enumerate(chunk):
                    if s:
                        j = self.vf.new()
                        self.emit("sub", (Vec(j, "16b"), Vec(idx[k], "16b"), Vec(c64, "16b")), (j,), (idx[k], c64), m)
                        idx[k] = j
                    d = self.vf.new()
                    extra = {"group_uses": group, "group_remat": remat}
                    if s == 0:
                        self.emit(
                            "tbl",
                            (Vec(d, "16b"), VecList(group, "16b"), Vec(idx[k], "16b")),
                            (d,),
                            (idx[k],),
                            m,
                            extra=extra,
                        )
                    else:
                        self.emit(
                            "tbx",
                            (Vec(d, "16b"), VecList(group, "16b"), Vec(idx[k], "16b")),
                            (d,),
                            (res[k], idx[k]),
                            m,
                            tied=res[k],
                            extra=extra,
                        )
                    res[k] = d
            out += res
        return out

    def aes_lookup(self, m: int, aff) -> VReg:
        """T(x) with T = L∘S, S∘L, L∘S⁻¹, S⁻¹∘L or Lout∘S∘Lin (aesform.py): AESE/AESD with a zero round key
        (SubBytes after (Inv)ShiftRows, whose lane permutation ``at`` tracks) and each L as two nibble TBLs + EOR.

            before:  %9 = lut.u8 SB2 %8                (SB2 = L∘S)
            after:   aese t, zero;  and lo, t, #0x0f;  ushr hi, t, #4;  tbl a, {L_lo}, lo;  tbl b, {L_hi}, hi;
                     eor r, a, b
        """
        arg = self.fn.ops[m].args[0]
        q = self.power.get(arg, 0) or 0
        if arg in self._folded:  # the uniform XOR leaf rides in the AES instruction's key operand (keyfold.py)
            d = self.aes_sub(self.values[arg], aff, m, key=self.values[self._folded[arg][1]])
        else:
            d = self.aes_sub(self.values[arg], aff, m)
        at = self.power[m] = (q + (1 if aff.box == "S" else -1)) % 4
        if aff.box == "S-1" and self._depth[m] in self._mixed:  # meet the AESE results of this layer
            d = self._realign(d, at, (q + 1) % 4, m)
            self.power[m] = (q + 1) % 4
        return d

    def aes_sub(self, x: VReg, aff, m: int, key: VReg | None = None) -> VReg:
        """T on every byte of x ^ key, the lanes left in (Inv)ShiftRows order: AESE/AESD with the round-key
        operand ``key`` (a uniform value; zero when None; only without an affine map before the S-box) and
        the affine map L before or after it (op m for origin)."""
        if aff.before is not None:
            assert key is None
            x = self.affine_map(x, aff.before, m)
        k = self.const(0, 8) if key is None else key
        d = self.vf.new()
        self.emit("aese" if aff.box == "S" else "aesd", (Vec(d, "16b"), Vec(k, "16b")), (d,), (x, k), m, tied=x)
        if aff.after is not None:
            d = self.affine_map(d, aff.after, m)
        return d

    def affine_map(self, x: VReg, nibbles: tuple[bytes, bytes], m: int) -> VReg:
        lo_t = self.bytes_const(nibbles[0], "affine map, low nibble")
        hi_t = self.bytes_const(nibbles[1], "affine map, high nibble")
        lo = self.binop("and", "16b", x, self.const(0x0F, 8), m)
        hi = self.unop("ushr", "16b", x, m, 4)
        a, b = self.vf.new(), self.vf.new()
        self.emit("tbl", (Vec(a, "16b"), VecList((lo_t,), "16b"), Vec(lo, "16b")), (a,), (lo_t, lo), m)
        self.emit("tbl", (Vec(b, "16b"), VecList((hi_t,), "16b"), Vec(hi, "16b")), (b,), (hi_t, hi), m)
        return self.binop("eor", "16b", a, b, m)


_SR = SHIFT_ROWS  # AESE lane i <- lane _SR[i] (ShiftRows, column-major)


class _At:
    """values[...] seen at one lane power (Selector.at)."""

    def __init__(self, sel: Selector, p: int | None):
        self.sel, self.p = sel, p

    def __getitem__(self, vid: int) -> VReg:
        return self.sel.at(vid, self.p)
