"""A generated C library linked with one of the runtime's C harnesses (runtime/harness.py) into a program.

    exe = harness_program(module, schedule, "c_harness.c", Toolchain(cc="s390x-linux-gnu-gcc", ...))
    exe = harness_program(module, schedule, "ct_harness.c", lib_toolchain())   # for valgrind memcheck

The library is built exactly as ``cipherspec build`` plans it for the toolchain's target (every x86-64
variant on x86-64, the portable one elsewhere); the program is cached by content like the library.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cipherspec.ir import Module
from cipherspec.schedule import Schedule
from runtime.harness import harness_source
from toolchain.cc import Toolchain

from .build import build_program


def harness_defines(module: Module) -> list[str]:
    """The macros a harness is compiled with: the cipher's prefix and sizes, its header included."""
    name = module.cipher
    return [
        f"-DCS_CIPHER={name}",
        f"-DCS_KEY_BYTES={module.key.nbytes}",
        f"-DCS_BLOCK_BYTES={module.block.nbytes}",
        "-include",
        f"{name}.h",
    ]


def harness_program(
    module: Module, schedule: Schedule, harness: str, toolchain: Toolchain, extra_args: Sequence[str] = ()
) -> Path:
    files = {"harness.c": harness_source(harness)}
    return build_program(module, schedule, files, toolchain, [*harness_defines(module), *extra_args])
