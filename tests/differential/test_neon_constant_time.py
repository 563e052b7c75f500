"""Constant-time, checked, for the NEON libraries' key schedule: <prefix>_key.c (generator/neon/keysched.py,
the C backend's key schedule with S-boxes as circuits) is portable C, so it is compiled for the host and
run under valgrind memcheck with the key marked undefined (tests/data/neon_key_ct_harness.c), as the C
libraries are (test_c_constant_time.py).  Memcheck reports any branch or address computed from the key.

What this proves: the key schedule's C, compiled by the host compiler at -O2, makes no key-dependent
branch or memory access for the key tried.  What it does not: that the aarch64 compiler's code for the
same C is (it is the same source and has no table to index; compilers do not turn straight-line mask
logic into lookups), nor anything about the kernels (TBL/TBX/AESE on tables held in registers, loads of
whole 64-byte table slices at fixed addresses: no secret-dependent address by construction, and
qemu-aarch64 has no memcheck).  The key schedule's results are checked against the interpreter under
QEMU in test_neon.py (test_library_key_schedule_matches_interpreter)."""

from __future__ import annotations

import subprocess

import pytest
from memcheck import memcheck, require_memcheck
from paths import ROOT
from shipped import shipped_registry

from generator.neon.keysched import flat_index, key_source, key_word_bits

REG = shipped_registry()
# one variant per family: the variants of a family differ in rounds and key words, not in how a lookup is
# lowered (ARIA's circuits take the host compiler ~5 s per variant)
FAMILIES = list({REG.module(n).family: n for n in reversed(REG.names())}.values())[::-1]


def _program(tmp_path, name: str, ct: bool = True):
    module = REG.module(name)
    prefix = f"{name}_neon"
    rk = f"uint{key_word_bits(module)}_t"
    (tmp_path / "key.c").write_text(key_source(module, prefix, ct))
    exe = tmp_path / "ks"
    defs = [f"-DCS_PREFIX={prefix}", f"-DCS_KEY_BYTES={module.key.nbytes}", f"-DCS_RK={rk}"]
    defs.append(f"-DCS_KEY_WORDS={len(flat_index(module))}")
    harness = ROOT / "tests" / "data" / "neon_key_ct_harness.c"
    subprocess.run(["cc", "-O2", *defs, "-o", str(exe), str(harness), str(tmp_path / "key.c")], check=True)
    return exe


@pytest.mark.parametrize("name", FAMILIES)
def test_neon_key_schedule_is_constant_time(tmp_path, name):
    require_memcheck()
    p = memcheck(_program(tmp_path, name))
    assert p.returncode == 0, f"{name}: memcheck found key-dependent branches or addresses:\n" + p.stderr[-4000:]
    assert p.stdout.split() == ["0"]


def test_the_check_catches_a_table_key_schedule(tmp_path):
    """The same key schedule with table lookups (ct=False): memcheck sees the key-indexed S-box reads, so
    the check above can fail."""
    require_memcheck()
    p = memcheck(_program(tmp_path, "aes128", ct=False))
    assert p.returncode == 99, p.stderr[-2000:]
    assert "Use of uninitialised value" in p.stderr
