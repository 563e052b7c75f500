"""The explicit pass pipeline.  Lowering (lower.py) unrolls; these passes then clean up the DAG.

``PIPELINE`` is what every target shares (the interpreter runs its result: the oracle).  A backend
appends its own passes (``Backend.passes(module, schedule)``: lower_gmul, fuse_tables, ...); the same
runner applies both, so ``cipherspec dump --target c --after lower_gmul`` shows the IR a backend
really compiles, and the property tests check every pass any backend uses.

    optimize(module)                        -> module after the shared pipeline
    optimize(module, upto="cse")            -> module after constfold and cse only
    optimize(module, on_pass=callback)      -> callback(pass_name, module, changed) after each pass
    run_passes(module, backend_passes)      -> module after a backend's own passes
    pass_names(backend_passes)              -> ("lower", "constfold", ..., "lower_gmul", "cse.2", ...)

A pass that appears twice in one list is named with its occurrence from the second on (``cse.2``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import UsageError
from .ir import Function, Module, Table
from .passes import constfold, cse, dce, xornet

FunctionPass = Callable[[Function, dict[str, Table]], Function]
ModulePass = Callable[[Module], Module]
OnPass = Callable[[str, Module, bool], None]


@dataclass(frozen=True)
class Pass:
    """One named pass: a function pass (``run``, applied to every function) or a module pass."""

    name: str
    run: FunctionPass | None = None
    run_module: ModulePass | None = None

    def __post_init__(self):
        if (self.run is None) == (self.run_module is None):
            raise ValueError(f"pass {self.name}: give exactly one of run / run_module")

    @property
    def summary(self) -> str:
        fn = self.run or self.run_module
        assert fn is not None  # __post_init__: exactly one is set
        return (sys.modules[fn.__module__].__doc__ or "").split("\n")[0]

    def apply(self, module: Module) -> Module:
        if self.run_module is not None:
            return self.run_module(module)
        run = self.run
        assert run is not None  # __post_init__: exactly one is set
        return module.with_functions({name: run(fn, module.tables) for name, fn in module.functions.items()})


PIPELINE: tuple[Pass, ...] = (
    Pass("constfold", constfold.run),
    Pass("cse", cse.run),
    Pass("xornet", xornet.run),
    Pass("dce", dce.run),
)


def _named(passes: Sequence[Pass]) -> list[tuple[str, Pass]]:
    seen: dict[str, int] = {}
    out = []
    for p in passes:
        seen[p.name] = seen.get(p.name, 0) + 1
        out.append((p.name if seen[p.name] == 1 else f"{p.name}.{seen[p.name]}", p))
    return out


def pass_names(extra: Sequence[Pass] = ()) -> tuple[str, ...]:
    """Every pass name of the shared pipeline followed by ``extra``, "lower" first."""
    return ("lower",) + tuple(n for n, _ in _named(tuple(PIPELINE) + tuple(extra)))


PASS_NAMES = pass_names()


def _same(a: Module, b: Module) -> bool:
    if a.tables != b.tables or a.functions.keys() != b.functions.keys():
        return False
    return all(
        a.functions[n].ops == b.functions[n].ops and a.functions[n].outputs == b.functions[n].outputs
        for n in a.functions
    )


def run_passes(
    module: Module,
    passes: Sequence[Pass],
    upto: str | None = None,
    on_pass: OnPass | None = None,
    names: Sequence[str] | None = None,
) -> Module:
    """Applies ``passes`` in order; stops after the one named ``upto`` (its display name)."""
    for shown, p in zip(names or [n for n, _ in _named(passes)], passes):
        new = p.apply(module)
        if on_pass:
            on_pass(shown, new, not _same(new, module))
        module = new
        if shown == upto:
            break
    return module


def optimize(
    module: Module, upto: str | None = None, on_pass: OnPass | None = None, extra: Sequence[Pass] = ()
) -> Module:
    """The shared pipeline, then ``extra`` (a backend's passes), from a lowered module."""
    names = pass_names(extra)
    if upto is not None and upto not in names:
        raise UsageError(f"unknown pass '{upto}' (passes: {', '.join(names)})")
    if on_pass:
        on_pass("lower", module, True)
    if upto == "lower":
        return module
    return run_passes(module, tuple(PIPELINE) + tuple(extra), upto, on_pass, names[1:])
