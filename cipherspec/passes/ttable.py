"""32-bit T-tables: where byte lookups feed a GF(2^8)-linear map over a column of four output bytes, the
lookups and the map become 32-bit table lookups XORed into one column word (AES MixColumns after SubBytes).

Each byte that only XORs and GF multiplies build is expanded into terms c·atom (c in GF(2^8); an atom is
a lookup, or any other value: a round-key byte).  Four bytes whose lookup terms read the same four
lookups of one table form a column: with C[r][k] the coefficient of lookup k in byte r,

    Y = XOR_k W_k[x_k]  ^  R,    W_k[v] = sum_r (C[r][k]·T[v]) << 8r,    R = the other terms, packed
    byte r = (Y >> 8r) & 0xff

W_k that are byte rotations of W_0 (C circulant, as in MixColumns) are one stored table and a rotation.

    before: %5 = lut.u8 %1, @S  %6 = gmul.u8 %5, 0x2  ...  %20 = xor.u8 %18, %19        (a column's 4 bytes)
    after:  %21 = lut.u32 %1, @S_t0  %22 = lut.u32 %2, @S_t0  %23 = rotl.u32 %22, 8 ...  %30 = xor.u32 ...
            %31 = trunc.u8 %30   %32 = shr.u32 %30, 8   %33 = trunc.u8 %32 ...             (tables gain S_t0)

A module pass (it adds tables): ``run_module(module) -> module``; the lookups and multiplies it replaced
are left for dce, the tables for prune_tables.
"""

from __future__ import annotations

from dataclasses import replace

from ..gf import gf_mul
from ..ir import Function, Module, Op, Table, substitute

MAX_TERMS = 12  # a byte with more terms is not a column byte (keeps the expansion linear in size)


def _expand(fn: Function) -> list[dict[int, int] | None]:
    """Per u8 value: {atom value id: GF(2^8) coefficient}, or None where it is not an XOR/gmul combination
    of few terms (then the value itself is an atom for its users)."""
    out: list[dict[int, int] | None] = []

    def terms_of(x: int) -> dict[int, int]:
        t = out[x]
        return t if t is not None else {x: 1}

    for _v, op in enumerate(fn.ops):
        terms: dict[int, int] | None = None
        if op.width == 8 and op.code == "xor":
            a, b = (terms_of(x) for x in op.args)
            terms = dict(a)
            for t, c in b.items():
                terms[t] = terms.get(t, 0) ^ c
            terms = {t: c for t, c in terms.items() if c}
        elif op.width == 8 and op.code == "gmul":
            a = terms_of(op.args[0])
            terms = {t: gf_mul(c, op.imm[0], op.imm[1]) for t, c in a.items()}
        out.append(terms if terms is not None and len(terms) <= MAX_TERMS else None)
    return out


def _roots(fn: Function, exp) -> list[int]:
    """Expanded values something reads as a byte: an output, or an op that is not itself an expanded
    XOR/gmul (a lookup index, an add, an XOR of too many terms)."""
    linear = {i for i in range(len(fn.ops)) if exp[i] is not None}
    need = {v for _, v in fn.outputs if v in linear}
    for i, op in enumerate(fn.ops):
        if i not in linear:
            need |= {a for a in op.args if a in linear}
    return sorted(need)


def _rotation(col0: list[int], colk: list[int]) -> int | None:
    """s with colk[r] == col0[(r - s) % 4] for every r (W_k = W_0 rotated left by 8s), else None."""
    for s in range(4):
        if all(colk[r] == col0[(r - s) % 4] for r in range(4)):
            return s
    return None


def fuse(fn: Function, tables: dict[str, Table], poly: int, rotate: bool = True) -> tuple[Function, dict[str, Table]]:
    """``rotate``: one stored table per distinct circulant plus byte rotations (False: one table per
    coefficient column, no rotation: four times the table memory, three fewer instructions a column)."""
    exp = _expand(fn)
    lin = {v: t for v, t in enumerate(exp) if t is not None}  # the expanded values: roots and rows are among them
    ops = list(fn.ops)
    tables = dict(tables)
    groups: dict[tuple, list[int]] = {}
    for v in _roots(fn, exp):
        luts = tuple(sorted(t for t in lin[v] if fn.ops[t].code == "lut"))
        if (
            len(luts) == 4
            and len({fn.ops[t].imm[0] for t in luts}) == 1
            and tables[fn.ops[luts[0]].imm[0]].out_width == 8
        ):
            groups.setdefault(luts, []).append(v)
    replacement = list(range(len(fn.ops)))
    stored: dict[str, list[tuple[list[int], str]]] = {}  # base table -> (coefficient column, 32-bit table)

    def add(op: Op) -> int:
        ops.append(op)
        replacement.append(len(ops) - 1)
        return len(ops) - 1

    for luts, rows in groups.items():
        if len(rows) != 4:
            continue
        origin = fn.ops[rows[0]].origin
        base = tables[fn.ops[luts[0]].imm[0]]
        coef = [[lin[r][t] for r in rows] for t in luts]  # coef[k][r]
        words = []
        for k, t in enumerate(luts):
            name, s = None, 0
            for col, tname in stored.setdefault(base.name, []):
                s2 = _rotation(col, coef[k]) if rotate else (0 if col == coef[k] else None)
                if s2 is not None:
                    name, s = tname, s2
                    break
            if name is None:
                vals = tuple(
                    sum(gf_mul(base.values[x], coef[k][r], poly) << (8 * r) for r in range(4)) for x in range(256)
                )
                name = next((n for n, tb in tables.items() if tb.values == vals and tb.out_width == 32), None)
                if name is None:
                    name = f"{base.name}_t{sum(1 for tb in tables.values() if tb.out_width == 32)}"
                    tables[name] = Table(name, 8, 32, vals)
                stored[base.name].append((coef[k], name))
            w = add(Op("lut", 32, (fn.ops[t].args[0],), (name,), origin))
            words.append(add(Op("rotl", 32, (w,), (8 * s,), origin)) if s else w)
        acc = words[0]
        for w in words[1:]:
            acc = add(Op("xor", 32, (acc, w), (), origin))
        packed = None  # the other terms (round keys), per byte, packed into one word, XORed in once
        for r, root in enumerate(rows):
            rest = [(a, c) for a, c in lin[root].items() if a not in luts]
            if not rest:
                continue
            byte: int | None = None
            for a, c in rest:
                term = a if c == 1 else add(Op("gmul", 8, (a,), (c, poly), origin))
                byte = term if byte is None else add(Op("xor", 8, (byte, term), (), origin))
            assert byte is not None  # rest is not empty
            wide = add(Op("zext", 32, (byte,), (), origin))
            part = add(Op("shl", 32, (wide,), (8 * r,), origin)) if r else wide
            packed = part if packed is None else add(Op("xor", 32, (packed, part), (), origin))
        if packed is not None:
            acc = add(Op("xor", 32, (acc, packed), (), origin))
        for r, root in enumerate(rows):
            src = add(Op("shr", 32, (acc,), (8 * r,), origin)) if r else acc
            replacement[root] = add(Op("trunc", 8, (src,), (), origin))
    if not any(len(r) == 4 for r in groups.values()):
        return fn, tables
    new = substitute(fn.copy_with(ops, list(fn.outputs)), replacement)
    return _reorder(new), tables


def _reorder(fn: Function) -> Function:
    """Appended ops come after their users: order the DAG again (a topological sort by first need)."""
    order: list[int] = []
    state = [0] * len(fn.ops)
    for start in [v for _, v in fn.outputs]:
        stack = [(start, False)]
        while stack:
            v, done = stack.pop()
            if done:
                if state[v] != 2:
                    state[v] = 2
                    order.append(v)
                continue
            if state[v]:
                continue
            state[v] = 1
            stack.append((v, True))
            stack.extend((a, False) for a in reversed(fn.ops[v].args) if not state[a])
    inputs = [i for i, op in enumerate(fn.ops) if op.code == "input"]  # the signature keeps its order
    rest = [i for i in order if fn.ops[i].code != "input"]
    index = {v: k for k, v in enumerate(inputs + rest)}
    ops = [replace(fn.ops[v], args=tuple(index[a] for a in fn.ops[v].args)) for v in inputs + rest]
    return fn.copy_with(ops, [(n, index[v]) for n, v in fn.outputs])


def run_module_four(module: Module) -> Module:
    """As run_module, with one table per coefficient column (AES: four tables, no rotation)."""
    return run_module(module, rotate=False)


def run_module(module: Module, rotate: bool = True) -> Module:
    """encrypt fused (CTR's direction).  decrypt is left as it is: its column maps follow the round-key XOR
    (InvMixColumns(InvSubBytes(x) ^ k)), so its words would carry the map of the round keys, key-only work
    that a kernel recomputes per block (and that spilled at 128 registers): the equivalent inverse cipher
    with those words made by set_key is the way there, not done yet."""
    polys = {op.imm[1] for fn in module.functions.values() for op in fn.ops if op.code == "gmul"}
    if len(polys) != 1:
        return module
    poly = polys.pop()
    tables = dict(module.tables)
    functions = dict(module.functions)
    functions["encrypt"], tables = fuse(module.functions["encrypt"], tables, poly, rotate)
    return replace(module, functions=functions, tables=tables)
