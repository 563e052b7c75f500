"""The pieces every ``cipherspec test`` target is made of: a Unit (one target x schedule x variant that
runs requests), the Trace that says how to build its traced C program, and the Target base class.

    u = Unit("c", "sm4_c_bitsliced_v32", "avx2", lanes=32, run=mode_runner(lib.with_isa("avx2")))
    u.run([Request("ecb_encrypt", ...), ...]) -> [bytes, ...]
    native_trace(module, schedule)  -> Trace(schedule, the library toolchain, run natively)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cipherspec.registry import Registry
from cipherspec.schedule import Schedule
from toolchain.cc import Toolchain

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


def mode_runner(c) -> Callable[[list[Request]], list[bytes]]:
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
