"""Byte-sliced AES-NI lowering: any u8 cipher whose S-boxes are affine-equivalent to AES's (ARIA's four).

Register j holds byte j of 16·BPR blocks (one block per byte lane; byte_slices.c transposes), so every IR op
is one lane-wise instruction on CS_LANES blocks at once:

    xor/and/or/not, add/sub        PXOR/PAND/POR/PANDN, PADDB/PSUBB
    shl/shr/rotl by k              16-bit shifts + byte masks
    gmul c                         a GF(2)-linear byte map: two 16-entry PSHUFB nibble tables + XOR
    lut T, T = L∘S, S∘L, L∘S⁻¹ or S⁻¹∘L (generator/common/affine.py: match)
                                   AESENCLAST (S) or AESDECLAST (S⁻¹) with a zero key, L as nibble tables
    lut T, any other T affine-equivalent to GF(2^8) inversion (two_sided: T = Lout∘S∘Lin)
                                   Lin as nibble tables, AESENCLAST, Lout as nibble tables

AESENCLAST applies ShiftRows to its input, which here permutes blocks among lanes; AESDECLAST the inverse.
So every value carries a lane "power" p: lane i holds block SR^p(i).  Lookups in one S-box layer land at
one power (the minority, AESDECLAST vs AESENCLAST, is realigned by one PSHUFB each), binary ops realign
an operand at another power, keys and constants are the same in every lane (no power), and the store
puts each block back in its place.  No table is indexed by a secret: constant-time.

    before: %9 = lut.u8 SB2 %8                 (SB2 = L∘S)
    after:  x9 = AESENCLAST(x8, 0); x10 = x9 & 0x0f; x11 = srl16(x9, 4) & 0x0f;
            x12 = PSHUFB(L_lo, x10) ^ PSHUFB(L_hi, x11)                      (power p+1)

With ``gfni`` (the core compiled for the GFNI levels) every lookup is T = A·inv(B·x ^ b) ^ a from the IR's
S-box facts (cipherspec/sbox.py): VGF2P8AFFINEINVQB (A, a), after VGF2P8AFFINEQB (B, b) where B·x ^ b is
not the identity (gmul, shifts and rotations keep their forms above).  Nothing permutes lanes, so every
value stays at power 0 and no PSHUFB realigns anything:

    after (gfni):  x9 = GF2P8AFFINEINV(x8, L·A, L·a)                        (1 instruction, not 6)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cipherspec.errors import UsageError
from cipherspec.gf import gf_mul
from cipherspec.ir import Function, Table
from cipherspec.sbox import AffineMap, facts
from generator.common.affine import match, two_sided

from ..body import COMMENT_COLUMN
from .rounds import SR
from .sboxes import gfni_matrix

ALLOWED = ("input", "const", "xor", "and", "or", "not", "add", "sub", "shl", "shr", "rotl", "gmul", "lut")


def support(fn: Function, tables: dict[str, Table]) -> str:
    """'' when every op of ``fn`` lowers byte-sliced, else why not."""
    for op in fn.ops:
        if op.width != 8:
            return f"words wider than 8 bits (u{op.width} {op.code} in {fn.name})"
        if op.code not in ALLOWED:
            return f"op {op.code} in {fn.name}"
    for name in sorted({op.imm[0] for op in fn.ops if op.code == "lut"}):
        if match(tables[name].values) is None and two_sided(tables[name].values) is None:
            return f"table {name} is not affine-equivalent to the AES S-box (nor to GF(2^8) inversion)"
    return ""


def sr_power(p: int) -> tuple[int, ...]:
    """Lane i -> lane SR^p(i) (p mod 4): where a value at power p keeps block i's byte."""
    perm = tuple(range(16))
    for _ in range(p % 4):
        perm = tuple(perm[SR[i]] for i in range(16))
    return perm


@dataclass
class Lowering:
    """C statements on cs_x values with lane-power tracking; ``constants``: the 16-byte tables used."""

    fn: Function
    tables: dict[str, Table]
    slots: dict[str, tuple[str, int]]
    prefix: str  # of the static constant arrays (unique per core)
    gfni: bool = False  # S-boxes and byte maps on GF2P8AFFINE(INV)QB, no lane permutations
    indent: str = "    "
    lines: list[str] = field(default_factory=list)
    constants: dict[bytes, str] = field(default_factory=dict)  # pattern -> C array name
    _const_vars: dict = field(default_factory=dict)
    _vals: list = field(default_factory=list)  # op id -> (C expression or variable, power or None)
    _aligned: dict = field(default_factory=dict)  # (variable, power) -> realigned variable
    _n: int = 0
    _origin: str = ""

    def _emit(self, expr: str) -> str:
        var = f"x{self._n}"
        self._n += 1
        stmt = f"{self.indent}const cs_x {var} = {expr};"
        self.lines.append(f"{stmt.ljust(COMMENT_COLUMN)} /* {self._origin} */")
        return var

    def _const16(self, pattern: bytes, what: str) -> str:
        """A register holding ``pattern`` in every 16-byte lane (loaded once per core)."""
        if pattern not in self.constants:
            self.constants[pattern] = f"{self.prefix}{len(self.constants)}"
        name = self.constants[pattern]
        if name not in self._const_vars:
            saved, self._origin = self._origin, what
            self._const_vars[name] = self._emit(f"CS_X_BCAST16({name})")
            self._origin = saved
        return self._const_vars[name]

    def _splat(self, c: int) -> str:
        key = ("splat", c & 0xFF)
        if key not in self._const_vars:
            saved, self._origin = self._origin, f"the byte {c & 0xFF:#04x} in every lane"
            self._const_vars[key] = self._emit(f"CS_X_SPLAT8({c & 0xFF:#04x})")
            self._origin = saved
        return self._const_vars[key]

    def _at(self, vid: int, power: int | None) -> str:
        """Value ``vid`` at lane power ``power`` (a PSHUFB when it is elsewhere)."""
        return self._realign(self._get(vid), self._vals[vid][1], power)

    def _get(self, vid: int) -> str:
        """The C variable of ``vid``; a round key byte is broadcast where a round first reads it (so that
        the rounds stay alike and no broadcast lives across rounds)."""
        var = self._vals[vid][0]
        if var.startswith("ks->"):
            if var not in self._const_vars:
                self._const_vars[var] = self._emit(f"CS_X_SPLAT8({var})")
            return self._const_vars[var]
        return var

    def _realign(self, var: str, p: int | None, power: int | None) -> str:
        if p is None or power is None or (p - power) % 4 == 0:
            return var
        key = (var, power % 4)
        if key not in self._aligned:
            perm = sr_power((power - p) % 4)
            idx = self._const16(bytes(perm), f"lane permutation ShiftRows^{(power - p) % 4}")
            self._aligned[key] = self._emit(f"CS_X_SHUFFLE({var}, {idx})")
        return self._aligned[key]

    def _binary(self, op, macro: str) -> tuple[str, int | None]:
        a, b = op.args
        pa, pb = self._vals[a][1], self._vals[b][1]
        p = pa if pa is not None else pb
        return self._emit(f"{macro}({self._at(a, p)}, {self._at(b, p)})"), p

    def _nibble_map(self, x: str, lo: bytes, hi: bytes, what: str) -> str:
        """L(x) = lo[x & 15] ^ hi[x >> 4] in every byte lane (L affine: L(0) is in lo)."""
        m = self._splat(0x0F)
        tl, th = self._const16(lo, f"{what}, low nibble"), self._const16(hi, f"{what}, high nibble")
        a = self._emit(f"CS_X_SHUFFLE({tl}, CS_X_AND({x}, {m}))")
        b = self._emit(f"CS_X_SHUFFLE({th}, CS_X_AND(CS_X_SRL16({x}, 4), {m}))")
        return self._emit(f"CS_X_XOR({a}, {b})")

    def lower(self, bind_state) -> dict[str, tuple[str, int]]:
        """Every op; ``bind_state(name) -> C expression`` for state inputs (power 0).  Returns the outputs."""
        fn, ops = self.fn, self.fn.ops
        majority = _layer_boxes(fn, self.tables)
        rnd = None
        for i, op in enumerate(ops):
            self._origin = (str(op.origin) if op.origin is not None else "(no origin)").replace("*/", "* /")
            if op.origin is not None and op.origin.round != rnd:  # each round loads its own constants: the
                rnd = op.origin.round  # rounds stay alike (split.py re-rolls them)
                self._const_vars.clear()
                self._aligned.clear()
            code = op.code
            if code == "input":
                name = op.imm[0]
                if name in self.slots:
                    member, idx = self.slots[name]
                    self._vals.append((f"ks->{member}[{idx}]", None))
                else:
                    self._vals.append((bind_state(name), 0))
                continue
            if code == "const":
                self._vals.append((self._splat(op.imm[0]), None))
                continue
            if code in ("xor", "and", "or", "add", "sub"):
                if code == "and" and any(ops[a].code == "not" for a in op.args):  # a & ~b: one PANDN
                    k = 0 if ops[op.args[0]].code == "not" else 1
                    inner, other = ops[op.args[k]].args[0], op.args[1 - k]
                    pi, po = self._vals[inner][1], self._vals[other][1]
                    p = po if po is not None else pi
                    self._vals.append((self._emit(f"CS_X_ANDNOT({self._at(inner, p)}, {self._at(other, p)})"), p))
                    continue
                macro = {"xor": "CS_X_XOR", "and": "CS_X_AND", "or": "CS_X_OR", "add": "CS_X_ADD8", "sub": "CS_X_SUB8"}[
                    code
                ]
                self._vals.append(self._binary(op, macro))
                continue
            x, p = self._get(op.args[0]), self._vals[op.args[0]][1]
            if code == "not":
                r = self._emit(f"CS_X_XOR({x}, {self._splat(0xFF)})")
            elif code == "shl":
                r = self._emit(f"CS_X_AND(CS_X_SLL16({x}, {op.imm[0]}), {self._splat(0xFF << op.imm[0])})")
            elif code == "shr":
                r = self._emit(f"CS_X_AND(CS_X_SRL16({x}, {op.imm[0]}), {self._splat(0xFF >> op.imm[0])})")
            elif code == "rotl":
                k = op.imm[0]
                r = self._emit(
                    f"CS_X_OR(CS_X_AND(CS_X_SLL16({x}, {k}), {self._splat(0xFF << k)}), "
                    f"CS_X_AND(CS_X_SRL16({x}, {8 - k}), {self._splat(0xFF >> (8 - k))}))"
                )
            elif code == "gmul":
                c, poly = op.imm
                lo = bytes(gf_mul(n, c, poly) for n in range(16))
                hi = bytes(gf_mul(n << 4, c, poly) for n in range(16))
                r = self._nibble_map(x, lo, hi, f"times {c:#04x}")
            elif code == "lut":
                r, p = self._lookup(op, x, p, majority.get(i))
            else:
                raise UsageError(f"the aesni schedule cannot lower {code} (in {fn.name})")
            self._vals.append((r, p))
        return {name: (self._get(v), self._vals[v][1]) for name, v in fn.outputs}

    def _affine(self, x: str, m: AffineMap, inverse: bool = False) -> str:
        """m(x) (VGF2P8AFFINEQB), or m(inv(x)) with ``inverse`` (VGF2P8AFFINEINVQB), on every byte."""
        macro = "CS_X_GF2P8AFFINEINV" if inverse else "CS_X_GF2P8AFFINE"
        return self._emit(f"{macro}({x}, {gfni_matrix(m):#018x}ull, {m.const:#04x})")

    def _lookup(self, op, x: str, p: int | None, box_of_layer: str | None) -> tuple[str, int | None]:
        t = self.tables[op.imm[0]]
        if self.gfni:  # T = A·inv(B·x ^ b) ^ a: one or two instructions, the lanes stay where they are
            f = facts(t.values)
            if f is None or f.inversion is None:
                raise UsageError(
                    f"the aesni schedule needs tables affine-equivalent to GF(2^8) inversion; {t.name} is not"
                )
            inv = f.inversion
            if not inv.inp.identity:
                x = self._affine(x, inv.inp)
            return self._affine(x, inv.out, inverse=True), p
        aff = match(t.values)
        if aff is None:
            return self._two_sided(t, x, p)
        if not aff.after and not aff.identity:
            x = self._nibble_map(x, aff.lo, aff.hi, f"{t.name}: the affine map before the AES S-box")
        instr = "CS_X_AESENCLAST" if aff.box == "S" else "CS_X_AESDECLAST"
        r = self._emit(f"{instr}({x}, CS_X_ZERO())")
        q = None if p is None else p + (1 if aff.box == "S" else -1)
        if aff.after and not aff.identity:
            r = self._nibble_map(r, aff.lo, aff.hi, f"{t.name}: the affine map after the AES S-box")
        if (
            p is not None and q is not None and box_of_layer is not None and box_of_layer != aff.box
        ):  # meet the layer's majority
            target = p + (1 if box_of_layer == "S" else -1)
            r, q = self._realign(r, q, target), target
        return r, (q % 4 if q is not None else None)

    def _two_sided(self, t: Table, x: str, p: int | None) -> tuple[str, int | None]:
        """T = out∘S∘in (T affine-equivalent to GF(2^8) inversion, not one-sided to S): both maps as nibble
        tables around AESENCLAST."""
        form = two_sided(t.values)
        if form is None:
            raise UsageError(f"the aesni schedule needs tables affine-equivalent to GF(2^8) inversion; {t.name} is not")
        if not form.inp.identity:
            lo, hi = bytes(form.inp(n) for n in range(16)), bytes(form.inp(n << 4) ^ form.inp.const for n in range(16))
            x = self._nibble_map(x, lo, hi, f"{t.name}: B·x ^ b before the AES S-box")
        r = self._emit(f"CS_X_AESENCLAST({x}, CS_X_ZERO())")
        if not form.out.identity:
            lo, hi = bytes(form.out(n) for n in range(16)), bytes(form.out(n << 4) ^ form.out.const for n in range(16))
            r = self._nibble_map(r, lo, hi, f"{t.name}: A·M⁻¹·(y ^ 0x63) ^ a after the AES S-box")
        return r, (None if p is None else (p + 1) % 4)


def _layer_boxes(fn: Function, tables: dict[str, Table]) -> dict[int, str]:
    """lookup op id -> the box ("S" or "S-1") most lookups of its layer use (ties: S)."""
    ops = fn.ops
    level = [0] * len(ops)
    for i, op in enumerate(ops):
        lv = max((level[a] for a in op.args), default=0)
        level[i] = lv + 1 if op.code == "lut" else lv
    count: dict[int, list[int]] = {}
    for i, op in enumerate(ops):
        if op.code == "lut":
            aff = match(tables[op.imm[0]].values)
            c = count.setdefault(level[i], [0, 0])
            c[0 if aff is None or aff.box == "S" else 1] += 1  # (two-sided forms use S)
    return {
        i: ("S" if count[level[i]][0] >= count[level[i]][1] else "S-1") for i, op in enumerate(ops) if op.code == "lut"
    }
