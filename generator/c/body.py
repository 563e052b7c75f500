"""An IR function as straight-line C statements, each with its IR origin as a trailing comment.

The caller says where inputs come from (``bind``: input name -> C expression) and gets back the
statements and, per output name, the C variable that holds it.

    before: %0 = input.u32 "X[0]"   %1 = input.u32 "rk[0][0]"   %2 = xor.u32 %0, %1   out "X[0]" = %2
    after:  const uint32_t v2 = v0 ^ v1;  /* lea.cs:33:7 encrypt r0 */     (v0, v1 bound by the caller)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cipherspec.ir import Function, Table

COMMENT_COLUMN = 56


@dataclass(frozen=True)
class Body:
    lines: list[str]
    outputs: dict[str, str]  # output name -> C variable


def _comment(op) -> str:
    text = str(op.origin) if op.origin is not None else "(no origin)"
    return "/* " + text.replace("*/", "* /") + " */"


def emit_body(
    fn: Function, dialect, tables: dict[str, Table], bind: Callable[[str, int], str], indent: str = "    "
) -> Body:
    names: list[str] = []
    lines: list[str] = []
    for vid, op in enumerate(fn.ops):
        var = f"v{vid}"
        names.append(var)
        if op.code == "input":
            expr = bind(op.imm[0], op.width)
        else:
            expr = dialect.expr(op, [names[a] for a in op.args], tables, [fn.ops[a].width for a in op.args])
        stmt = f"{indent}const {dialect.ctype(op.width)} {var} = {expr};"
        lines.append(f"{stmt.ljust(COMMENT_COLUMN)} {_comment(op)}")
    return Body(lines, {name: names[v] for name, v in fn.outputs})
