"""The example ciphers (examples/ciphers/, through their spec files only) on every target against the
interpreter, through `cipherspec test` (the command CI pipelines run): every C schedule with every ISA
variant this CPU runs, NEON under QEMU, the default C library cross-built for AArch64 and big-endian s390x
under QEMU and under valgrind memcheck; their designers' vectors through `cipherspec kat`; the CUDA kernels
compiled for sm_90 (0 spills) with their cores emulated on the CPU.  Every example runs on every target
(64-bit words included): a refusal is a failure."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import conformance
import pytest
from ci_scope import full_matrix
from memcheck import require_memcheck
from paths import ROOT
from tools import require, require_nvcc

from cipherspec.parse import parse_file
from cipherspec.registry import Registry
from driver import cli, testcmd
from generator.backends import BACKENDS

EXAMPLES = ROOT / "examples" / "ciphers"
SPECS = {c.name: p for p in sorted(EXAMPLES.glob("*.cs")) for c in parse_file(p).ciphers}
REG = Registry(extra=list(SPECS.values()))
# CI: every example's C schedules but PRESENT's 16-lane bitsliced one (the 32-lane one runs the same code, 35 s of
# cc each), and the CUDA compile of every example's default (SM4 and PRESENT: the constant-time bitsliced layout
# with its rounds in a loop, ~15-35 s of nvcc; PRESENT's pLayer is renaming there); all of them with
# CIPHERSPEC_FULL_MATRIX=1
C_CASES = [
    (n, s.name)
    for n in SPECS
    for s in BACKENDS["c"].schedules(REG.module(n))
    if full_matrix() or s.name != "present80_c_sliced_v16"
]
CUDA_CASES = sorted(SPECS)


def _command(tmp_path, name: str, targets: list[str], *extra: str) -> None:
    """`cipherspec test SPEC --cipher NAME --target T... --require T...`: exit 0, and a JUnit report with
    at least one passed test case per target and no failure.  The command's parser and handler, with the
    module's registry (each example parsed and optimized once for the whole file)."""
    junit = tmp_path / "junit.xml"
    args = ["test", str(SPECS[name]), "--cipher", name, "--target", *targets, "--require", *targets]
    out = io.StringIO()
    parsed = cli.build_parser("test").parse_args([*args, *extra, "--junit", str(junit)])
    assert testcmd.cmd_test(parsed, out, REG) == 0, out.getvalue()
    cases = ET.parse(junit).getroot().findall(".//testcase")
    assert not [c for c in cases if c.find("failure") is not None], out.getvalue()
    ran = {c.get("classname", "").split(".", 1)[1].split("[")[0] for c in cases if c.find("skipped") is None}
    assert ran == set(targets), out.getvalue()


def _kat(name: str, target: str, schedule: str | None = None) -> None:
    spec = SPECS[name]
    args = ["kat", str(spec.with_suffix(".txt")), "--spec", str(spec), "--target", target]
    out = io.StringIO()
    assert cli.run(args + (["--schedule", schedule] if schedule else []), out=out) == 0, out.getvalue()


@pytest.mark.parametrize("name,schedule", C_CASES, ids=[s for _, s in C_CASES])
def test_c_schedules(tmp_path, name, schedule):
    _command(tmp_path, name, ["c"], "--schedule", schedule)
    _kat(name, "c", schedule)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_neon(tmp_path, name):
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    _command(tmp_path, name, ["neon"])
    _kat(name, "neon")


def test_present_neon_packed(tmp_path):
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    _command(tmp_path, "present80", ["neon"], "--schedule", "present80_neon_packed_il1")


@pytest.mark.parametrize("name", sorted(SPECS))
def test_default_library_on_aarch64_s390x_and_under_memcheck(tmp_path, name):
    require("aarch64-linux-gnu-gcc", "qemu-aarch64", "s390x-linux-gnu-gcc", "qemu-s390x")
    require_memcheck()
    _command(tmp_path, name, ["c-aarch64", "c-s390x", "c-memcheck"])


@pytest.mark.parametrize("name", CUDA_CASES)
def test_cuda_compiles_clean_and_cores_match(name):
    require_nvcc()
    conformance.cuda_check(REG, name)


def test_sm4_neon_aese(tmp_path):
    """SM4's S-box is AES's with an affine map on each side (generator/neon/aesform.py): the AESE kernels
    (nibble-TBL maps, ShiftRows undone by TBL), ECB and CTR against the interpreter, and the designers'
    vectors; the library does not ship them (more instructions than TBL lookups: dispatch.crypto_applies)."""
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    _command(tmp_path, "sm4", ["neon"], "--schedule", "sm4_neon_b4_crypto_il2_sha3")
    _kat("sm4", "neon", "sm4_neon_b4_crypto_il1")
