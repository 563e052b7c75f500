"""Constant-time, checked, for the CUDA libraries' host key schedule: set_key's C (generator/ptx/keysched.py,
the C library's key schedule with S-boxes as circuits, then a lane layout's derived words) is host code, so
no GPU is needed.  The section exactly as it stands in the generated .cu is compiled with g++ as nvcc's host
pass compiles it (C++17, -O3) into tests/data/cuda_key_ct_harness.cpp and run under valgrind memcheck with
the key marked undefined: memcheck reports any branch or memory address computed from the key.  The round
keys the run computes are then compared with the interpreter's, so the checked code is the key schedule.

What this proves: g++'s code for set_key's C makes no key-dependent branch or memory access for the key
tried, on every family's shipped CUDA schedule and on the bs layout (the one `cipherspec list` names
constant-time in its kernels too).  What it does not: anything about the kernels (table layouts read tables
in GPU memory at data-dependent addresses; bs reads none by construction), or nvcc's host compiler other
than g++ at -O3.  The library's set_key is checked against the interpreter on the CPU build
(tests/unit/test_cuda_cpu.py) and on a GPU (tests/differential/test_cuda_gpu.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from ci_scope import full_matrix
from cuda_support import host_cxx
from memcheck import memcheck, require_memcheck
from paths import ROOT
from shipped import shipped_registry

from cipherspec.blockcipher import RefCipher
from generator.ptx.build import schedule_for
from generator.ptx.keysched import KeySection, key_section
from generator.ptx.placement import rk_index
from generator.ptx.source import generate, prepared

REG = shipped_registry()
# one variant per family (its shipped schedule): the variants of a family differ in rounds and key words, not
# in how a lookup is lowered (ARIA's circuits take g++ ~10 s per variant); AES and ARIA ship the bs layout
FAMILIES = list({REG.module(n).family: n for n in reversed(REG.names())}.values())[::-1]
VARIANTS = [(n, None) for n in FAMILIES]
HARNESS = ROOT / "tests" / "data" / "cuda_key_ct_harness.cpp"


def _program(tmp_path, sec: KeySection, key_bytes: int, entry: str | None = None) -> Path:
    (tmp_path / "key_section.h").write_text(sec.text)
    exe = tmp_path / f"ks_{entry or sec.entry}"
    defs = ['-DCS_KEY_SECTION="key_section.h"', f"-DCS_ENTRY={entry or sec.entry}", f"-DCS_KEY_BYTES={key_bytes}"]
    defs.append(f"-DCS_RK_WORDS={sec.words}")
    cmd = [host_cxx(), "-std=c++17", "-O3", "-I", str(tmp_path), *defs, "-o", str(exe), str(HARNESS)]
    subprocess.run(cmd, check=True)
    return exe


def _interpreter_round_keys(module) -> list[int]:
    key = bytes((7 * i + 1) & 0xFF for i in range(module.key.nbytes))
    want = RefCipher(module).expand_key(key)
    return [int(np.asarray(want[n]).reshape(-1)[0]) for n in rk_index(module)]


@pytest.mark.parametrize("name,schedule", VARIANTS, ids=[f"{n}-{s or 'default'}" for n, s in VARIANTS])
def test_cuda_key_schedule_is_constant_time(tmp_path, name, schedule):
    require_memcheck()
    base = REG.module(name)
    sched = schedule_for(base, schedule)
    src = generate(base, sched)
    assert src.key.text in src.cu and f"{src.key.entry}(key, rk->w);" in src.cu  # what set_key runs
    module = prepared(base, sched)
    p = memcheck(_program(tmp_path, src.key, module.key.nbytes))
    assert p.returncode == 0, f"{src.name}: memcheck found key-dependent branches or addresses:\n" + p.stderr[-4000:]
    got = [int(w) for w in p.stdout.split()]
    at = src.key.schedule_at  # (the schedule's words after the derived ones where those are in round-loop order)
    assert len(got) == src.key.words and got[at : at + len(rk_index(module))] == _interpreter_round_keys(module)
    if src.key.entry_enc and full_matrix():  # the multi-key launch's encrypt-only expansion (ARIA): the same
        # circuits, a subset of the statements; checked under memcheck too before a release (it doubles ARIA's time)
        p = memcheck(_program(tmp_path, src.key, module.key.nbytes, src.key.entry_enc))
        assert p.returncode == 0, f"{src.name}: the encrypt-only expansion:\n" + p.stderr[-4000:]


def test_the_check_catches_a_table_key_schedule(tmp_path):
    """The same key schedule with table lookups (ct=False): memcheck sees the key-indexed S-box reads, so
    the check above can fail."""
    require_memcheck()
    module = prepared(REG.module("aes128"))
    sec = key_section(module, "cs_aes128_tables", ct=False)
    assert "cs_ctn_" not in sec.text and "cs_tab_" in sec.text
    p = memcheck(_program(tmp_path, sec, module.key.nbytes))
    assert p.returncode == 99, p.stderr[-2000:]
    assert "Use of uninitialised value" in p.stderr
