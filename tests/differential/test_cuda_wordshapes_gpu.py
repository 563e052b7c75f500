"""The word-shape test ciphers (tests/data: 64-bit ARX, byte S-boxes and u8 -> u32 tables on words,
u16/u64 rotations) on a real GPU vs the interpreter: ECB both ways in both flavours, CTR around every
counter carry.  Skipped, with the reason, without an NVIDIA GPU (CI checks the same cores in the CPU
emulator and compiles every kernel: tests/unit/test_cuda_wordshapes.py); bench/gpu/run.sh runs it."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_checks import check_ctr, check_ecb
from wordshape_specs import CUDA_DEFAULTS, CUDA_OTHER, REG

from driver.targets import make_cipher

pytestmark = pytest.mark.gpu  # skips without a GPU (tests/support/tools.py: require_gpu)

SCHEDULES = CUDA_DEFAULTS + CUDA_OTHER
IDS = [f"{n}-{s or 'default'}" for n, s in SCHEDULES]
_MADE: dict = {}


def ciphers(name, sched):
    if (name, sched) not in _MADE:
        _MADE[name, sched] = (make_cipher(REG, name, None, "cuda", sched), make_cipher(REG, name, None, "ref"))
    return _MADE[name, sched]


@pytest.mark.parametrize("name,sched", SCHEDULES, ids=IDS)
def test_ecb_both_flavours(name, sched):
    check_ecb(*ciphers(name, sched), np.random.default_rng(7), (1, 33, 4099))


@pytest.mark.parametrize("name,sched", SCHEDULES, ids=IDS)
def test_ctr_carries(name, sched):
    c, ref = ciphers(name, sched)
    B = c.block_bytes
    check_ctr(c, ref, np.random.default_rng(11), (1, B + 1, 7 * B + 3, 40000 * B + 5), keystream=False)
