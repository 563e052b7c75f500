"""The AArch64 NEON target: GNU-as assembly derived from the IR (layouts, isel, register allocation,
interleaving), a run-time dispatcher over the variants a CPU can run, tested under QEMU.

    BACKEND.parse_schedule(module, "aria128_neon_b16_il1");  BACKEND.generate(module, s) -> {.S, .h}
    BACKEND.load(registry, "aria128", None, "aria128_neon")  -> runtime.neon_target.NeonCipher (dispatched)

Modules: schedules, prepare (the target's IR passes), kernel (the driver: one pass per schedule through
the layout object's load / body / store -> regalloc -> render), layout (the Draft a layout fills, and its
interface), sliced / packed (the two layout objects), isel (subword: values narrower than the lanes, byte
lookups on words), emit (the .S and header), keysched (the library's constant-time key schedule, the C backend's), dispatch
(HWCAP selection), build.
"""

from __future__ import annotations

from cipherspec.ir import Module
from cipherspec.schedule import Schedule
from runtime.neon_target import NeonCipher

from ..backend import Backend
from . import build as _build
from .emit import emit
from .prepare import neon_passes
from .schedules import default, library_prefix, parse


class NeonBackend(Backend):
    name = "neon"
    summary = "AArch64 NEON assembly (sliced and packed layouts, AESE/AESD, EOR3/BCAX), run-time dispatch"

    def parse_schedule(self, module: Module, text: str | None, rounds: int | None = None) -> Schedule:
        return parse(text, module.cipher, rounds) if text else default(module, rounds)

    def schedules(self, module: Module, rounds: int | None = None) -> list[Schedule]:
        from .dispatch import variants

        return [v.schedule for v in variants(module, rounds)]

    def passes(self, module: Module, schedule: Schedule):
        return neon_passes(module)

    def generate(self, module: Module, schedule: Schedule) -> dict[str, str]:
        return _build.single_files(module, emit(module, schedule))

    def build(self, registry, names, schedule, out_dir, progress=None) -> list[str]:
        return _build.build(registry, names, schedule, out_dir, progress)

    def load(self, registry, name, rounds, schedule) -> NeonCipher:
        module = registry.module(name, rounds)
        if schedule == library_prefix(name, rounds):
            files, prefix, vs, emitted = _build.dispatched_files(module, rounds)
            return NeonCipher(module, vs[-1].schedule, emitted[-1], files, prefix, variants=vs)
        sched = self.parse_schedule(module, schedule, rounds)
        e = emit(module, sched)
        return NeonCipher(module, sched, e, _build.single_files(module, e), sched.name)


BACKEND = NeonBackend()
