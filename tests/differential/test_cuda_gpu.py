"""CUDA kernels on a real GPU vs the interpreter: every cipher x placement x mode, both flavours.

CTR is checked around every carry the counter can make: the low 32 bits wrapping inside one call
(the host cuts a launch there: hoisted values change), 2^64 and the whole-block wrap (2^128 or
2^64), with lengths 1, B-1, B, B+1 and odd multi-block lengths (partial last block).  Skipped, with
the reason, on machines without an NVIDIA GPU (CI); run on the device by bench/gpu/run.sh.
"""
from __future__ import annotations

import numpy as np
import pytest

from cipherspec import modes
from cipherspec.errors import UsageError
from generator.ptx import BACKEND as CUDA_BACKEND
from runtime.cuda_target import CudaCipher
from shipped import shipped_registry

pytestmark = pytest.mark.gpu  # skips without a GPU (tests/support/tools.py: require_gpu)

NAMES = shipped_registry().names()
TABLED = ["aes128", "aria128"]
# (cipher, schedule parameters); None = the build default (tuned.json or the built-in default)
SCHEDULES = (
    [(n, None) for n in NAMES]
    + [(n, "rk-shared") for n in NAMES]
    + [(n, "rk-reg") for n in ("cham64_128", "cham128_128", "cham128_256")]
    + [(n, t) for n in TABLED for t in ("tab-const", "tab-global", "tab-shared", "tab-shared4", "tab-shared32")]
    + [("lea128", "ilp2_t128"), ("lea128", "nohoist"), ("cham64_128", "ilp4_t1024"), ("hight", "ilp2_t64"),
       ("pipo64_128", "ilp3_t32"), ("aes128", "ilp2_rk-shared_tab-shared8"), ("aria256", "tab-global_t512")]
)
IDS = [f"{n}-{s or 'default'}" for n, s in SCHEDULES]
_CACHE: dict = {}


def cipher(registry, name, sched) -> CudaCipher:
    key = (name, sched)
    if key not in _CACHE:
        _CACHE[key] = CUDA_BACKEND.load(registry, name, None, sched)
    return _CACHE[key]


def ivs(B: int, rng) -> list[bytes]:
    """Random, and just below each carry: 2^32, 2^64 and (16-byte blocks) 2^128."""
    def below(bits: int, k: int) -> bytes:
        hi = int.from_bytes(rng.integers(0, 256, B, dtype=np.uint8).tobytes(), "big") >> bits << bits
        return ((hi | ((1 << bits) - k)) % (1 << (8 * B))).to_bytes(B, "big")

    out = [rng.integers(0, 256, B, dtype=np.uint8).tobytes(), below(32, 3), below(32, 1)]
    out += [below(64, 2)] + ([below(128, 5)] if B == 16 else [])
    return out


@pytest.mark.parametrize("name,sched", SCHEDULES, ids=IDS)
def test_ecb_both_flavours(registry, make_ref, name, sched):
    c, ref = cipher(registry, name, sched), make_ref(name)
    rng = np.random.default_rng(7)
    key = rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes()
    rk, rkr = c.expand_key(key), ref.expand_key(key)
    for n in (1, 2, 33, 1000, 4099):
        pt = rng.integers(0, 256, (n, c.block_bytes), dtype=np.uint8)
        ct = ref.encrypt_blocks(rkr, pt)
        assert (c.encrypt_blocks(rk, pt) == ct).all(), n
        assert (c.decrypt_blocks(rk, ct) == pt).all(), n
        for flavour in ("ptx", "c"):
            assert c.device_ecb(rk, pt.tobytes(), False, flavour) == ct.tobytes(), (n, flavour)
            assert c.device_ecb(rk, ct.tobytes(), True, flavour) == pt.tobytes(), (n, flavour)


@pytest.mark.parametrize("name,sched", SCHEDULES, ids=IDS)
def test_ctr_carries_and_lengths(registry, make_ref, name, sched):
    c, ref = cipher(registry, name, sched), make_ref(name)
    B = c.block_bytes
    rng = np.random.default_rng(11)
    key = rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes()
    rk, rkr = c.expand_key(key), ref.expand_key(key)
    for iv in ivs(B, rng):
        for n in (1, B - 1, B, B + 1, 7 * B + 3, 40000 * B + 5):
            data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
            want, _ = modes.ctr(ref, rkr, iv, data)
            assert c.ctr(rk, iv, data) == want, (iv.hex(), n, "host")
            for flavour in ("ptx", "c"):
                assert c.device_ctr(rk, iv, data, flavour=flavour) == want, (iv.hex(), n, flavour)
                ks = c.device_ctr(rk, iv, None, n, flavour=flavour)
                assert bytes(a ^ b for a, b in zip(ks[:64], data[:64])) == want[:64], (iv.hex(), n, flavour, "ks")
                assert np.array_equal(np.frombuffer(ks, np.uint8) ^ np.frombuffer(data, np.uint8),
                                      np.frombuffer(want, np.uint8)), (iv.hex(), n, flavour, "keystream")


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
