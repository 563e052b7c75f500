"""An IR function as straight-line C statements, each with its IR origin as a trailing comment.

The caller says where inputs come from (``bind``: input name -> C expression) and gets back the
statements and, per output name, the C variable that holds it (named ``prefix`` + value id: one prefix
per interleaved stream, portable.sliced_core).  ``order`` (lutbatch.batched_order) prints
the ops in another valid order, with batches of lookups printed by the dialect as one call.

    before: %0 = input.u32 "X[0]"   %1 = input.u32 "rk[0][0]"   %2 = xor.u32 %0, %1   out "X[0]" = %2
    after:  const uint32_t v2 = v0 ^ v1;  /* lea.cs:33:7 encrypt r0 */     (v0, v1 bound by the caller)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

from cipherspec.ir import Function, Table

from .lutbatch import LookupBatch

COMMENT_COLUMN = 56

# A deliberate miscompilation, for the tests that prove `cipherspec test` catches one and locates it:
# inside ``injected_fault("encrypt", 57)`` op 57 of every ``encrypt`` emitted here is printed as another op
# (xor as or, add as sub, ...).  Nothing outside a test sets it.
_FAULT: ContextVar[tuple[str, int] | None] = ContextVar("cipherspec_c_fault", default=None)
FLIPPED = {"xor": "or", "or": "xor", "and": "or", "add": "sub", "sub": "add"}


def injected() -> tuple[str, int] | None:
    """The fault injected_fault set, if any (what a cache of emitted text must key on)."""
    return _FAULT.get()


@contextmanager
def injected_fault(function: str, index: int) -> Iterator[None]:
    """Within the block, op ``index`` of IR function ``function`` is emitted as FLIPPED[its opcode]."""
    token = _FAULT.set((function, index))
    try:
        yield
    finally:
        _FAULT.reset(token)


@dataclass(frozen=True)
class Body:
    lines: list[str]
    outputs: dict[str, str]  # output name -> C variable


def _comment(op) -> str:
    text = str(op.origin) if op.origin is not None else "(no origin)"
    return "/* " + text.replace("*/", "* /") + " */"


def emit_body(
    fn: Function,
    dialect,
    tables: dict[str, Table],
    bind: Callable[[str, int], str],
    indent: str = "    ",
    order: list[int | LookupBatch] | None = None,
    prefix: str = "v",
    alt: Callable[[int, list[str], str], str] | None = None,
) -> Body:
    """``alt``: a hook that may replace op vid's expression (gfnilayers.alternative: a layer's GFNI form beside
    the dialect's, chosen by the preprocessor); called with the value names and the dialect's expression."""
    names = [f"{prefix}{vid}" for vid in range(len(fn.ops))]
    lines: list[str] = []
    fault = _FAULT.get()
    if fault is not None and fault[0] == fn.name:
        alt = None  # an injected fault shows in every variant: no GFNI form bypasses the flipped op
    for item in range(len(fn.ops)) if order is None else order:
        if isinstance(item, LookupBatch):
            ops = [fn.ops[i] for i in item.ops]
            calls = dialect.lookup_batch(tables[item.table], [names[op.args[0]] for op in ops], f"b{item.ops[0]}")
            lines += [f"{indent}{c}" for c in calls.setup]
            for i, op, value in zip(item.ops, ops, calls.values):
                stmt = f"{indent}const {dialect.ctype(op.width)} {names[i]} = {value};"
                lines.append(f"{stmt.ljust(COMMENT_COLUMN)} {_comment(op)}")
            continue
        vid, op = item, fn.ops[item]
        if fault == (fn.name, vid):
            op = replace(op, code=FLIPPED[op.code])
        var = names[vid]
        if op.code == "input":
            expr = bind(op.imm[0], op.width)
        else:
            expr = dialect.expr(op, [names[a] for a in op.args], tables, [fn.ops[a].width for a in op.args])
            if alt is not None:
                expr = alt(vid, names, expr)
        stmt = f"{indent}const {dialect.ctype(op.width)} {var} = {expr};"
        lines.append(f"{stmt.ljust(COMMENT_COLUMN)} {_comment(op)}")
    return Body(lines, {name: names[v] for name, v in fn.outputs})
