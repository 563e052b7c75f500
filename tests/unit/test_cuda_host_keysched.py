"""The CUDA library's host key schedule (generated C, keysched.py) vs the interpreter, via the host C compiler."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_support import host_round_keys
from shipped import shipped_registry

from cipherspec.blockcipher import RefCipher
from generator.ptx.placement import rk_index
from generator.ptx.source import prepared

NAMES = shipped_registry().names()


@pytest.mark.parametrize("name", NAMES)
def test_host_key_schedule(registry, tmp_path, name):
    module = prepared(registry.module(name))
    idx = rk_index(module)
    ref = RefCipher(registry.module(name))
    keys = np.random.default_rng(9).integers(0, 256, (4, ref.key_bytes), dtype=np.uint8)
    got = host_round_keys(module, keys, tmp_path)
    for k in range(4):
        want = ref.expand_key(keys[k].tobytes())
        for n, i in idx.items():
            assert got[k, i] == int(np.asarray(want[n]).reshape(-1)[0]), (k, n)
