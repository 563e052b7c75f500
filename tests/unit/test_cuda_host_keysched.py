"""The CUDA library's host key schedule (generated C, keysched.py) vs the interpreter, via the host C compiler."""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from cipherspec.blockcipher import RefCipher
from generator.ptx import keysched
from generator.ptx.placement import rk_index
from generator.ptx.source import prepared
from shipped import shipped_registry
from tools import require

NAMES = shipped_registry().names()


@pytest.mark.parametrize("name", NAMES)
def test_host_key_schedule(registry, tmp_path, name):
    cc = os.environ.get("CC", "cc")
    require(cc)
    module = prepared(registry.module(name))
    idx = rk_index(module)
    ref = RefCipher(registry.module(name))
    keys = np.random.default_rng(9).integers(0, 256, (4, ref.key_bytes), dtype=np.uint8)
    src = ["#include <stdint.h>", "#include <stdio.h>", keysched.tables_c(module),
           keysched.key_schedule_c(module, "ks", idx),
           f"static const uint8_t keys[4][{ref.key_bytes}] = {{{', '.join('{' + ', '.join(map(str, k)) + '}' for k in keys)}}};",
           f"int main(void) {{ static uint32_t rk[{len(idx)}]; for (int k = 0; k < 4; ++k) {{ ks(keys[k], rk);",
           f"  for (int i = 0; i < {len(idx)}; ++i) printf(\"%u\\n\", rk[i]); }} return 0; }}"]
    (tmp_path / "ks.c").write_text("\n".join(src))
    subprocess.run([cc, "-O1", "-std=c99", "-o", str(tmp_path / "ks"), str(tmp_path / "ks.c")], check=True)
    got = np.array(subprocess.run([str(tmp_path / "ks")], capture_output=True, text=True, check=True).stdout.split(),
                   dtype=np.uint64).reshape(4, len(idx))
    for k in range(4):
        want = ref.expand_key(keys[k].tobytes())
        for n, i in idx.items():
            assert got[k, i] == int(np.asarray(want[n]).reshape(-1)[0]), (k, n)
