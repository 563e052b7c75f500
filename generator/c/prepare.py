"""From an optimized module and a C schedule to the functions the emitter prints.

    tables=fused: fuse_tables (gmul of a lookup -> one lookup), then
    every schedule but bitsliced: lower_gmul (what is left of gmul -> shifts/XORs); then constfold, cse, dce
    (bitsliced keeps gmul: a constant multiply is a GF(2) matrix of plane XORs there, see bitslice.py);
    finally drop the tables no function reads any more.

    prepare(module, schedule) -> Prepared(functions={"key_schedule": ..., ...}, tables={...})
"""
from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function, Module, Table
from cipherspec.passes import constfold, cse, dce, lower_gmul
from cipherspec.schedule import Schedule

from . import fuse_tables

FUNCTIONS = ("key_schedule", "encrypt", "decrypt")


@dataclass(frozen=True)
class Prepared:
    functions: dict[str, Function]
    tables: dict[str, Table]

    def secret_tables(self) -> list[str]:
        """Tables indexed by key- or data-dependent values (every lookup in these functions is)."""
        return sorted({op.imm[0] for fn in self.functions.values() for op in fn.ops if op.code == "lut"})


def prepare(module: Module, schedule: Schedule) -> Prepared:
    tables = dict(module.tables)
    functions: dict[str, Function] = {}
    for name in FUNCTIONS:
        fn = module.functions[name]
        if schedule.get("t") == "fused":
            fn, tables = fuse_tables.run(fn, tables)
        if schedule.layout != "bitsliced":
            fn = lower_gmul.run(fn, tables)
        fn = constfold.run(fn, tables)
        fn = dce.run(cse.run(fn, tables), tables)
        functions[name] = fn
    used = {op.imm[0] for fn in functions.values() for op in fn.ops if op.code == "lut"}
    return Prepared(functions, {k: v for k, v in sorted(tables.items()) if k in used})
