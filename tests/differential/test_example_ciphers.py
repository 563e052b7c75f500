"""The example ciphers (examples/ciphers/, through --spec only) on every target against the interpreter:
their designers' vectors and random blocks on every C schedule and on NEON (QEMU), the CUDA kernels
compiled for sm_90 (0 spills) with their cores emulated on the CPU.  Every example runs on every target
(64-bit words included): a refusal is a failure."""

from __future__ import annotations

import io

import conformance
import numpy as np
import pytest
from ci_scope import full_matrix
from paths import ROOT
from tools import require, require_nvcc

from cipherspec.parse import parse_file
from cipherspec.registry import Registry
from driver import cli
from driver.targets import make_cipher
from generator.backends import BACKENDS

EXAMPLES = ROOT / "examples" / "ciphers"
SPECS = {c.name: p for p in sorted(EXAMPLES.glob("*.cs")) for c in parse_file(p).ciphers}
REG = Registry(extra=list(SPECS.values()))
# CI: every example's C schedules but PRESENT's 16-lane bitsliced one (the 32-lane one runs the same code, 35 s of
# cc each), and the CUDA compile of every example but PRESENT (its 31 unrolled bit permutations: 1-2 min of
# nvcc; the conformance specs' CUDA cells cover its constructs, the device runs its KAT file); all of them with
# CIPHERSPEC_FULL_MATRIX=1
C_CASES = [
    (n, s.name)
    for n in SPECS
    for s in BACKENDS["c"].schedules(REG.module(n))
    if full_matrix() or s.name != "present80_c_sliced_v16"
]
CUDA_CASES = [n for n in sorted(SPECS) if full_matrix() or n != "present80"]


def _same(cipher, name: str, seed: int = 3) -> None:
    ref = make_cipher(REG, name, None, "ref")
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes()
    blocks = rng.integers(0, 256, (300, ref.block_bytes), dtype=np.uint8)
    rk, rrk = cipher.expand_key(key), ref.expand_key(key)
    ct = ref.encrypt_blocks(rrk, blocks)
    assert (np.asarray(cipher.encrypt_blocks(rk, blocks)) == ct).all()
    assert (np.asarray(cipher.decrypt_blocks(rk, ct)) == blocks).all()


def _kat(name: str, target: str, schedule: str | None = None) -> None:
    spec = SPECS[name]
    args = ["kat", str(spec.with_suffix(".txt")), "--spec", str(spec), "--target", target]
    out = io.StringIO()
    assert cli.run(args + (["--schedule", schedule] if schedule else []), out=out) == 0, out.getvalue()


@pytest.mark.parametrize("name,schedule", C_CASES, ids=[s for _, s in C_CASES])
def test_c_schedules(name, schedule):
    _same(make_cipher(REG, name, None, "c", schedule), name)
    _kat(name, "c", schedule)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_neon(name):
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    _same(make_cipher(REG, name, None, "neon"), name)
    _kat(name, "neon")


def test_present_neon_packed():
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    _same(make_cipher(REG, "present80", None, "neon", "present80_neon_packed_il1"), "present80")


@pytest.mark.parametrize("name", CUDA_CASES)
def test_cuda_compiles_clean_and_cores_match(name):
    require_nvcc()
    conformance.cuda_check(REG, name)
