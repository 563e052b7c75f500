"""CUDA kernels on a real GPU vs the interpreter: every cipher x placement x mode, both flavours.

CTR is checked around every carry the counter can make: the low 32 bits wrapping inside one call
(the host cuts a launch there: hoisted values change), 2^64 and the whole-block wrap (2^128 or
2^64), with lengths 1, B-1, B, B+1 and odd multi-block lengths (partial last block).  Skipped, with
the reason, on machines without an NVIDIA GPU (CI); run on the device by bench/gpu/run.sh.
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda_checks import check_ctr, check_ecb
from shipped import shipped_registry

from cipherspec import modes
from cipherspec.errors import UsageError
from generator.ptx import BACKEND as CUDA_BACKEND
from runtime.cuda_target import CudaCipher

pytestmark = pytest.mark.gpu  # skips without a GPU (tests/support/tools.py: require_gpu)

NAMES = shipped_registry().names()
TABLED = ["aes128", "aria128"]
# the lane layouts (generator/ptx/lanes.py): byte-packed and bitsliced, each placement of round keys
# and the T-tables; AES/ARIA bitsliced (their round loops, roundloop.py) are also the build defaults (None above)
LANES = [
    ("aes128", "bs_t128_rk-shared"),
    ("aria128", "bs_t64"),
    ("hight", "swar"),
    ("hight", "swar_t64_ilp2_rk-shared"),
    ("pipo64_128", "swar_t128"),
    ("pipo64_128", "bs_t64"),
    ("pipo64_128", "bs_t128_rk-shared"),
    ("aes128", "tt_tab-shared32_t512"),
    ("aes128", "tt4_tab-shared8_rk-shared"),
]
# (cipher, schedule parameters); None = the build default (tuned.json or the built-in default)
SCHEDULES = (
    [(n, None) for n in NAMES]
    + [(n, "rk-shared") for n in NAMES]
    + [(n, "rk-reg") for n in ("cham64_128", "cham128_128", "cham128_256")]
    + [(n, t) for n in TABLED for t in ("tab-const", "tab-global", "tab-shared", "tab-shared4", "tab-shared32")]
    + [
        ("lea128", "ilp2_t128"),
        ("lea128", "nohoist"),
        ("cham64_128", "ilp4_t1024"),
        ("hight", "ilp2_t64"),
        ("pipo64_128", "ilp3_t32"),
        ("aes128", "ilp2_rk-shared_tab-shared8"),
        ("aria256", "tab-global_t512"),
    ]
    + LANES
)
IDS = [f"{n}-{s or 'default'}" for n, s in SCHEDULES]
_CACHE: dict = {}


def cipher(registry, name, sched) -> CudaCipher:
    key = (name, sched)
    if key not in _CACHE:
        _CACHE[key] = CUDA_BACKEND.load(registry, name, None, sched)
    return _CACHE[key]


@pytest.mark.parametrize("name,sched", SCHEDULES, ids=IDS)
def test_ecb_both_flavours(registry, make_ref, name, sched):
    check_ecb(cipher(registry, name, sched), make_ref(name), np.random.default_rng(7))


@pytest.mark.parametrize("name,sched", SCHEDULES, ids=IDS)
def test_ctr_carries_and_lengths(registry, make_ref, name, sched):
    check_ctr(cipher(registry, name, sched), make_ref(name), np.random.default_rng(11))


def test_kernel_errors_are_codes(registry):
    c = cipher(registry, "lea128", None)
    rk = c.expand_key(bytes(16))
    with pytest.raises(UsageError, match="needs a 16-byte key"):
        c.expand_key(bytes(15))
    with pytest.raises(UsageError, match="not a multiple"):
        c.run_mode(rk, "ecb", "encrypt", bytes(17))
    with c.device_buffer(64) as buf:
        rc = c.fn("ecb_dev_flavour")(rk.ctypes.data, 0, buf.ptr + 4, buf.ptr + 4, 32, None, 0)
        assert rc == 3 and "aligned" in c.strerror(rc)
        rc = c.fn("ecb_dev_flavour")(rk.ctypes.data, 0, buf.ptr, buf.ptr, 20, None, 0)
        assert rc == 2
        rc = c.fn("ecb_dev_flavour")(rk.ctypes.data, 0, None, buf.ptr, 32, None, 0)
        assert rc == 1


def test_host_streams_split_and_in_place(registry, make_ref):
    c, ref = cipher(registry, "cham128_128", None), make_ref("cham128_128")
    rng = np.random.default_rng(3)
    key, iv = bytes(range(16)), bytes([0xFF] * 12) + bytes([0xFF, 0xFF, 0xFF, 0xF0])
    rk, rkr = c.expand_key(key), ref.expand_key(key)
    data = rng.integers(0, 256, 3 * 1024 * 1024 + 7, dtype=np.uint8).tobytes()
    want, _ = modes.ctr(ref, rkr, iv, data)
    for k in (1, 3, 8):
        assert c.ctr(rk, iv, data, nstreams=k) == want, k
