"""CUDA test helpers: the library's host key schedule (generated C) through the host C compiler.  The checks of a built
library against the interpreter are in cuda_checks.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
from tools import require

from generator.ptx import keysched
from generator.ptx.placement import rk_index


def host_cc() -> str:
    cc = os.environ.get("CC", "cc")
    return require(cc)[cc]


def host_round_keys(module, keys: np.ndarray, tmp_path: Path) -> np.ndarray:
    """(len(keys), round-key words) as the generated host key schedule of ``module`` (a CUDA-prepared
    module) computes them, one row per key."""
    idx = rk_index(module)
    kb = keys.shape[1]
    src = [
        "#include <stdint.h>",
        "#include <stdio.h>",
        keysched.tables_c(module),
        keysched.key_schedule_c(module, "ks", idx),
        f"static const uint8_t keys[{len(keys)}][{kb}] = {{{', '.join('{' + ', '.join(map(str, k)) + '}' for k in keys)}}};",
        f"int main(void) {{ static uint32_t rk[{len(idx)}]; for (int k = 0; k < {len(keys)}; ++k) {{ ks(keys[k], rk);",
        f'  for (int i = 0; i < {len(idx)}; ++i) printf("%u\\n", rk[i]); }} return 0; }}',
    ]
    (tmp_path / "ks.c").write_text("\n".join(src))
    subprocess.run([host_cc(), "-O1", "-std=c99", "-o", str(tmp_path / "ks"), str(tmp_path / "ks.c")], check=True)
    out = subprocess.run([str(tmp_path / "ks")], capture_output=True, text=True, check=True).stdout.split()
    return np.array(out, dtype=np.uint64).reshape(len(keys), len(idx))
