"""Where a mismatch comes from: a traced C build of the IR replays the failing block, value by value.

``generator/c/trace.py`` prints the C target's IR of a schedule (the key schedule, then the block
function) as a program that records every value; the interpreter evaluates the same IR
(``Interpreter.trace``).  The first value that differs is the op the compiled code got wrong, and its
origin is the spec location (file:line:col function round).  When every value agrees but the IR's result
is not the spec's, one of the C target's passes changed it: they are replayed one at a time to name it.
When both agree, the IR and its C rendering are right on that block and the fault is below them (a NEON,
CUDA or C-layout kernel's own code).

    locate(module, trace, key, "encrypt", block) -> ["first differing IR value: encrypt %57 = xor.u64 ...",
                                                     "  at examples/ciphers/speck.cs:24:15 encrypt r3"]
"""

from __future__ import annotations

import os
import struct

import numpy as np

from cipherspec.blockcipher import bytes_to_words
from cipherspec.dump import format_op
from cipherspec.interp import Interpreter
from cipherspec.ir import Function, Module, Origin, mask

from .units import Trace


def where(origin: Origin | None) -> str:
    """file:line:col function round, the file relative to the working directory when it is below it."""
    if origin is None:
        return "(no origin)"
    path = origin.file
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    path = rel if not rel.startswith("..") else path
    text = f"{path}:{origin.line}:{origin.col} {origin.where}"
    return text + (f" round {origin.round}" if origin.round is not None else "")


def _pack(values: list[int]) -> bytes:
    return struct.pack(f"<{len(values)}Q", *values)


def _inputs(fn: Function, known: dict[str, int]) -> list[int]:
    return [known[name] for name, _, _ in fn.inputs()]


def _outputs(module: Module, key_words, block: bytes, function: str) -> dict[str, int]:
    interp = Interpreter(module.tables)
    ks = module.functions["key_schedule"]
    rk = interp.run(ks, {name: w for (name, _, _), w in zip(ks.inputs(), key_words)})
    fn = module.functions[function]
    state = [name for name, _, _ in fn.inputs() if name not in rk]
    words = bytes_to_words(module.block, np.frombuffer(block, np.uint8))
    out = interp.run(fn, dict(rk, **dict(zip(state, words))))
    return {name: int(v[0]) for name, v in out.items()}


def _changing_pass(module: Module, trace: Trace, key_words, block: bytes, function: str) -> str | None:
    """The first of the traced IR's C passes after which ``function``'s result on ``block`` is not the
    spec's (the module's, which the interpreter checks against the KAT files); None if none changes it."""
    from cipherspec.pipeline import run_passes
    from generator.c.trace import trace_passes

    want = _outputs(module, key_words, block, function)
    m = module
    for p in trace_passes(trace.schedule):
        m = run_passes(m, (p,))
        if _outputs(m, key_words, block, function) != want:
            return p.name
    return None


def locate(module: Module, trace: Trace, key: bytes, function: str, block: bytes) -> list[str]:
    """Lines that say where the traced build first differs from the interpreter on ``block``."""
    from generator.c.trace import traced_ir, traced_program
    from toolchain.cc import compile_cached

    fns, tables = traced_ir(module, trace.schedule, ["key_schedule", function])
    interp = Interpreter(tables)
    ks, fn = fns
    key_words = bytes_to_words(module.key, np.frombuffer(key, np.uint8))
    known = {name: int(w[0]) for (name, _, _), w in zip(ks.inputs(), key_words)}
    ks_vals = [int(v[0]) for v in interp.trace(ks, known)]
    rk = {name: ks_vals[v] for name, v in ks.outputs}
    state = [name for name, _, _ in fn.inputs() if name not in rk]
    known_fn = dict(
        rk, **{n: int(w[0]) for n, w in zip(state, bytes_to_words(module.block, np.frombuffer(block, np.uint8)))}
    )
    fn_vals = [int(v[0]) for v in interp.trace(fn, known_fn)]

    exe = compile_cached({"trace.c": traced_program(fns, tables)}, ["trace.c"], "exe", trace.toolchain)
    out = trace.run(exe, _pack(_inputs(ks, known)) + _pack(_inputs(fn, known_fn)))
    got = list(struct.unpack(f"<{len(out) // 8}Q", out))
    for f, want, offset in ((ks, ks_vals, 0), (fn, fn_vals, len(ks.ops))):
        for vid, op in enumerate(f.ops):
            c = got[offset + vid] & mask(op.width)
            if c != want[vid]:
                text = format_op(vid, op, with_origin=False).strip()
                return [
                    f"first differing IR value: {f.name} {text}: traced C {c:#x}, interpreter {want[vid]:#x}",
                    f"  at {where(op.origin)}",
                ]
    bad_pass = _changing_pass(module, trace, key_words, block, function)
    if bad_pass is not None:
        return [
            f"the traced C build agrees with the interpreter on the C target's IR, but that IR's result is not the "
            f"spec's: the pass '{bad_pass}' changed it (cipherspec dump {module.cipher} --target c "
            f"--schedule {trace.schedule.name} --after {bad_pass})"
        ]
    return [
        f"the traced C build of this block's IR ({trace.schedule.name}, {len(ks.ops) + len(fn.ops)} values) "
        "agrees with the interpreter: the fault is below the IR, in the kernel's own code"
    ]
