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
big-endian), ``cuda`` on a GPU and ``openssl-provider`` through EVP.  The C library's targets are in
c_targets.py, the other backends' in backend_targets.py, what they are made of in units.py.
"""

from __future__ import annotations

from cipherspec.errors import UsageError
from toolchain.cross import ARCHES

from .backend_targets import Cuda, Neon, OpenSSLProvider
from .c_targets import CCross, CMemcheck, CNative
from .units import CONSTANT_TIME, Target, Trace, Unit, native_trace

__all__ = ["CONSTANT_TIME", "TARGETS", "Target", "Trace", "Unit", "native_trace", "select"]


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
