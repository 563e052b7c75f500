"""CUDA GCM on the CPU (tests/support/cuda_cpu.py runs the generated kernels and host API) against the C
library's GCM, byte for byte: one long message (several slices joined, IVs of 12 and other lengths,
truncated tags, the partial last block), a batch of messages and keys in one launch, tampering, error
codes.  CI's cheap check of gcm.cu.j2 without a GPU: LEA-128's default schedule (one block per thread);
the bitsliced AES default (32 blocks per thread: the lane path) behind CIPHERSPEC_FULL_MATRIX=1 (g++ takes
minutes on it).  The GPU runs the same checks on the device (test_cuda_gcm_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest
from ci_scope import full_matrix
from gcm_checks import check_batch, check_errors, check_long
from tools import require

# LEA's default: 256 threads x 2 slots a row (512 blocks); the CPU shim's 2 "SMs" make 70000 and 200000
# bytes several slices (the join kernel)
LONG = [0, 1, 15, 16, 17, 255, 8192, 8193, 16384 + 5, 70000, 200000]
BATCH = [0, 1, 16, 17, 1000, 16384, 16384 + 13, 3000, 40000]
CASES = [("lea128", None)] + ([("aes128", None)] if full_matrix() else [])
_CACHE: dict = {}


def libs(registry, name, sched):
    from cuda_cpu import cpu_cipher

    from generator.c import BACKEND as C_BACKEND

    require("g++")
    from generator.ptx.build import family_rk_words

    if (name, sched) not in _CACHE:  # (the round keys at the family's size, as `cipherspec build` ships them)
        pad = family_rk_words(registry, name, sched)
        _CACHE[(name, sched)] = (
            cpu_cipher(registry, name, sched, rk_pad=pad),
            C_BACKEND.load(registry, name, None, None),
        )
    return _CACHE[(name, sched)]


@pytest.mark.parametrize("name,sched", CASES)
def test_gcm_long_message(registry, name, sched):
    g, c = libs(registry, name, sched)
    check_long(g, c, np.random.default_rng(21), LONG)


@pytest.mark.parametrize("name,sched", CASES)
def test_gcm_batch(registry, name, sched):
    g, c = libs(registry, name, sched)
    check_batch(g, c, np.random.default_rng(22), BATCH)


LANE_BATCHES = {  # (lengths, keys): many keys in a warp, lanes past the end, several CTAs; more than 256 keys
    "40-keys": ([0, 1, 15, 16, 17, 100, 1000, 4099] * 9, 40),
    "300-keys": ([0, 1, 16, 17, 33, 100, 255, 300] * 40, 300),
}


@pytest.mark.skipif(
    not full_matrix(), reason="g++ takes about 2 minutes on the bitsliced core (CIPHERSPEC_FULL_MATRIX=1)"
)
@pytest.mark.parametrize("batch", list(LANE_BATCHES), ids=list(LANE_BATCHES))
def test_gcm_batch_lane_keys(registry, batch):
    """The finish kernel of a bitsliced layout (P_gcm_finish_lanes: a warp's 32 messages in one core call, each
    block under its own message's key, the key words merged by ballot), on AES-128 at 2 rounds (the same layout
    and kernels, a smaller core for g++; the C library at 2 rounds too): tags 16/12/8, AAD 0..29 bytes, empty
    records, host and device descriptions, a tampered tag (its output zeroed)."""
    from cuda_cpu import cpu_cipher

    from generator.c import BACKEND as C_BACKEND

    require("g++")
    g, c = cpu_cipher(registry, "aes128", None, 2), C_BACKEND.load(registry, "aes128", 2, None)
    assert "_gcm_finish_lanes" in g.source.cu  # (the route this test is for)
    lengths, nkeys = LANE_BATCHES[batch]
    check_batch(g, c, np.random.default_rng(23 + nkeys), lengths, nkeys=nkeys, key_of=lambda i: (i * 7) % nkeys)


def test_gcm_errors(registry):
    g, _ = libs(registry, "lea128", None)
    check_errors(g)


def test_no_gcm_for_64_bit_blocks(registry):
    from generator.ptx.build import schedule_for
    from generator.ptx.source import generate

    m = registry.module("cham64_128")
    src = generate(m, schedule_for(m, None))
    assert "_gcm_" not in src.cu and "_gcm_" not in src.h
