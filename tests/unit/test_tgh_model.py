"""The index algebra of the tensor-core GHASH (templates/tgh.cu.j2), on the CPU through bench/gpu/tgb_model.py's
bit-level model: cs_tgh_tile's packing of the MMA low bits in 1, 2 or 4 independent chains gives the same hash
(GHASH's definition) for records across the chunk and tile edges.  The GPU tests
(tests/differential/test_cuda_gcm_gpu.py) check the kernels themselves."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "gpu"))

import tgb_model  # noqa: E402


@pytest.mark.parametrize("ch", [1, 2, 4])
@pytest.mark.parametrize("length", [0, 17, 1040])
def test_packing_chains_give_ghash(ch, length):
    rng = random.Random(length)
    h = rng.getrandbits(128)
    msg = bytes(rng.getrandbits(8) for _ in range(length))
    assert tgb_model.records_model(msg, h, ch) == tgb_model.ghash_sum(msg, h)
