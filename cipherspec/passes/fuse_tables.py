"""Fuse a GF(2^8) constant multiply into the table lookup that feeds it: gmul(T[x], c) -> T_c[x].

The new table T_c[x] = gmul(T[x], c) replaces the S-box lookup plus the shift/XOR arithmetic of
the multiply by one load (AES MixColumns after SubBytes).  A gmul whose argument is not a lookup
is left alone (a later lower_gmul turns it into shifts and XORs).

    before: %1 = lut.u8 %0, @S      %2 = gmul.u8 %1, 0x3 mod 0x11b
    after:  %1 = lut.u8 %0, @S      %2 = lut.u8 %0, @S_x03       (tables gains S_x03)

A module pass (it adds tables): ``run_module(module) -> module``; prune_tables drops the tables no
function reads any more.
"""

from __future__ import annotations

from dataclasses import replace

from ..gf import gf_table
from ..ir import Function, Module, Op, Table


def fused_name(table: str, c: int) -> str:
    return f"{table}_x{c:02x}"


def fuse(fn: Function, tables: dict[str, Table]) -> tuple[Function, dict[str, Table]]:
    """Returns the rewritten function and the tables it needs (the old ones plus the fused ones)."""
    tables = dict(tables)
    ops: list[Op] = []
    for op in fn.ops:
        src = fn.ops[op.args[0]] if op.code == "gmul" else None
        if src is not None and src.code == "lut" and tables[src.imm[0]].out_width == 8:
            c, poly = op.imm
            base = tables[src.imm[0]]
            name = fused_name(base.name, c)
            if name not in tables:
                mul = gf_table(c, poly)
                tables[name] = Table(name, base.in_width, 8, tuple(mul[v] for v in base.values))
            op = replace(op, code="lut", args=src.args, imm=(name,))
        ops.append(op)
    return fn.copy_with(ops, list(fn.outputs)), tables


def run_module(module: Module) -> Module:
    """Every function fused, in order; the module's tables gain the fused ones."""
    tables = dict(module.tables)
    functions = {}
    for name, fn in module.functions.items():
        functions[name], tables = fuse(fn, tables)
    return replace(module, functions=functions, tables=tables)
