"""Bit-linear layers of a function: the GF(2)-affine regions of the DAG between its non-linear ops.

An analysis, not a pass: it changes nothing, backends and the build notes query it.  Every op is
evaluated symbolically, one GF(2) linear form per bit (a bitmask over the bits of the region's
sources, bit 0 the constant 1), where it is affine: xor, not, and/or with a constant, or of operands
with no set bit in common, shifts and rotations by constants, zext/trunc and gmul (multiplication by a
constant is GF(2)-linear).  Every other op -- an input, a table lookup, add/sub, and/or of two
variables whose bits may overlap -- is a *source*: its bits are fresh variables (a lookup's bits that
are 0 in every entry are the constant 0, so the nibbles of a 4-bit S-box pack into a byte linearly).
A *layer* is a set of affine values that non-linear ops (or the function's outputs) read: those
computed through a common affine op, and those written by the same spec statements in the same round
(one layer of the spec, even where a byte-wise lowering splits it); its matrix says what it is.

    before (IR):  %5 = lut.u8 %1, @S   %6 = lut.u8 %2, @S   %7 = shl.u8 %6, 4   %8 = or.u8 %5, %7
                  %9 = rotl.u8 %8, 3   %10 = xor.u8 %9, %3 (rk)   %11 = and.u8 %10, 15  %12 = lut %11
    after:        Layer(outputs=(11,), sources=(5, 6, 3), kind="bit permutation" of 4 data bits,
                        key_bits=4, ops=5)   -- bit i of %11 is one bit of %5/%6 XOR one key bit

Kinds (over the data sources, i.e. all but the round-key inputs): "bit permutation" (every output bit
is one data bit, each data bit used once), "bit selection" (every output bit at most one data bit, not
a bijection: bits dropped or copied), "linear" (some output bit is the XOR of several data bits: a
binary matrix).  ``key_bits`` counts the key bits XORed in, ``xor_bits`` the bit-XORs a bit-plane
(bitsliced) lowering of the layer does: a permutation costs none there (its planes are renamed).
"""

from __future__ import annotations

from dataclasses import dataclass

from .gf import gf_mul
from .ir import Function, Module, Table
from .unionfind import Disjoint

LINEAR = ("xor", "not", "const", "rotl", "shl", "shr", "zext", "trunc", "gmul", "and", "or")


@dataclass(frozen=True)
class Layer:
    """One bit-linear layer of a function (see the module docstring)."""

    outputs: tuple[int, ...]  # op ids whose values non-linear ops (or the outputs) read
    sources: tuple[int, ...]  # op ids of the words it reads (lookups, inputs, ...)
    ops: int  # affine ops it spans
    out_bits: int  # output bits that are not constant
    data_bits: int  # source bits (not round-key bits) it reads
    key_bits: int  # round-key bits XORed in
    kind: str  # "bit permutation" / "bit selection" / "linear"
    ones: int  # 1 entries of the data matrix
    xor_bits: int  # bit-XORs (and NOTs) the ops do on variable bits: a bit-plane lowering's statements
    origins: tuple[str, ...]  # "file:line:col" of its ops, sorted
    rounds: tuple[int, ...]  # the rounds its ops are in
    rows: tuple[int, ...]  # per output bit (outputs in order, bit 0 first): its data form, a bitmask

    def describe(self) -> str:
        what = {
            "bit permutation": f"bit permutation of {self.out_bits} bits",
            "bit selection": f"bit selection, {self.out_bits} bits from {self.data_bits}",
            "linear": f"GF(2)-linear map {self.data_bits} -> {self.out_bits} bits ({self.ones} ones)",
        }[self.kind]
        return what + (f" + {self.key_bits} round-key XOR terms" if self.key_bits else "")


def _forms(fn: Function, tables: dict[str, Table], is_key) -> tuple[list, dict[int, int], set[int]]:
    """Per op: its bit forms (list of ints, bit 0 = constant 1) or None (a source); the first variable
    bit of each source op; the set of source ops whose variables are round-key bits."""
    forms: list = [None] * len(fn.ops)
    base: dict[int, int] = {}
    key_ops: set[int] = set()
    nxt = 1

    def var(i: int) -> list[int]:
        nonlocal nxt
        if i not in base:
            base[i] = nxt
            nxt += fn.ops[i].width
            if fn.ops[i].code == "input" and is_key(fn.ops[i].imm[0]):
                key_ops.add(i)
        op = fn.ops[i]
        live = ~0
        if op.code == "lut":
            live = 0
            for v in tables[op.imm[0]].values:
                live |= v
        return [(1 << (base[i] + b)) if live >> b & 1 else 0 for b in range(op.width)]

    def form(i: int) -> list[int]:
        return forms[i] if forms[i] is not None else var(i)

    for i, op in enumerate(fn.ops):
        w, c = op.width, op.code
        if c not in LINEAR:
            continue
        if c == "const":
            forms[i] = [op.imm[0] >> b & 1 for b in range(w)]
            continue
        a = [form(x) for x in op.args]
        if c == "xor":
            forms[i] = [p ^ q for p, q in zip(*a)]
        elif c == "not":
            forms[i] = [p ^ 1 for p in a[0]]
        elif c in ("and", "or"):
            consts = [k for k, x in enumerate(op.args) if fn.ops[x].code == "const"]
            if consts:
                k = fn.ops[op.args[consts[0]]].imm[0]
                other = a[1 - consts[0]]
                if c == "and":
                    forms[i] = [p if k >> b & 1 else 0 for b, p in enumerate(other)]
                else:
                    forms[i] = [1 if k >> b & 1 else p for b, p in enumerate(other)]
            elif c == "or" and all(p == 0 or q == 0 for p, q in zip(*a)):
                forms[i] = [p ^ q for p, q in zip(*a)]  # no bit set in both: OR is XOR
        elif c in ("rotl", "shl", "shr"):
            k, x = op.imm[0], a[0]
            if c == "rotl":
                forms[i] = [x[(b - k) % w] for b in range(w)]
            elif c == "shl":
                forms[i] = [x[b - k] if b >= k else 0 for b in range(w)]
            else:
                forms[i] = [x[b + k] if b + k < w else 0 for b in range(w)]
        elif c in ("zext", "trunc"):
            x = a[0]
            forms[i] = [x[b] if b < len(x) else 0 for b in range(w)]
        elif c == "gmul":
            cst, poly = op.imm[0], op.imm[1]
            cols = [gf_mul(1 << j, cst, poly) for j in range(8)]
            forms[i] = [_xor_all(a[0][j] for j in range(8) if cols[j] >> b & 1) for b in range(8)]
    return forms, base, key_ops


def _xor_all(items) -> int:
    acc = 0
    for x in items:
        acc ^= x
    return acc


def layers(fn: Function, tables: dict[str, Table], key_names: tuple[str, ...] = ()) -> list[Layer]:
    """The bit-linear layers of ``fn``, in the order of their first output.  ``key_names``: the round-key
    arrays (their inputs are counted as key bits, not data bits)."""

    def is_key(name: str) -> bool:
        return name.split("[", 1)[0] in key_names

    forms, base, key_ops = _forms(fn, tables, is_key)
    readers: dict[int, list[int]] = {}
    for i, op in enumerate(fn.ops):
        for x in op.args:
            readers.setdefault(x, []).append(i)
    outputs_of_fn = {v for _, v in fn.outputs}
    # an affine value is a layer output where a source op reads it or the function returns it; an op
    # that is already a source itself (a plain copy of one) does no work and is left out
    outs = [
        i
        for i, f in enumerate(forms)
        if f is not None
        and fn.ops[i].code != "const"
        and (i in outputs_of_fn or any(forms[r] is None for r in readers.get(i, ())))
    ]
    sets = Disjoint()
    find = sets.find

    # one layer: outputs computed through a common affine op (then below: by the same statements in
    # the same round); sharing a source does not join them (in a logic network every AND is one)
    cones: dict[int, list[int]] = {}
    out_sources: dict[int, set[int]] = {}
    for o in outs:
        cones[o] = _cone(fn, forms, [o])
        out_sources[o] = {x for i in cones[o] for x in fn.ops[i].args if forms[x] is None}
        for j in cones[o]:
            sets.union(j, o)
    # components written by the same spec statements in the same round are one layer (a byte-wise
    # lowering can split one permutation into independent parts: it is still one layer of the spec)
    comps: dict[int, list[int]] = {}
    for o in outs:
        comps.setdefault(find(o), []).append(o)
    groups: dict[tuple, list[int]] = {}
    for members in comps.values():
        sig = tuple(sorted({_stamp(fn.ops[i]) for o in members for i in cones[o]}))
        groups.setdefault(sig, []).extend(members)
    result = []
    for members in groups.values():
        members.sort()
        srcs: list[int] = sorted(set().union(*(out_sources[o] for o in members)))
        if not srcs:
            continue
        key_mask = 0
        for s in srcs:
            if s in key_ops:
                key_mask |= ((1 << fn.ops[s].width) - 1) << base[s]
        cone = sorted(set().union(*(cones[o] for o in members)))
        rows, key_bits, used = [], 0, 0
        for o in members:
            for f in forms[o]:
                if f >> 1:
                    rows.append((f & ~key_mask) >> 1)
                    key_bits += bin(f & key_mask).count("1")
                    used |= f & ~key_mask & ~1
        data_bits = bin(used).count("1")
        ones = sum(bin(r).count("1") for r in rows)
        if any(bin(r).count("1") > 1 for r in rows):
            kind = "linear"
        elif ones == len(rows) == data_bits:
            kind = "bit permutation"
        else:
            kind = "bit selection"
        xor_bits = sum(_xor_cost(fn, forms, i) for i in cone)
        origins = sorted(
            {
                f"{op.origin.file.rsplit('/', 1)[-1]}:{op.origin.line}:{op.origin.col}"
                for op in (fn.ops[i] for i in cone)
                if op.origin
            }
        )
        rounds: list[int] = sorted({r for r in (_round(fn.ops[i]) for i in cone) if r is not None})
        result.append(
            Layer(
                tuple(members),
                tuple(srcs),
                len(cone),
                len(rows),
                data_bits,
                key_bits,
                kind,
                ones,
                xor_bits,
                tuple(origins),
                tuple(rounds),
                tuple(rows),
            )
        )
    result.sort(key=lambda lay: lay.outputs[0])
    return result


def _round(op) -> int | None:
    return op.origin.round if op.origin is not None else None


def _stamp(op) -> tuple:
    o = op.origin
    return (o.file, o.line, o.col, o.round) if o else ()


def _cone(fn: Function, forms: list, members: list[int]) -> list[int]:
    """The affine ops (not constants) the layer's outputs are computed from."""
    seen: set[int] = set()
    stack = list(members)
    while stack:
        i = stack.pop()
        if i in seen or forms[i] is None or fn.ops[i].code == "const":
            continue
        seen.add(i)
        stack += fn.ops[i].args
    return sorted(seen)


def _xor_cost(fn: Function, forms: list, i: int) -> int:
    """Bit-XORs op i does on variable bits (what a bit-plane lowering emits for it; shifts, masks and
    disjoint ORs are renaming there)."""
    op = fn.ops[i]
    if op.code == "not":
        return sum(1 for f in forms[i] if f >> 1)
    if op.code == "gmul":
        return 0  # counted by the plane lowering's own XOR network; not a renaming either way
    if op.code != "xor":
        return 0
    a, b = (forms[x] if forms[x] is not None else [2] * fn.ops[x].width for x in op.args)
    return sum(1 for p, q in zip(a, b) if p >> 1 and q >> 1)


def module_layers(module: Module) -> dict[str, list[Layer]]:
    """encrypt / decrypt -> their layers (the key schedule runs once per key: not analysed)."""
    keys = tuple(arr.name for arr in module.key_arrays)
    return {name: layers(fn, module.tables, keys) for name, fn in module.functions.items() if name != "key_schedule"}


def bit_forms(fn: Function, tables: dict[str, Table]) -> tuple[list, dict[int, int]]:
    """Per op, its bit forms (None for a source: see the module docstring) and, per source op, the number
    of its bit 0 among the variables: bit b of affine op o has bit k of source s where
    ``forms[o][b] >> (base[s] + k) & 1`` (bit 0 of a form is the constant 1).  What a backend lowering a
    layer as bit matrices reads (generator/c/gfnilayers.py).

        %0 = input.u8   %1 = shr.u8 %0, 4  ->  forms[1] = [1 << 5, 1 << 6, 1 << 7, 1 << 8, 0, 0, 0, 0], base = {0: 1}
    """
    forms, base, _ = _forms(fn, tables, lambda name: False)
    return forms, base


def known_zero(fn: Function, tables: dict[str, Table]) -> list[int]:
    """Per op, the mask of its bits that are 0 whatever the inputs (a bit whose linear form is the constant 0;
    a lookup's bits that are 0 in every entry).  A target inserts a masked term into such bits in one op.

        %2 = and.u8 %0, 0xf0   %3 = shr.u8 %1, 4   %4 = or.u8 %2, %3  ->  known_zero: [0, 0, 0x0f, 0xf0, 0]
    """
    forms, _, _ = _forms(fn, tables, lambda name: False)
    out = []
    for i, op in enumerate(fn.ops):
        f = forms[i]
        if f is not None:
            out.append(sum(1 << b for b, x in enumerate(f) if x == 0))
        elif op.code == "lut":
            live = 0
            for v in tables[op.imm[0]].values:
                live |= v
            out.append(((1 << op.width) - 1) & ~live)
        else:
            out.append(0)
    return out
