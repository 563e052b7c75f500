"""The GCM batch's keystream kernel (templates/gcm.cu.j2, P_gcm_keystream: a resident grid, each CTA taking
slices in turn, round keys copied ahead into two shared buffers and not at all when the key stays) on the CPU
shim (tests/support/cuda_cpu.py), against the C library's GCM ciphertexts.  On a GPU the kernel runs only beside
the tensor cores' GHASH (test_cuda_gcm_gpu.py checks it there); the shim's grid of 2 CTAs makes each CTA take
many slices, so every key pattern below switches buffers, keeps a key, or both.  LEA-128's default (one block a
unit: the library test_cuda_gcm_cpu.py builds); the key table 16-byte aligned (16-byte copies) and not (4-byte)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tools import require

LENGTHS = [0, 1, 15, 16, 17, 255, 1000, 4096 + 3, 16384 + 13] * 3
PATTERNS = {
    "one-key": lambda i: 0,
    "alternating": lambda i: i % 2,
    "runs": lambda i: (i // 4) % 3,
    "period-7": lambda i: i % 7,
}
_CACHE: dict = {}


def libs(registry):
    from cuda_cpu import cpu_cipher

    from generator.c import BACKEND as C_BACKEND

    require("g++")
    if not _CACHE:
        _CACHE["g"] = cpu_cipher(registry, "lea128", None)
        _CACHE["c"] = C_BACKEND.load(registry, "lea128", None, None)
    return _CACHE["g"], _CACHE["c"]


def _keystream(g, keys, msgs, data: np.ndarray, dec: int, key_shift: int) -> tuple[np.ndarray, np.ndarray]:
    arr, _, _ = g.gcm_plan([(k, iv, b"", n, 16) for k, iv, n in msgs])
    table = np.concatenate(keys).astype(np.uint32).view(np.uint8)
    buf = np.zeros(table.nbytes + 32, np.uint8)
    base = (-buf.ctypes.data) % 16 + key_shift  # the table at a 16-byte boundary plus key_shift
    buf[base : base + table.nbytes] = table
    out = np.zeros_like(data)
    f = g.lib.cs_cpu_gcm_keystream
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int]
    f.argtypes += [ctypes.c_void_p, ctypes.c_void_p]
    rc = f(buf.ctypes.data + base, arr.ctypes.data, len(msgs), 1, dec, data.ctypes.data, out.ctypes.data)
    assert rc == 0, rc
    return out, arr


@pytest.mark.parametrize("key_shift", [0, 4], ids=["aligned", "4-byte"])
@pytest.mark.parametrize("pattern", list(PATTERNS), ids=list(PATTERNS))
def test_gcm_keystream_key_patterns(registry, pattern, key_shift):
    g, c = libs(registry)
    rng = np.random.default_rng(len(pattern) * 7 + key_shift)
    raw = [rng.integers(0, 256, g.key_bytes, dtype=np.uint8).tobytes() for _ in range(7)]
    keys, rks = [g.gcm_key(k) for k in raw], [c.expand_key(k) for k in raw]
    msgs = [
        (PATTERNS[pattern](i), rng.integers(0, 256, 12, dtype=np.uint8).tobytes(), n) for i, n in enumerate(LENGTHS)
    ]
    arr, _, total = g.gcm_plan([(k, iv, b"", n, 16) for k, iv, n in msgs])
    data = rng.integers(0, 256, max(total, 16), dtype=np.uint8)
    for dec in (0, 1):  # (the keystream is the same both ways: dec only picks the hashed words)
        out, arr = _keystream(g, keys, msgs, data, dec, key_shift)
        for (k, iv, n), off in zip(msgs, arr["off"]):
            plain = data[int(off) : int(off) + n].tobytes()
            want = c.gcm_encrypt(rks[k], iv, b"", plain, 16)[0]
            assert out[int(off) : int(off) + n].tobytes() == want, (pattern, n, k, dec)
