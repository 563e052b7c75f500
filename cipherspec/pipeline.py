"""The explicit pass pipeline.  Lowering (lower.py) unrolls; these passes then clean up the DAG.

    optimize(module)                      -> module after every pass
    optimize(module, upto="cse")          -> module after constfold and cse only
    optimize(module, on_pass=callback)    -> callback(pass_name, module, changed) after each pass
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable

from .errors import UsageError
from .ir import Function, Module, Table
from .passes import constfold, cse, dce, xornet


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[Function, dict[str, Table]], Function]

    @property
    def summary(self) -> str:
        return (sys.modules[self.run.__module__].__doc__ or "").split("\n")[0]


PIPELINE: tuple[Pass, ...] = (
    Pass("constfold", constfold.run),
    Pass("cse", cse.run),
    Pass("xornet", xornet.run),
    Pass("dce", dce.run),
)

PASS_NAMES = ("lower",) + tuple(p.name for p in PIPELINE)


def _same(a: Function, b: Function) -> bool:
    return a.ops == b.ops and a.outputs == b.outputs


def optimize(module: Module, upto: str | None = None,
             on_pass: Callable[[str, Module, bool], None] | None = None) -> Module:
    if upto is not None and upto not in PASS_NAMES:
        raise UsageError(f"unknown pass '{upto}' (passes: {', '.join(PASS_NAMES)})")
    if on_pass:
        on_pass("lower", module, True)
    if upto == "lower":
        return module
    for p in PIPELINE:
        functions = {name: p.run(fn, module.tables) for name, fn in module.functions.items()}
        changed = any(not _same(functions[n], module.functions[n]) for n in functions)
        module = module.with_functions(functions)
        if on_pass:
            on_pass(p.name, module, changed)
        if p.name == upto:
            break
    return module
