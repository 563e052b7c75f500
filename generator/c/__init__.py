"""The portable C target: C99 sources for any spec, scalar / block-sliced / bitsliced schedules.

    BACKEND.parse_schedule(module, "sliced_v32") -> Schedule;  BACKEND.generate(module, s) -> files
    BACKEND.load(registry, "lea128", None, None) -> runtime.c_target.CCipher (host library via ctypes)

Modules: schedules (names, defaults), variants (ISA levels, run-time dispatch), prepare (the target's
passes), source (the files of a library) = library (set_key, modes, dispatch) + portable (scalar,
sliced, bitsliced kernels) + aesni/ (AES-NI kernels); body and dialects (IR -> C expressions),
bitslice/bitsliced (the bit-plane lowering), text and walk (C text helpers), build (objects, libraries).
"""

from __future__ import annotations

from cipherspec.ir import Module
from cipherspec.schedule import Schedule
from runtime.c_target import CCipher

from ..backend import Backend
from . import build as _build
from .prepare import c_passes
from .schedules import c_schedules, resolve
from .source import generate


class CBackend(Backend):
    name = "c"
    summary = "portable C99 libraries (scalar, block-sliced on vector extensions, bitsliced)"

    def parse_schedule(self, module: Module, text: str | None, rounds: int | None = None) -> Schedule:
        return resolve(module, text, rounds)

    def schedules(self, module: Module, rounds: int | None = None) -> list[Schedule]:
        return c_schedules(module, rounds)

    def passes(self, module: Module, schedule: Schedule):
        return c_passes(schedule)

    def generate(self, module: Module, schedule: Schedule) -> dict[str, str]:
        return generate(module, schedule)

    def build(self, registry, names, schedule, out_dir, progress=None) -> list[str]:
        return _build.build(registry, names, schedule, out_dir, progress)

    def load(self, registry, name, rounds, schedule, toolchain=None, isa: str | None = None) -> CCipher:
        """The library as shipped (every ISA variant), through ctypes; ``isa`` picks a variant for its keys."""
        module = registry.module(name, rounds)
        sched = resolve(module, schedule, rounds)
        return CCipher(module, sched, _build.build_shared(module, sched, toolchain), isa)


BACKEND = CBackend()
