"""Drop the tables no function reads any more (after fuse_tables or lower_gmul); the rest sorted by name.

    before: tables S, S_x02, S_x03; every lookup of S was fused away      after: tables S_x02, S_x03

A module pass: ``run_module(module) -> module``.  Functions are untouched.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Module


def run_module(module: Module) -> Module:
    used = {op.imm[0] for fn in module.functions.values() for op in fn.ops if op.code == "lut"}
    return replace(module, tables={k: v for k, v in sorted(module.tables.items()) if k in used})
