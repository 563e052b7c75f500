"""``cipherspec build --target cuda``: per cipher, the .cu and .h of its schedule, and a shared library
where nvcc exists.

    build(registry, ["lea128"], None, out_dir, progress)   -> notes
    out_dir/lea128_cuda_ctr_rk-const_t256.cu / .h / .so

The schedule is the default for the cipher unless one is given: the autotuner's constant-time pick
(tuned.json; AES and ARIA: the bitsliced layout), else the built-in default (placement.default_for); a
given one is a full name (``lea128_cuda_ctr_rk-shared_t512``) or its parameter part (``rk-shared_t512``), applied to
every cipher named, and a table layout gets a NOT CONSTANT-TIME warning.
"""

from __future__ import annotations

from pathlib import Path

from cipherspec.ir import Module
from cipherspec.registry import Registry
from toolchain import nvcc

from .placement import CudaSchedule, constant_time, default_for
from .source import generate, prepared


def schedule_for(module: Module, text: str | None) -> CudaSchedule:
    """``module``: after the shared pipeline; the schedule named by ``text``, else the tuned default."""
    if not text:
        return default_for(prepared(module))
    sched = CudaSchedule.parse(text, prepared(module), validate=False)
    sched.validate(prepared(module, sched))  # the layout's own passes (bs keeps gmul)
    return sched


def ct_note(module: Module, sched: CudaSchedule) -> str:
    """One line on timing side channels for a CUDA library: its set_key (always constant-time, keysched.py)
    and its kernels (constant-time unless they read tables in GPU memory at data-dependent addresses)."""
    m = prepared(module, sched)
    tables = sorted({op.imm[0] for f in ("encrypt", "decrypt") for op in m.functions[f].ops if op.code == "lut"})
    boxes = any(op.code == "lut" for op in m.functions["key_schedule"].ops)
    key = f"set_key constant-time ({'S-boxes as Boolean circuits' if boxes else 'no table lookups'})"
    if sched.layout == "bs" or not tables:
        return f"{key}; kernels constant-time (no table read)"
    return f"{key}; kernels NOT constant-time (tables {', '.join(tables)} read at data-dependent addresses)"


def build(registry: Registry, names: list[str], schedule: str | None, out_dir: Path, progress=None) -> list[str]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    compiler = nvcc.find_nvcc()
    task = progress.add_task("cuda", total=len(names)) if progress is not None else None
    notes = []
    for name in names:
        module = registry.module(name)
        sched = schedule_for(module, schedule)
        src = generate(module, sched)
        cu = out_dir / f"{src.name}.cu"
        cu.write_text(src.cu)
        (out_dir / f"{src.name}.h").write_text(src.h)
        if compiler is not None:
            nvcc.build_library(cu, out_dir / f"lib{src.name}.so")
        if task is not None:
            progress.advance(task)
        notes.append(f"{name}: {src.name} ({src.hoisted_ops} of {src.encrypt_ops} encrypt ops hoisted in CTR)")
        notes.append(f"{name}: {ct_note(module, sched)}")
        if not constant_time(prepared(module, sched), sched):
            notes.append(
                f"WARNING: {src.name} is NOT CONSTANT-TIME: its kernels index tables in memory with secret bytes "
                f"(timing depends on the data). Omit --schedule for the constant-time default "
                f"({schedule_for(module, None).name(prepared(module))})."
            )
    if compiler is None:
        notes.append("nvcc not found: wrote .cu and .h only (no library)")
    return notes
