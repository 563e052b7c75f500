"""The C library's targets for ``cipherspec test``: natively (every ISA variant this CPU runs), under
valgrind memcheck, and the portable library cross-built for another architecture and run under QEMU.

    CNative().units(registry, "sm4", None)  -> [Unit("c", ..., "avx512"), Unit(..., "avx2"), Unit(..., "sse2")]
    CCross(ARCHES["s390x"]).units(registry, "sm4", None) -> [Unit("c-s390x", ..., "portable")]
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from toolchain.cross import Cross, run_emulated, toolchain_for
from toolchain.tools import install_hint, missing_tools

from .modes import Request
from .units import BASIC_MODES, CONSTANT_TIME, Target, Trace, Unit, mode_runner, native_trace


def _host_x86() -> bool:
    from generator.c.build import lib_toolchain
    from generator.c.variants import is_x86_64
    from toolchain.cc import target_machine

    return is_x86_64(target_machine(lib_toolchain().cc))


def _c_variants(module, sched, lib) -> list[tuple[str, int, bool]]:
    """(variant, lanes, whether this CPU runs it) for every variant of a host C library."""
    from generator.c.library import lanes_of_variant
    from generator.c.variants import portable, variants

    vs = variants(module, sched) if _host_x86() else [portable(module, sched)]
    by_name = {v.name: v for v in vs}
    return [(v, lanes_of_variant(module, by_name[v]), lib.variant_for(v) == v) for v in lib.variants()]


class CNative(Target):
    name, summary = "c", "the C library natively, every ISA variant this CPU runs"

    def missing(self):
        absent = missing_tools("cc")
        return f"needs cc ({install_hint(absent)})" if absent else None

    def units(self, registry, name, schedule):
        from generator.c import BACKEND

        lib = BACKEND.load(registry, name, None, schedule)
        out = []
        for v, lanes, runs in _c_variants(lib.module, lib.schedule, lib):
            u = Unit(self.name, lib.schedule.name, v, lanes, trace=native_trace(lib.module, lib.schedule))
            if runs:
                u.run = mode_runner(lib.with_isa(v))
            else:
                u.skip = f"this CPU does not run {v}"
            out.append(u)
        return out


class CMemcheck(Target):
    name, summary = "c-memcheck", "the C library under valgrind memcheck, key and data undefined (constant time)"

    def missing(self):
        from toolchain.valgrind import missing_memcheck

        return missing_memcheck()

    def units(self, registry, name, schedule):
        from generator.c import BACKEND
        from generator.c.build import lib_toolchain
        from generator.c.harness import harness_program
        from generator.c.source import ct_note, is_constant_time

        lib = BACKEND.load(registry, name, None, schedule)
        module, sched = lib.module, lib.schedule
        if not is_constant_time(module, sched):
            why = f"{ct_note(module, sched)} (by design; the default schedule is)"
            return [Unit(self.name, sched.name, None, 1, modes=(CONSTANT_TIME,), skip=why)]
        exe = harness_program(module, sched, "ct_harness.c", lib_toolchain())
        out = []
        for v, lanes, runs in _c_variants(module, sched, lib):
            u = Unit(self.name, sched.name, v, lanes, modes=(CONSTANT_TIME,))
            if not runs:
                u.skip = f"this CPU does not run {v}"
            else:
                u.check = _memcheck(exe, v if _host_x86() else None)
            out.append(u)
        return out


def _memcheck(exe: Path, variant: str | None) -> Callable[[], tuple[str, str]]:
    def check() -> tuple[str, str]:
        from toolchain.valgrind import LEAKED, memcheck

        p = memcheck(exe, {"CIPHERSPEC_X86_ISA": variant} if variant else None)
        if p.returncode == 3 and "lacks" in p.stderr:  # valgrind's virtual CPU lacks a feature (AVX-512, VAES)
            return "skipped", f"valgrind's virtual CPU does not run {variant}"
        if p.returncode == LEAKED:
            return "failed", "memcheck: a branch or an address depends on the key or the data:\n" + p.stderr[-3000:]
        if p.returncode:
            return "failed", f"the constant-time harness exited with {p.returncode}: {p.stderr[-2000:]}"
        if p.stdout.split() != [variant or "portable", "0"]:  # the variant asked for ran, every call returned 0
            return "failed", f"the constant-time harness answered {p.stdout.strip()!r}, not '{variant or 'portable'} 0'"
        return "passed", ""

    return check


class CCross(Target):
    """The portable C library cross-built for ``cross.arch`` and run under QEMU."""

    def __init__(self, cross: Cross):
        self.cross = cross
        self.name = f"c-{cross.arch}"
        endian = "big-endian" if cross.big_endian else "little-endian"
        self.summary = f"the portable C library on {cross.arch} ({endian}) under {cross.qemu}"

    def missing(self):
        absent = self.cross.missing()
        return f"needs {' and '.join(absent)} ({install_hint(absent)})" if absent else None

    def units(self, registry, name, schedule):
        from generator.c.harness import harness_program
        from generator.c.library import lanes_of_variant
        from generator.c.schedules import resolve
        from generator.c.variants import portable
        from runtime.harness import HarnessProgram

        module = registry.module(name)
        sched = resolve(module, schedule)
        tc = toolchain_for(self.cross)
        exe = harness_program(module, sched, "c_harness.c", tc)
        cross = self.cross
        prog = HarnessProgram(lambda data, args: run_emulated(cross, exe, data, args), module.block.nbytes)

        def run(requests: list[Request]) -> list[bytes]:
            # ECB/CBC of the whole-block prefix and CTR of all of it come from one input; every input of
            # the batch in one QEMU run
            inputs = [
                (r.key, r.iv or r.case.iv, r.data)
                if r.op == "ctr" and r.direction == "decrypt"
                else (r.key, r.case.iv, r.case.data)
                for r in requests
            ]
            prog.prefetch(inputs)
            return [prog.outputs(*i)[r.op] for i, r in zip(inputs, requests)]

        lanes = lanes_of_variant(module, portable(module, sched))
        trace = Trace(sched, tc, lambda exe, data: run_emulated(cross, exe, data))
        return [Unit(self.name, sched.name, "portable", lanes, run, trace, BASIC_MODES)]
