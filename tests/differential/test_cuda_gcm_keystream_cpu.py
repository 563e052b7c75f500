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
from ci_scope import full_matrix
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


def _keystream(
    g, keys, msgs, data: np.ndarray, dec: int, key_shift: int, group: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    arr, _, _ = g.gcm_plan([(k, iv, b"", n, 16) for k, iv, n in msgs])
    table = np.concatenate(keys).astype(np.uint32).view(np.uint8)
    buf = np.zeros(table.nbytes + 32, np.uint8)
    base = (-buf.ctypes.data) % 16 + key_shift  # the table at a 16-byte boundary plus key_shift
    buf[base : base + table.nbytes] = table
    out = np.zeros_like(data)
    f = g.lib.cs_cpu_gcm_keystream
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int]
    f.argtypes += [ctypes.c_void_p, ctypes.c_void_p]
    rc = f(buf.ctypes.data + base, arr.ctypes.data, len(msgs), group, dec, data.ctypes.data, out.ctypes.data)
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


# A bitsliced layout's keyed route (P_gcm_keyed_run: the records listed by key on the device, one launch for every
# key, the records in memory order, the warp's current key copied into shared memory, a warp a record in chunks of
# 1,024 blocks, then the records' E(K, J0), 32 a lane, key by key; A/B c0: a launch a key with its round keys in
# constant memory, l1: one launch with the records key by key, g1: one launch with each item's round keys read from
# the key table): AES-128 at 2 rounds (the same layout and kernels, a smaller core for g++), records of 0..65,536 bytes around
# a chunk and a lane's 32 blocks, keys that repeat (7 over the records, and one) and a key a record; the keystream
# and every E(K, J0) against the C library.  (On a GPU it runs beside the tensor cores' GHASH, test_cuda_gcm_gpu.py.)
KEYED = [0, 1, 17, 511, 512, 513, 16384 - 1, 16384, 16384 + 1, 16384 + 16 * 33 + 5, 3 * 16384 + 7, 65536]


@pytest.mark.skipif(
    not full_matrix(), reason="g++ takes about 2 minutes on the bitsliced core (CIPHERSPEC_FULL_MATRIX=1)"
)
@pytest.mark.parametrize(
    ("nkeys", "arms"),
    [(7, ("", "c0", "l1", "g1")), (1, ("",)), (len(KEYED) + 2, ("", "g1"))],
    ids=["7-keys", "one-key", "a-key-a-record"],
)
def test_gcm_keyed_route(registry, nkeys, arms, monkeypatch):
    from cuda_cpu import cpu_cipher

    from generator.c import BACKEND as C_BACKEND

    require("g++")
    if "aes2" not in _CACHE:
        _CACHE["aes2"] = (cpu_cipher(registry, "aes128", None, 2), C_BACKEND.load(registry, "aes128", 2, None))
    g, c = _CACHE["aes2"]
    rng = np.random.default_rng(43 + nkeys)
    raw = [rng.integers(0, 256, g.key_bytes, dtype=np.uint8).tobytes() for _ in range(nkeys)]
    keys, rks = [g.gcm_key(k) for k in raw], [c.expand_key(k) for k in raw]
    lengths = KEYED + [int(x) for x in rng.integers(0, 65537, 2)]
    msgs = [((i * 5) % nkeys, rng.integers(0, 256, 12, dtype=np.uint8).tobytes(), n) for i, n in enumerate(lengths)]
    arr, _, total = g.gcm_plan([(k, iv, b"", n, 16) for k, iv, n in msgs])
    data = rng.integers(0, 256, max(total, 16), dtype=np.uint8)
    table = np.concatenate(keys).astype(np.uint32)
    f = g.lib.cs_cpu_gcm_keyed
    f.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint64]
    f.argtypes += [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    for arm in arms:  # (read at every call)
        monkeypatch.setenv("CIPHERSPEC_GCM_AB", arm)
        out, ej = np.zeros_like(data), np.zeros(4 * len(msgs), np.uint32)
        ran = f(table.ctypes.data, nkeys, arr.ctypes.data, len(msgs), data.ctypes.data, out.ctypes.data, ej.ctypes.data)
        assert ran == 1, (arm, ran)
        for r, ((k, iv, n), off) in enumerate(zip(msgs, arr["off"])):
            plain = data[int(off) : int(off) + n].tobytes()
            want = c.gcm_encrypt(rks[k], iv, b"", plain, 16)[0]
            assert out[int(off) : int(off) + n].tobytes() == want, (arm, n, k)
            j0 = np.frombuffer(iv + bytes([0, 0, 0, 1]), np.uint8)
            assert ej[4 * r : 4 * r + 4].tobytes() == c.encrypt_blocks(rks[k], j0).tobytes(), (arm, r, k)
    monkeypatch.delenv("CIPHERSPEC_GCM_AB")
