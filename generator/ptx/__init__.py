"""The CUDA target: kernels whose cores are inline PTX selected from the IR (plus a plain CUDA C flavour
of the same kernel), placements of tables and round keys, CTR with uniform-value hoisting, host API.

    BACKEND.parse_schedule(module, "rk-shared_t512") -> CudaSchedule;  BACKEND.generate(module, s) -> {.cu, .h}
    BACKEND.load(registry, "lea128", None, None)     -> runtime.cuda_target.CudaCipher (GPU machines only)

Modules: placement (schedules), isel/lop3/balance/wide (instruction selection; wide: 64-bit values as
register pairs, after cipherspec.passes.split_u64), cores, layout (block words),
blockio (block loads/stores), prologue (placement fills), ctr (counter words, hoisting), multikey
(CTR_DRBG bulk), host and keysched (the host section), source (puts the text together), build, emulate.
"""

from __future__ import annotations

from cipherspec.errors import UsageError
from cipherspec.ir import Module
from runtime.cuda_target import CudaCipher, gpu_available

from ..backend import Backend
from . import build as _build
from .placement import FLAVOURS, CudaSchedule
from .source import generate, passes_for


class CudaBackend(Backend):
    name = "cuda"
    summary = "CUDA kernels with inline-PTX cores (and a plain CUDA C flavour), host and device entry points"

    def parse_schedule(self, module: Module, text: str | None, rounds: int | None = None) -> CudaSchedule:
        return _build.schedule_for(module, text)

    def schedule_name(self, module: Module, schedule: CudaSchedule, rounds: int | None = None) -> str:
        return schedule.name(module, rounds)

    def schedules(self, module: Module, rounds: int | None = None) -> list[CudaSchedule]:
        """The default, and each other route through the passes this cipher takes (T-tables, lane layouts)."""
        out = [_build.schedule_for(module, None)]
        for text in ("tt", "tt4", "swar", "bs"):
            try:
                out.append(_build.schedule_for(module, text))
            except UsageError:
                pass
        return out

    def passes(self, module: Module, schedule: CudaSchedule):
        return passes_for(schedule)

    def generate(self, module: Module, schedule: CudaSchedule, rounds: int | None = None) -> dict[str, str]:
        src = generate(module, schedule, rounds)
        return {f"{src.name}.cu": src.cu, f"{src.name}.h": src.h}

    def build(self, registry, names, schedule, out_dir, progress=None) -> list[str]:
        return _build.build(registry, names, schedule, out_dir, progress)

    def load(self, registry, name, rounds, schedule) -> CudaCipher:
        ok, why = gpu_available()
        if not ok:
            raise UsageError(f"target cuda needs a GPU machine: {why}")
        if rounds is None:  # the library as `cipherspec build` makes it (its family's GCM object too), both flavours
            module, sched, src = _build.shipped_source(registry, name, schedule, FLAVOURS)
            return CudaCipher(module, sched, src)
        module = registry.module(name, rounds)
        sched = _build.schedule_for(module, schedule)
        return CudaCipher(module, sched, generate(module, sched, rounds))


BACKEND = CudaBackend()
