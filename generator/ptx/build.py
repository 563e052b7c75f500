"""``cipherspec build --target cuda``: per cipher, the .cu and .h of its schedule, and a shared library
where nvcc exists.

    build(registry, ["lea128"], None, out_dir, progress)   -> notes
    out_dir/lea128_cuda_ctr_rk-const_t256.cu / .h / .so

The schedule is the autotuner's pick for the cipher (tuned.json) unless one is given: a full name
(``lea128_cuda_ctr_rk-shared_t512``) or its parameter part (``rk-shared_t512``), applied to every
cipher named.
"""

from __future__ import annotations

from pathlib import Path

from cipherspec.ir import Module
from cipherspec.registry import Registry
from toolchain import nvcc

from .placement import CudaSchedule, default_for
from .source import generate, prepared


def schedule_for(module: Module, text: str | None) -> CudaSchedule:
    """``module``: after the shared pipeline; the schedule named by ``text``, else the tuned default."""
    if not text:
        return default_for(prepared(module))
    sched = CudaSchedule.parse(text, prepared(module), validate=False)
    sched.validate(prepared(module, sched))  # the layout's own passes (bs keeps gmul)
    return sched


def build(registry: Registry, names: list[str], schedule: str | None, out_dir: Path, progress=None) -> list[str]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    compiler = nvcc.find_nvcc()
    task = progress.add_task("cuda", total=len(names)) if progress is not None else None
    notes = []
    for name in names:
        module = registry.module(name)
        src = generate(module, schedule_for(module, schedule))
        cu = out_dir / f"{src.name}.cu"
        cu.write_text(src.cu)
        (out_dir / f"{src.name}.h").write_text(src.h)
        if compiler is not None:
            nvcc.build_library(cu, out_dir / f"lib{src.name}.so")
        if task is not None:
            progress.advance(task)
        notes.append(f"{name}: {src.name} ({src.hoisted_ops} of {src.encrypt_ops} encrypt ops hoisted in CTR)")
    if compiler is None:
        notes.append("nvcc not found: wrote .cu and .h only (no library)")
    return notes
