"""C text helpers shared by the library source (library.py) and the kernel sources (portable.py, aesni/).

fragment("words.c")                  -> templates/fragments/words.c (plain C; a few values filled in)
load(u32 little, "in + 4")          -> "cs_load32le(in + 4)"
key_slots(module)["rk[3][5]"]       -> ("rk", 23)      (struct member, index)
kernel_tag(Schedule(lea128, c, sliced, v=32)) -> "sliced_v32"    (file suffix: src/lea128_sliced_v32.c)
"""

from __future__ import annotations

import re

from cipherspec.ir import Function, Module, Table, WordLayout
from cipherspec.schedule import Schedule

from ..common.templates import render
from .body import COMMENT_COLUMN
from .dialects import const_literal, table_symbol

_INDEX = re.compile(r"^(.*)\[(\d+)\]$")


def fragment(name: str, **data) -> str:
    """A C fragment (templates/fragments/NAME: plain C, at most a few values filled in), no final newline."""
    return render(f"c/fragments/{name}", **data).rstrip("\n")


def word_suffix(layout: WordLayout) -> str:
    return f"{layout.width}{'le' if layout.endian == 'little' else 'be'}"


def load(layout: WordLayout, ptr: str) -> str:
    return f"({ptr})[0]" if layout.width == 8 else f"cs_load{word_suffix(layout)}({ptr})"


def store(layout: WordLayout, ptr: str, value: str) -> str:
    return f"({ptr})[0] = {value}" if layout.width == 8 else f"cs_store{word_suffix(layout)}({ptr}, {value})"


def word_index(name: str) -> int:
    m = _INDEX.match(name)
    if m is None:
        raise ValueError(f"input {name!r} is not a word of an array")
    return int(m.group(2))


def with_comment(stmt: str, comment: str) -> str:
    return f"{stmt.ljust(COMMENT_COLUMN)} /* {comment} */"


def key_slots(module: Module) -> dict[str, tuple[str, int]]:
    """Flat key-array element name ("rk[3][5]") -> (struct member, index)."""
    return {flat: (arr.name, i) for arr in module.key_arrays for i, flat in enumerate(arr.flat_names())}


def state_inputs(fn: Function, slots: dict) -> list[str]:
    return [name for name, _, _ in fn.inputs() if name not in slots]


def kernel_tag(schedule: Schedule) -> str:
    """The schedule name without its cipher and target: the kernel file's suffix."""
    return schedule.name.split("_c_", 1)[1]


def table_rows(values: tuple[int, ...], width: int, per_row: int = 16) -> list[str]:
    lits = [const_literal(v, width) for v in values]
    return [
        ", ".join(lits[i : i + per_row]) + ("," if i + per_row < len(lits) else "")
        for i in range(0, len(lits), per_row)
    ]


def table_section(tables: list[Table]) -> str:
    """The tables as static const arrays, under one section banner."""
    parts = ["/* ---- tables ---- */"]
    for t in tables:
        doc = t.name + (f" = inverse({t.inverse_of})" if t.inverse_of else "")
        rows = "\n".join("    " + row for row in table_rows(t.values, t.out_width))
        parts.append(
            f"static const uint{t.out_width}_t {table_symbol(t.name)}[{len(t.values)}] = {{  /* {doc} */\n{rows}\n}};"
        )
    return "\n".join(parts)
