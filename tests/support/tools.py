"""Tests that need something outside Python: an external tool, nvcc, or a GPU.

A missing tool skips the test with the reason and what to install, except under
CIPHERSPEC_REQUIRE_TOOLS=1 (CI, scripts/test.sh), where it fails: a CI run that silently skipped
the QEMU or nvcc tests would claim coverage it does not have.  A GPU is different: CI has none, so
GPU tests skip unless CIPHERSPEC_REQUIRE_GPU=1 (bench/gpu/run.sh, on the GPU machine).

    missing("OpenSSL 3 headers", "Debian: libssl-dev")  -> skip / fail, for needs require() cannot see
    require("pkg-config", "cc")      -> {"pkg-config": "/usr/bin/pkg-config", "cc": "/usr/bin/cc"}
    require_nvcc()                   -> Path to nvcc (PATH, CIPHERSPEC_NVCC, /usr/local/cuda*, the PyPI wheel)
    require_gpu()                    -> None; tests marked `gpu` get it from conftest.py
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

from toolchain.tools import install_hint


def missing(what: str, hint: str, env: str = "CIPHERSPEC_REQUIRE_TOOLS") -> NoReturn:
    """Skip (fail under ``env``=1): the test needs ``what``; ``hint`` says how to get it."""
    msg = f"needs {what} ({hint})"
    if os.environ.get(env) == "1":
        pytest.fail(f"{env}=1 and the test {msg}", pytrace=False)
    pytest.skip(msg)


def require(*tools: str) -> dict[str, str]:
    """The path of every tool on PATH; skips (or fails under CIPHERSPEC_REQUIRE_TOOLS=1) if one is missing."""
    found = {t: shutil.which(t) for t in tools}
    absent = [t for t, path in found.items() if path is None]
    if absent:
        missing(", ".join(absent), install_hint(absent))
    return found  # type: ignore[return-value]


def require_nvcc() -> Path:
    """nvcc as the toolchain finds it (not only on PATH: the PyPI wheel nvidia-cuda-nvcc counts)."""
    from toolchain import nvcc

    found = nvcc.find_nvcc()
    if found is None:
        missing("nvcc", "the CUDA toolkit or `pip install nvidia-cuda-nvcc`; bash scripts/setup.sh installs it")
    return found


@functools.lru_cache(maxsize=1)
def _gpu() -> tuple[bool, str]:
    from runtime.cuda_target import gpu_available

    return gpu_available()


def require_gpu() -> None:
    """An NVIDIA GPU and nvcc; skips without them (fails under CIPHERSPEC_REQUIRE_GPU=1)."""
    ok, why = _gpu()
    if not ok:
        missing("an NVIDIA GPU and nvcc", why, env="CIPHERSPEC_REQUIRE_GPU")


# Known weakness of the bitsliced CUDA defaults (AES, ARIA; generator/ptx/roundloop.py): at the 255-register
# cap ptxas spills a few cold values in one or two of the twelve kernels (AES-128 24 bytes, ARIA-128 16; the
# round loops themselves are spill-free in the kernels inspected). Spills go to fixed stack slots (still
# constant-time). Checks allow this much, no local arrays, and say so; a follow-up.
BITSLICED_SPILL_BUDGET = 128
# The multi-key launch's key-schedule kernel (host.cu.j2's P_key_schedule_multi: one thread per request, the
# key schedule's straight-line C) is not a throughput kernel: where a layout derives many round-key words
# (bitsliced AES: 2,560 of them) ptxas spills (up to ~2 KB of stack, fixed slots: constant-time); what it must not
# do is read local arrays (a table).  CUDA shrinks local memory back after the launch.
KEY_SCHEDULE_KERNEL = "_key_schedule_multi"
KEY_SCHEDULE_STACK_BUDGET = 4096


def is_key_schedule_ok(use, kernel: str) -> bool:
    """The key-schedule kernel within its stack budget (KEY_SCHEDULE_KERNEL); False for any other kernel."""
    return KEY_SCHEDULE_KERNEL in kernel and use.local == 0 and use.stack <= KEY_SCHEDULE_STACK_BUDGET


def clean_enough(stem: str, use, kernel: str = "") -> bool:
    """A kernel's ptxas usage passes: 0 spills and 0 local memory, or within BITSLICED_SPILL_BUDGET for a
    bitsliced (``_bs_``) schedule, or KEY_SCHEDULE_STACK_BUDGET of stack for the key-schedule kernel."""
    if KEY_SCHEDULE_KERNEL in kernel:
        return is_key_schedule_ok(use, kernel)
    if "_bs_" in stem:
        return use.local == 0 and max(use.spill_stores, use.spill_loads, use.stack) <= BITSLICED_SPILL_BUDGET
    return use.clean
