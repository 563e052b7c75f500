"""Split 64-bit words at a module's interfaces into 32-bit halves (for targets with 32-bit memory words).

The block, the key and every u64 round-key array become u32 words, two per u64 word in the byte
order the layout gives (little-endian: low half first; big-endian: high half first; round keys:
``rk[i]`` -> ``rk[i][0]`` low, ``rk[i][1]`` high).  Each function rebuilds its 64-bit values from the
halves (zext, shl, or) and splits its 64-bit outputs (trunc, shr); a table T with 64-bit entries
becomes two 32-bit tables T_lo and T_hi.  The ops inside stay 64-bit: a backend selects them on
register pairs, where the zext/shl/or and trunc/shr around the interfaces cost nothing.  A module
without 64-bit values is returned unchanged.

    before: block u64[2] little;   %0 = input.u64 "X[0]" ...                out X[0] = %9
    after:  block u32[4] little;   %0 = input.u32 "X[0].lo"  %1 = input.u32 "X[0].hi"
            %2 = zext.u64 %0  %3 = zext.u64 %1  %4 = shl.u64 %3, 32  %5 = or.u64 %2, %4 ...
            %20 = trunc.u32 %9  %21 = shr.u64 %9, 32  %22 = trunc.u32 %21   out X[0].lo = %20, X[0].hi = %22

``halve_hoisted`` does the same to the interface between a CTR ``pre`` and ``main`` (hoist_uniform).
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Function, KeyArray, Module, Op, Table, WordLayout

LO, HI = ".lo", ".hi"


def _words(layout: WordLayout) -> WordLayout:
    return WordLayout(32, 2 * layout.count, layout.endian) if layout.width == 64 else layout


def interface_word(name: str, endian: str) -> int:
    """The word of the split layout that interface input ``name`` reads: "K[3]" -> 3 (no split), a half
    "K[3].lo" -> 6 little-endian (low half first), 7 big-endian (high half first); "K[3].hi" the other."""
    half = name[-3:] if name.endswith((LO, HI)) else ""
    base = name[: len(name) - len(half)]
    if not base.endswith("]") or "[" not in base:
        raise ValueError(f"input {name!r} is not a word of an array")
    i = int(base[base.rindex("[") + 1 : -1])
    return 2 * i + ((half == HI) != (endian == "big")) if half else i


def _order(name: str, endian: str, rk: set[str]) -> list[tuple[str, bool]]:
    """The two halves of 64-bit interface word ``name`` in word order, as (name, is_high)."""
    if name in rk:
        return [(f"{name}[0]", False), (f"{name}[1]", True)]
    halves = [(name + LO, False), (name + HI, True)]
    return halves[::-1] if endian == "big" else halves


def halve(
    fn: Function, tables: dict[str, Table], endian: str, rk: set[str], inputs: bool = True, outputs: bool = True
) -> Function:
    """fn with its 64-bit inputs and/or outputs as 32-bit halves (``endian``: the block or key words'
    order; ``rk``: round-key names, split low half first) and its 64-bit lookups on split tables."""
    ops: list[Op] = []
    remap: list[int] = []
    halves = half_tables(tables)

    def emit(op: Op) -> int:
        ops.append(op)
        return len(ops) - 1

    for op in fn.ops:
        o = op.origin
        new = replace(op, args=tuple(remap[a] for a in op.args)) if op.args else op
        if inputs and op.code == "input" and op.width == 64:
            half = {}
            for name, high in _order(op.imm[0], endian, rk):
                half[high] = emit(Op("zext", 64, (emit(Op("input", 32, (), (name,), o)),), (), o))
            hi = emit(Op("shl", 64, (half[True],), (32,), o))
            remap.append(emit(Op("or", 64, (half[False], hi), (), o)))
        elif op.code == "lut" and op.imm[0] in halves:
            lo_t, hi_t = halves[op.imm[0]]
            lo = emit(Op("zext", 64, (emit(replace(new, width=32, imm=(lo_t,))),), (), o))
            hi = emit(Op("zext", 64, (emit(replace(new, width=32, imm=(hi_t,))),), (), o))
            remap.append(emit(Op("or", 64, (lo, emit(Op("shl", 64, (hi,), (32,), o))), (), o)))
        else:
            remap.append(emit(new))
    outs: list[tuple[str, int]] = []
    for name, v in fn.outputs:
        v = remap[v]
        if not outputs or ops[v].width != 64:
            outs.append((name, v))
            continue
        o = ops[v].origin
        lo = emit(Op("trunc", 32, (v,), (), o))
        hi = emit(Op("trunc", 32, (emit(Op("shr", 64, (v,), (32,), o)),), (), o))
        outs += [(half, hi if high else lo) for half, high in _order(name, endian, rk)]
    return fn.copy_with(ops, outs)


def half_tables(tables: dict[str, Table]) -> dict[str, tuple[str, str]]:
    """The names of the two u32 tables of each u64 table: T -> (T_lo, T_hi), identifiers the
    backends can use, with underscores added until they clash with no other table."""
    out = {}
    for name, t in tables.items():
        if t.out_width == 64:
            sep = "_"
            while any(f"{name}{sep}{h}" in tables for h in ("lo", "hi")):
                sep += "_"
            out[name] = (f"{name}{sep}lo", f"{name}{sep}hi")
    return out


def _tables(tables: dict[str, Table]) -> dict[str, Table]:
    halves = half_tables(tables)
    out: dict[str, Table] = {}
    for name, t in tables.items():
        if name not in halves:
            out[name] = t
            continue
        lo, hi = halves[name]
        out[lo] = Table(lo, t.in_width, 32, tuple(v & 0xFFFFFFFF for v in t.values))
        out[hi] = Table(hi, t.in_width, 32, tuple(v >> 32 for v in t.values))
    return out


def run_module(module: Module) -> Module:
    if (
        module.block.width != 64
        and module.key.width != 64
        and all(ka.width != 64 for ka in module.key_arrays)
        and all(t.out_width != 64 for t in module.tables.values())
    ):
        return module
    rk = {n for ka in module.key_arrays if ka.width == 64 for n in ka.flat_names()}
    functions = {}
    for name, fn in module.functions.items():
        endian = module.key.endian if name == "key_schedule" else module.block.endian
        functions[name] = halve(fn, module.tables, endian, rk)
    arrays = [KeyArray(ka.name, 32, ka.shape + (2,)) if ka.width == 64 else ka for ka in module.key_arrays]
    return replace(
        module,
        block=_words(module.block),
        key=_words(module.key),
        key_arrays=arrays,
        tables=_tables(module.tables),
        functions=functions,
    )


def halve_hoisted(split, tables: dict[str, Table]):
    """A hoist_uniform.Hoisted whose pre -> main values are 32-bit: a 64-bit H[k] becomes H[k].lo and
    H[k].hi (the frontier lists its value id twice, so its length is the number of 32-bit words)."""
    wide = {n for n, w, _ in split.main.inputs() if w == 64}
    if not wide:
        return split
    pre = halve(split.pre, tables, "little", set(), inputs=False)
    main = halve(split.main, tables, "little", set(), outputs=False)
    frontier = tuple(v for (n, _), v in zip(split.pre.outputs, split.frontier) for _ in range(1 + (n in wide)))
    return replace(split, pre=pre, main=main, frontier=frontier)
