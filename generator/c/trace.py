"""A traced C build: one block through a C schedule's IR, every value recorded, to locate a mismatch.

The C kernels print each IR op as one C statement (body.py); a traced program prints the same statements
(scalar dialect) for the same prepared IR and stores each value in a buffer after computing it.
``cipherspec test`` compares that buffer with the interpreter's values of the same IR
(``Interpreter.trace``), in order: the first value that differs is the op the C side got wrong, and its
origin is the spec location it came from.  Bitsliced and AES-NI schedules lower the IR further; their
trace is of the same IR with gmul lowered (the scalar layout's passes).

    fns, tables = traced_ir(module, schedule, ["key_schedule", "encrypt"])
    trace_passes(schedule)  -> the C passes that IR went through (to find one that changed a result)
    text = traced_program(fns, tables)
        stdin:  per function, its inputs in fn.inputs() order, each a little-endian uint64
        stdout: per function, every value in value-id order, each a little-endian uint64
"""

from __future__ import annotations

from dataclasses import replace

from cipherspec.ir import Function, Module, Table
from cipherspec.pipeline import Pass
from cipherspec.schedule import Schedule

from .body import emit_body
from .dialects import Scalar
from .prepare import c_passes, prepare
from .text import table_section

ROTATIONS = "\n".join(
    f"#define CS_ROTL{w}(x, k) ((uint{w}_t)(((x) << (k)) | ((x) >> ({w} - (k)))))" for w in (8, 16, 32, 64)
)


def _traced_schedule(schedule: Schedule) -> Schedule:
    return replace(schedule, layout="scalar", params=()) if schedule.layout in ("bitsliced", "aesni") else schedule


def trace_passes(schedule: Schedule) -> tuple[Pass, ...]:
    return c_passes(_traced_schedule(schedule))


def traced_ir(module: Module, schedule: Schedule, names: list[str]) -> tuple[list[Function], dict[str, Table]]:
    """The functions ``names`` of ``module`` after the C passes of ``schedule`` (gmul lowered)."""
    prep = prepare(module, _traced_schedule(schedule))
    return [prep.functions[n] for n in names], prep.tables


def _function(fn: Function, tables: dict[str, Table]) -> list[str]:
    index = {name: k for k, (name, _, _) in enumerate(fn.inputs())}
    body = emit_body(fn, Scalar(), tables, lambda name, w: f"(uint{w}_t)in[{index[name]}]")
    assert len(body.lines) == len(fn.ops)  # one statement per op (no lookup batches in the scalar dialect)
    lines = [f"static void trace_{fn.name}(const uint64_t *in, uint64_t *t)", "{"]
    for vid, line in enumerate(body.lines):
        lines += [line, f"    t[{vid}] = (uint64_t)v{vid};"]
    return lines + ["}"]


def traced_program(fns: list[Function], tables: dict[str, Table]) -> str:
    used = sorted({op.imm[0] for fn in fns for op in fn.ops if op.code == "lut"})
    n_in = max(len(fn.inputs()) for fn in fns)
    n_ops = max(len(fn.ops) for fn in fns)
    lines = [
        "/* traced build (generator/c/trace.py): every IR value of one block, in order */",
        "#include <stdint.h>",
        "#include <stdio.h>",
        ROTATIONS,
        table_section([tables[t] for t in used]),
    ]
    for fn in fns:
        lines += _function(fn, tables)
    lines += [
        "static int get(uint64_t *x, int n)",
        "{",
        "    unsigned char b[8];",
        "    int i, j;",
        "    for (i = 0; i < n; i++) {",
        "        if (fread(b, 1, 8, stdin) != 8) return 0;",
        "        for (x[i] = 0, j = 7; j >= 0; j--) x[i] = x[i] << 8 | b[j];",
        "    }",
        "    return 1;",
        "}",
        "static void put(const uint64_t *x, int n)",
        "{",
        "    int i, j;",
        "    for (i = 0; i < n; i++)",
        "        for (j = 0; j < 8; j++) putchar((int)(x[i] >> (8 * j) & 0xff));",
        "}",
        f"static uint64_t in[{max(n_in, 1)}], t[{max(n_ops, 1)}];",
        "int main(void)",
        "{",
    ]
    for fn in fns:
        lines += [
            f"    if (!get(in, {len(fn.inputs())})) return 2;",
            f"    trace_{fn.name}(in, t);",
            f"    put(t, {len(fn.ops)});",
        ]
    return "\n".join(lines + ["    return 0;", "}", ""])
