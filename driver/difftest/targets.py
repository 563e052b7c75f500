"""What ``cipherspec test`` runs each cipher on: one Target per target name, built from the backends.

    TARGETS["c-s390x"].missing()                    -> None, or the one line saying what to install
    TARGETS["c"].schedule_names(module, "all")      -> every C schedule's name
    TARGETS["c"].units(registry, "sm4", "sm4_c_bitsliced_v32")
        -> [Unit(variant="avx512", lanes=32, run=...), Unit("avx2"), Unit("sse2")]   (each variant the CPU runs)

A Unit is one (target, schedule, variant) that runs requests (modes.Request) and answers the bytes;
``trace`` says how to build and run the traced C program of its IR (native, or under the same QEMU).
Targets: ``c`` natively (every ISA variant of the run-time dispatch this CPU runs, keys set up with
set_key_isa), ``c-memcheck`` (the same libraries under valgrind with key and data undefined), ``neon``
under qemu-aarch64, ``c-aarch64`` and ``c-s390x`` (the portable C cross-built, run under QEMU; s390x is
big-endian), ``cuda`` on a GPU and ``openssl-provider`` through EVP.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cipherspec.errors import UsageError
from cipherspec.registry import Registry
from cipherspec.schedule import Schedule
from toolchain.cc import Toolchain
from toolchain.cross import ARCHES, Cross, run_emulated, toolchain_for
from toolchain.tools import install_hint, missing_tools

from .modes import MODES, Request

CONSTANT_TIME = "constant-time"
# the modes every runner here takes (the C harness, the NEON harness, EVP, CUDA); a mode added to
# modes.py runs where a target lists it (the host C library through run_mode: all of them) and is
# reported skipped elsewhere until that target's runner takes it
BASIC_MODES = ("ecb", "cbc", "ctr")


@dataclass
class Trace:
    """How to build and run a traced C program for a unit: the C schedule whose IR it runs, the toolchain,
    and how to run the program (stdin bytes -> stdout bytes)."""

    schedule: Schedule
    toolchain: Toolchain
    run: Callable[[Path, bytes], bytes]


@dataclass
class Unit:
    target: str
    schedule: str
    variant: str | None
    lanes: int
    run: Callable[[list[Request]], list[bytes]] | None = None
    trace: Trace | None = None
    modes: tuple[str, ...] = field(default_factory=lambda: tuple(MODES))  # the modes it can run
    skip: str | None = None  # why this unit does not run here (a variant this CPU lacks)
    check: Callable[[], tuple[str, str]] | None = None  # a whole-unit check (constant-time): (status, message)

    @property
    def label(self) -> str:
        return self.target + (f"[{self.variant}]" if self.variant else "")


def _native(exe: Path, data: bytes) -> bytes:
    import subprocess

    p = subprocess.run([str(exe)], input=data, capture_output=True, timeout=600)
    if p.returncode:
        raise RuntimeError(f"{exe.name} exited with {p.returncode}: {p.stderr.decode()[-2000:]}")
    return p.stdout


def native_trace(module, schedule) -> Trace:
    from generator.c.build import lib_toolchain

    return Trace(schedule, lib_toolchain(), _native)


def _mode_runner(c) -> Callable[[list[Request]], list[bytes]]:
    """Requests through a cipher object's own modes (run_mode): the C library, EVP, CUDA."""
    keys: dict[bytes, object] = {}

    def run(requests: list[Request]) -> list[bytes]:
        out = []
        for r in requests:
            if r.key not in keys:
                keys[r.key] = c.expand_key(r.key)
            out.append(bytes(c.run_mode(keys[r.key], r.op.split("_")[0], r.direction, r.data, r.iv, **dict(r.params))))
        return out

    return run


class Target:
    name = ""
    summary = ""

    def missing(self) -> str | None:
        """None when this machine has what the target needs; else what is missing and how to get it."""
        return None

    def backend(self) -> str:
        return "c"

    def schedule_names(self, module, which: str) -> list[str]:
        from generator.backends import BACKENDS

        b = BACKENDS[self.backend()]
        if which == "all":
            return [b.schedule_name(module, s) for s in b.schedules(module)]
        return [b.schedule_name(module, b.parse_schedule(module, None))]

    def units(self, registry: Registry, name: str, schedule: str) -> list[Unit]:
        raise NotImplementedError


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
                u.run = _mode_runner(lib.with_isa(v))
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


class Neon(Target):
    name, summary = "neon", "the NEON kernels under qemu-aarch64"

    def backend(self):
        return "neon"

    def missing(self):
        absent = missing_tools("aarch64-linux-gnu-gcc", "qemu-aarch64")
        return f"needs {' and '.join(absent)} ({install_hint(absent)})" if absent else None

    def units(self, registry: Registry, name: str, schedule: str) -> list[Unit]:
        from generator.backends import BACKENDS
        from generator.c.schedules import resolve
        from runtime.neon_target import RoundKeys

        c = BACKENDS["neon"].load(registry, name, None, schedule)
        c.exe  # noqa: B018 - build now, so a build failure is the unit's
        module = c.module
        keys: dict[bytes, RoundKeys] = {}

        def run(requests: list[Request]) -> list[bytes]:
            from cipherspec import modes

            batch, out, later = [], [], {}
            new = list(dict.fromkeys(r.key for r in requests if r.key not in keys))
            # the kernels take the interpreter's round keys; the library's own (C) key schedule is checked
            # against them here, every new key in one QEMU run
            for key, (status, words) in zip(new, c.library_key_schedule(new) if new else []):
                keys[key] = c.expand_key(key)
                if status != 0 or not np.array_equal(words.words, keys[key].words):
                    raise RuntimeError(
                        f"the library's key schedule ({c.prefix}) differs from the interpreter's for key {key.hex()}"
                    )
            for i, r in enumerate(requests):
                if r.op == "ctr" and "ctr" not in c.emitted.modes:  # no fused CTR kernel: ECB of the counters
                    later[i] = modes.ctr(c, keys[r.key], r.iv, r.data)[0]
                elif r.data:
                    batch.append((r.op, keys[r.key], r.data, r.iv))
            got = iter(c.run_batch(batch))
            for i, r in enumerate(requests):
                out.append(later[i] if i in later else next(got) if r.data else b"")
            return out

        sched = resolve(module, None)
        return [
            Unit(
                self.name, c.schedule.name, None, c.emitted.group_blocks, run, native_trace(module, sched), BASIC_MODES
            )
        ]


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


class Cuda(Target):
    name, summary = "cuda", "the CUDA kernels on an NVIDIA GPU"

    def backend(self):
        return "cuda"

    def missing(self):
        from runtime.cuda_target import gpu_available

        ok, why = gpu_available()
        return None if ok else f"needs an NVIDIA GPU and nvcc ({why})"

    def units(self, registry, name, schedule):
        from generator.backends import BACKENDS
        from generator.c.schedules import resolve

        c = BACKENDS["cuda"].load(registry, name, None, schedule)
        module = registry.module(name)
        # 256 blocks: a thread block of the default launch; the lengths cross it and its multiples
        return [
            Unit(
                self.name,
                c.schedule_name,
                None,
                256,
                _mode_runner(c),
                native_trace(module, resolve(module, None)),
                BASIC_MODES,
            )
        ]


class OpenSSLProvider(Target):
    name, summary = "openssl-provider", "the OpenSSL 3 provider through EVP"

    def backend(self):
        return "openssl-provider"

    def missing(self):
        from toolchain.errors import ToolError
        from toolchain.openssl import find_dev

        absent = missing_tools("cc")
        if absent:
            return f"needs cc ({install_hint(absent)})"
        try:
            find_dev()
        except ToolError as e:
            return f"needs OpenSSL 3's development files ({e})"
        return None

    def units(self, registry, name, schedule):
        from generator.backends import BACKENDS
        from generator.c.library import lanes_of_variant
        from generator.c.variants import portable

        c = BACKENDS["openssl-provider"].load(registry, name, None, schedule)
        module, sched = c.module, c.schedule
        lanes = lanes_of_variant(module, portable(module, sched))
        return [Unit(self.name, sched.name, None, lanes, _mode_runner(c), native_trace(module, sched), BASIC_MODES)]


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        CNative(),
        CMemcheck(),
        Neon(),
        CCross(ARCHES["aarch64"]),
        CCross(ARCHES["s390x"]),
        Cuda(),
        OpenSSLProvider(),
    )
}


def select(names: list[str] | None) -> list[Target]:
    """The targets named (all of them when None); an unknown name is bad input."""
    if not names:
        return list(TARGETS.values())
    for n in names:
        if n not in TARGETS:
            raise UsageError(f"unknown target '{n}' (targets: {', '.join(TARGETS)})")
    return [TARGETS[n] for n in dict.fromkeys(names)]
