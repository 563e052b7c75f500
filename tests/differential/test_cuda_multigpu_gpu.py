"""Every GPU of the host, on real GPUs: the multi-GPU entries == the single-GPU entries == the C library.

On 1 GPU the same tests run with every device list being [0]; on N GPUs they cover every GPU, one GPU
(the last), and the GPUs in reverse order, so a part placed on the wrong GPU or a counter off by a part
shows.  Sizes put 2^32 / 2^64 / whole-block carries of the counter at and around the part boundaries.
Memory modes: page-locked (pinned_array), registered, staged, pageable, auto; asynchronous calls.
Skipped, with the reason, without an NVIDIA GPU (tests/unit/test_cuda_multigpu.py checks the same host
code on fake GPUs); bench/gpu/multi.sh runs this file on the device.
"""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pytest

from cipherspec.errors import UsageError
from generator.c import BACKEND as C_BACKEND
from generator.ptx import BACKEND as CUDA_BACKEND
from runtime import cuda_multi as cm

pytestmark = pytest.mark.gpu  # skips without a GPU (tests/support/tools.py: require_gpu)

NAMES = ["lea128", "aes128", "hight", "aria128"]  # ARX and table ciphers, 16- and 8-byte blocks
MIB = 1 << 20
_CACHE: dict = {}


def pair(registry, name):
    """(CUDA cipher, C library cipher) of the build defaults."""
    if name not in _CACHE:
        _CACHE[name] = (CUDA_BACKEND.load(registry, name, None, None), C_BACKEND.load(registry, name, None, None))
    return _CACHE[name]


def keyed(registry, name: str, seed: int):
    """(CUDA cipher, C cipher, rng, CUDA round keys, C key) for a random key."""
    g, c = pair(registry, name)
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 256, g.key_bytes, dtype=np.uint8).tobytes()
    return g, c, rng, g.expand_key(key), c.expand_key(key)


def device_lists(g) -> list:
    n = g.device_count()
    lists = [None, [n - 1]]
    if n > 1:
        lists.append(list(range(n))[::-1])
    return lists


def iv_near(B: int, bits: int, blocks_before: int, rng) -> bytes:
    """An IV whose counter carries out of the low ``bits`` bits ``blocks_before`` blocks in."""
    hi = int.from_bytes(rng.integers(0, 256, B, dtype=np.uint8).tobytes(), "big") >> bits << bits
    return ((hi | ((1 << bits) - blocks_before)) % (1 << (8 * B))).to_bytes(B, "big")


@pytest.mark.parametrize("name", NAMES)
def test_ctr_host_buffers_every_device_list_and_mode(registry, name):
    g, c, rng, rk, ck = keyed(registry, name, 21)
    B = g.block_bytes
    n = 40 * MIB + 7  # over 2 GPUs: 2 parts, several pieces each, a partial last block
    data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
    boundary = cm.split(n, cm.grain(B), 2)[1] // B  # the first block of part 1 on 2 GPUs
    ivs = [
        rng.integers(0, 256, B, dtype=np.uint8).tobytes(),
        iv_near(B, 32, boundary, rng),
        iv_near(B, 32, boundary + 1, rng),
        iv_near(B, 64, boundary - 1, rng),
        iv_near(B, 8 * B, 3, rng),
    ]
    pin_in, pin_out = g.pinned_array(n), g.pinned_array(n)
    pin_in[:] = np.frombuffer(data, np.uint8)
    for k, iv in enumerate(ivs):
        want = g.device_ctr(rk, iv, data)  # the single-GPU device entry (checked against the interpreter)
        if k < 2:
            assert want == c.run_mode(ck, "ctr", "encrypt", data, iv), "single GPU vs the C library"
        for devices in device_lists(g):
            assert g.ctr(rk, iv, data, devices=devices) == want, (iv.hex(), devices)
        for memory in ("register", "stage", "pageable"):
            assert g.ctr(rk, iv, data, memory=memory) == want, (iv.hex(), memory)
        gs = g.gpus()
        gs.ctr(rk, iv, pin_in, out=pin_out, memory="pinned", wait=False)
        gs.sync()
        assert pin_out.tobytes() == want, (iv.hex(), "pinned, asynchronous")
        ks = gs.ctr(rk, iv, None, n)
        assert np.array_equal(ks ^ np.frombuffer(data, np.uint8), np.frombuffer(want, np.uint8)), "keystream"
    for n in (0, 1, B - 1, B + 1, 4099 * B + 3):  # small calls: one GPU, one piece
        d = data[:n]
        assert g.ctr(rk, ivs[1], d) == c.run_mode(ck, "ctr", "encrypt", d, ivs[1]), n


@pytest.mark.parametrize("name", NAMES)
def test_ecb_host_buffers(registry, name):
    g, c, rng, rk, ck = keyed(registry, name, 22)
    for nblocks in (1, 33, (24 * MIB) // g.block_bytes + 1):
        pt = rng.integers(0, 256, (nblocks, g.block_bytes), dtype=np.uint8)
        ct = g.encrypt_blocks(rk, pt)
        if nblocks < 100:
            assert np.array_equal(ct, c.encrypt_blocks(ck, pt)), nblocks
        else:
            assert ct.tobytes() == g.device_ecb(rk, pt.tobytes()), nblocks
        for devices in device_lists(g):
            assert np.array_equal(g.decrypt_blocks(rk, ct, devices=devices), pt), (nblocks, devices)


@pytest.mark.parametrize("name", NAMES)
def test_device_resident_parts(registry, name):
    g, _, rng, rk, _ = keyed(registry, name, 23)
    B = g.block_bytes
    n = 96 * MIB + 5
    data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
    for devices in device_lists(g):
        gs = g.gpus(devices)
        first = gs.parts(n)
        iv = iv_near(B, 32, first[1] // B if len(first) > 2 else 7, rng)  # the wrap at part 1's first block
        for flavour in ("ptx", "c"):
            want = g.device_ctr(rk, iv, data, flavour=flavour)
            with gs.alloc(first) as din, gs.alloc(first) as dout:
                din.upload(data, first)
                gs.ctr_dev(rk, iv, din, dout, n, cm_flavour(flavour))
                assert dout.download().tobytes() == want, (devices, flavour)
                gs.ctr_dev(rk, iv, None, dout, n, cm_flavour(flavour))
                ks = dout.download()
                assert np.array_equal(ks ^ np.frombuffer(data, np.uint8), np.frombuffer(want, np.uint8))
            m = n - n % B  # ECB: whole blocks, its own split
            fm = gs.parts(m)
            with gs.alloc(fm) as din, gs.alloc(fm) as dout:
                din.upload(data[:m], fm)
                gs.ecb_dev(rk, din, dout, m, flavour=cm_flavour(flavour))
                assert dout.download().tobytes() == g.device_ecb(rk, data[:m], flavour=flavour), (devices, "ecb")


def cm_flavour(flavour: str) -> int:
    return {"ptx": 0, "c": 1}[flavour]


@pytest.mark.parametrize("name", ["lea128", "aes128", "aria128", "hight"])
def test_drbg_bulk_multi_gpu_equals_c_generate(registry, name):
    g, c = pair(registry, name)
    seed = hashlib.sha256(name.encode()).digest()
    req = 65536
    nbytes = 300 * req + 12345  # 301 requests, the last partial

    def fresh():
        d = c.make_drbg(use_df=True)
        d.instantiate(seed[: c.key_bytes], seed[16:24], b"multi-gpu")
        return d

    ref = fresh()
    want = b"".join(ref.generate(min(req, nbytes - o)) for o in range(0, nbytes, req))
    for devices in device_lists(g):
        d = fresh()
        plan = d.plan_bulk(nbytes, req)
        assert g.keystream_multi(plan, devices=devices) == want, devices
        gs = g.gpus(devices)
        for split_min in (0, cm.SPLIT_MIN):  # split over every GPU; under the threshold, on the first only
            gs.set_split_min(split_min)
            for flavour in ("ptx", "c"):
                got = g.keystream_multi(plan, flavour=flavour, devices=devices)
                assert got == want, (devices, flavour, split_min)
        d = fresh()
        out = io.BytesIO()
        assert g.drbg_stream(d, nbytes, devices=devices, chunk=16 * MIB).pipe(out) == nbytes
        assert out.getvalue() == want, devices
        assert d.generate(64) == fresh_after(fresh, nbytes, req).generate(64), "state after the stream"


def fresh_after(fresh, nbytes, req):
    d = fresh()
    for o in range(0, nbytes, req):
        d.generate(min(req, nbytes - o))
    return d


def test_ctr_and_ecb_streams_pipe(registry):
    g, c = pair(registry, "lea128")
    rng = np.random.default_rng(24)
    key, iv = rng.integers(0, 256, 16, dtype=np.uint8).tobytes(), iv_near(16, 32, 5, rng)
    rk = g.expand_key(key)
    n = 100 * MIB + 3
    data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
    out = io.BytesIO()
    assert g.ctr_stream(rk, iv, chunk=16 * MIB).pipe(io.BytesIO(data), out) == n
    assert out.getvalue() == g.device_ctr(rk, iv, data)
    m = n - n % 16
    out = io.BytesIO()
    assert g.ecb_stream(rk, chunk=16 * MIB).pipe(io.BytesIO(data[:m]), out) == m
    assert out.getvalue() == g.device_ecb(rk, data[:m])


def test_bad_input_on_the_device(registry):
    g, _ = pair(registry, "lea128")
    n = g.device_count()
    rk = g.expand_key(bytes(16))
    with pytest.raises(UsageError, match=f"GPU {n} does not exist"):
        g.ctr(rk, bytes(16), b"abc", devices=[n])
    with pytest.raises(UsageError, match="the list is empty"):
        g.ctr(rk, bytes(16), b"abc", devices=[])
    gs = g.gpus([0])
    free = gs.info()[0]["free"]
    with pytest.raises(UsageError, match="do not fit on GPU 0"):
        gs.alloc([0, free + (1 << 30)])


def test_cuda_visible_devices_is_honoured(registry):
    """With CUDA_VISIBLE_DEVICES naming one GPU, the library sees one device, and CTR over it is unchanged."""
    import os
    import subprocess
    import sys

    g, _ = pair(registry, "lea128")
    n = g.device_count()
    if n < 2:
        pytest.skip(f"needs 2 GPUs, {n} visible")
    rk, iv = g.expand_key(bytes(range(16))), bytes(15) + b"\x07"
    want = g.ctr(rk, iv, bytes(1 << 20)).hex()[:64]
    code = (
        "from cipherspec.registry import Registry; from generator.ptx import BACKEND as B; "
        "c = B.load(Registry(), 'lea128', None, None); rk = c.expand_key(bytes(range(16))); "
        "print(c.device_count(), c.ctr(rk, bytes(15) + b'\\x07', bytes(1 << 20)).hex()[:64])"
    )
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, CUDA_VISIBLE_DEVICES=str(n - 1)),
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["1", want]
