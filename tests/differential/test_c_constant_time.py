"""Constant-time, checked: every shipped cipher's default library under valgrind memcheck with the key and
the plaintext marked undefined (runtime/ct_harness.c: set_key and every mode), once per kernel variant
the CPU runs under valgrind (forced with CIPHERSPEC_X86_ISA), through `cipherspec test --target c-memcheck`.  Memcheck reports any branch or address that
depends on them; the default libraries must have none, and a table schedule must be caught (so the check
can fail).  The libraries are built exactly as shipped."""

from __future__ import annotations

import io
import subprocess

import pytest
from c_support import cipher_names
from cpu import is_x86_64
from memcheck import memcheck, require_memcheck
from paths import ROOT

from cipherspec.registry import Registry
from driver import cli, testcmd


def _program(registry, name: str, schedule: str | None):
    from generator.c.build import lib_toolchain
    from generator.c.harness import harness_program
    from generator.c.schedules import resolve

    module = registry.module(name)
    sched = resolve(module, schedule)
    return module, sched, harness_program(module, sched, "ct_harness.c", lib_toolchain())


def _memcheck(exe, variant: str | None) -> subprocess.CompletedProcess:
    return memcheck(exe, {"CIPHERSPEC_X86_ISA": variant} if variant is not None else None)


@pytest.mark.parametrize("name", cipher_names())
def test_default_library_is_constant_time(registry, name):
    """`cipherspec test --target c-memcheck`: every variant this CPU runs, under valgrind (a variant
    valgrind's virtual CPU lacks, VAES or AVX-512, is reported skipped: said, not hidden)."""
    _every_variant_clean(registry, name)


def test_64bit_arx_lanes_are_constant_time():
    """SPECK-128/128 (the example): its interleaved 64-bit-lane kernels (generator/c/lanes64.py) on every
    variant valgrind runs (not avx512: valgrind has no AVX-512; the differential tests cover it)."""
    _every_variant_clean(Registry(extra=[ROOT / "examples" / "ciphers" / "speck.cs"]), "speck128_128")


def _every_variant_clean(registry, name: str) -> None:
    require_memcheck()
    out = io.StringIO()
    args = cli.build_parser("test").parse_args(["test", "--cipher", name, "--target", "c-memcheck"])
    assert testcmd.cmd_test(args, out, registry) == 0, out.getvalue()
    assert "PASS " in out.getvalue(), f"{name}: no variant ran under valgrind\n{out.getvalue()}"


def test_the_check_catches_a_table_schedule(registry):
    """The same harness on a table schedule: memcheck sees the secret-indexed lookups (in set_key and the
    modes), so the check above can fail."""
    require_memcheck()
    _, _, exe = _program(registry, "aes128", "sliced_tbytes_v16")
    p = _memcheck(exe, "sse2" if is_x86_64() else None)
    assert p.returncode == 99, p.stderr[-2000:]
    assert "Use of uninitialised value" in p.stderr
