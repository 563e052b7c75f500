"""The C target's own passes, after the shared pipeline, and what the emitter reads from their result.

c_passes(schedule):  fuse_tables (t=fused: gmul of a lookup -> one lookup), lower_gmul (every layout but
                     bitsliced and aesni, which keep gmul: a constant multiply is a GF(2) matrix of
                     plane XORs there (bitslice.py), a byte-linear map for aesni), constfold, cse,
                     dce, prune_tables
prepare(module, schedule) -> Prepared(functions={"key_schedule": ..., ...}, tables={...})
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function, Module, Table
from cipherspec.passes import constfold, cse, dce, fuse_tables, lower_gmul, prune_tables
from cipherspec.pipeline import Pass, run_passes
from cipherspec.schedule import Schedule

FUNCTIONS = ("key_schedule", "encrypt", "decrypt")


@dataclass(frozen=True)
class Prepared:
    functions: dict[str, Function]
    tables: dict[str, Table]

    def secret_tables(self) -> list[str]:
        """Tables indexed by key- or data-dependent values (every lookup in these functions is)."""
        return sorted({op.imm[0] for fn in self.functions.values() for op in fn.ops if op.code == "lut"})


def c_passes(schedule: Schedule) -> tuple[Pass, ...]:
    passes: list[Pass] = []
    if schedule.get("t") == "fused":
        passes.append(Pass("fuse_tables", run_module=fuse_tables.run_module))
    if schedule.layout not in ("bitsliced", "aesni"):
        passes.append(Pass("lower_gmul", lower_gmul.run))
    passes += [
        Pass("constfold", constfold.run),
        Pass("cse", cse.run),
        Pass("dce", dce.run),
        Pass("prune_tables", run_module=prune_tables.run_module),
    ]
    return tuple(passes)


def prepare(module: Module, schedule: Schedule) -> Prepared:
    """The module after the C passes of ``schedule``; remembered on the module (a lowered module is never
    changed: passes make new ones), since one library asks for it from several places."""
    memo = module.__dict__.setdefault("_c_prepared", {})
    key = tuple(p.name for p in c_passes(schedule))
    if key not in memo:
        m = run_passes(module, c_passes(schedule))
        memo[key] = Prepared({name: m.functions[name] for name in FUNCTIONS}, dict(m.tables))
    return memo[key]
