"""CUDA test helpers: the library's host key schedule (keysched.key_section, the C in the .cu's host section)
through the host C++ compiler, as nvcc's host pass compiles it.  The checks of a built library against the
interpreter are in cuda_checks.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
from tools import require

from generator.ptx.keysched import key_section
from generator.ptx.placement import rk_index


def kernel_round_keys(module, rkd: dict) -> np.ndarray:
    """The interpreter's round keys (RefCipher.expand_key of a prepared module) as the kernels' word array."""
    rk = np.zeros(len(rk_index(module)), np.uint64)
    for n, i in rk_index(module).items():
        rk[i] = int(np.asarray(rkd[n]).reshape(-1)[0])
    return rk


def host_cxx() -> str:
    cxx = os.environ.get("CXX", "g++")
    return require(cxx)[cxx]


def run_host_c(code: list[str], tmp_path: Path, name: str = "x", opt: str = "-O1") -> list[str]:
    """``code`` (a generated section, a table of inputs, a main that prints numbers) after stdint/stdio/string,
    compiled with the host C++ compiler at ``opt`` and run: what it printed, split at white space."""
    src = tmp_path / f"{name}.cpp"
    src.write_text("\n".join(["#include <stdint.h>", "#include <stdio.h>", "#include <string.h>", *code]))
    exe = tmp_path / name
    subprocess.run([host_cxx(), opt, "-std=c++17", "-o", str(exe), str(src)], check=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()


def host_round_keys(module, keys: np.ndarray, tmp_path: Path, fn: str = "key_schedule") -> np.ndarray:
    """(len(keys), round-key words) as the generated host key schedule of ``module`` (a CUDA-prepared
    module) computes them, one row per key; ``fn``: the section's function (key_schedule_enc: the multi-key
    launch's encrypt-only one; words it does not write stay 0)."""
    idx = rk_index(module)
    kb = keys.shape[1]
    code = [
        key_section(module, "cs").text,
        f"static const uint8_t keys[{len(keys)}][{kb}] = {{{', '.join('{' + ', '.join(map(str, k)) + '}' for k in keys)}}};",
        f"int main(void) {{ static uint32_t rk[{len(idx)}]; for (int k = 0; k < {len(keys)}; ++k) {{ cs_{fn}(keys[k], rk);",
        f'  for (int i = 0; i < {len(idx)}; ++i) printf("%u\\n", rk[i]); }} return 0; }}',
    ]
    out = run_host_c(code, tmp_path, "ks")
    return np.array(out, dtype=np.uint64).reshape(len(keys), len(idx))
