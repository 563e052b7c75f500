"""CTR_DRBG bulk output on the GPU (one multi-key launch) == the CPU paths, bit for bit.

Several MB per cipher: many 2^19-bit requests, reseeds every 17 requests (a deterministic entropy
source, the same for both sides), a partial last request; both kernel flavours; the state after
the bulk run equals the state after the same generate() calls.  CPU sides: the Python CtrDrbg over
the generated C library, and the C library's own DRBG (P_drbg_generate calls; P_drbg_plan for the GPU).
Skipped, with the reason, without an NVIDIA GPU; bench/gpu/run.sh runs it on the device.
"""

from __future__ import annotations

import ctypes
import hashlib
import os

import numpy as np
import pytest

from cipherspec.drbg import BulkRequest, CtrDrbg
from cipherspec.drbg_many import generate_many, instantiate_many
from cipherspec.modes import ctr_next_iv
from generator.c import BACKEND as C_BACKEND
from generator.ptx import BACKEND as CUDA_BACKEND
from runtime import cuda_multi as cm

pytestmark = pytest.mark.gpu  # skips without a GPU (tests/support/tools.py: require_gpu)

CIPHERS = ["aes128", "lea128", "hight", "cham128_128", "aria128"]
REQ = 65536  # 2^19 bits
NBYTES = 3 * (1 << 20) + 12345  # 49 requests, the last partial (and not whole blocks)
_CACHE: dict = {}


def ciphers(registry, name):
    if name not in _CACHE:
        _CACHE[name] = (C_BACKEND.load(registry, name, None, None), CUDA_BACKEND.load(registry, name, None, None))
    return _CACHE[name]


def entropy_source(seed: int):
    state = {"n": 0}

    def src(n: int) -> bytes:
        state["n"] += 1
        return hashlib.shake_256(f"{seed}/{state['n']}".encode()).digest(n)

    return src


def seeds(c):
    e = hashlib.sha256(b"entropy").digest()[: c.key_bytes]
    return e, hashlib.sha256(b"nonce").digest()[: max(c.key_bytes // 2, 8)], b"gpu-drbg-test"


def twin_c_drbgs(c, seed: int):
    """Two C DRBGs in the same state (reseed interval 17, the same deterministic entropy source)."""
    pair = [c.make_drbg(reseed_interval=17, entropy_source=entropy_source(seed)) for _ in range(2)]
    for d in pair:
        d.instantiate(*seeds(c))
    return pair


def requests(d, nbytes: int, req: int = REQ) -> bytes:
    out = []
    while nbytes > 0:
        out.append(d.generate(min(req, nbytes)))
        nbytes -= req
    return b"".join(out)


@pytest.mark.parametrize("name", CIPHERS)
def test_python_drbg_bulk_gpu_equals_cpu(registry, name):
    c, g = ciphers(registry, name)
    e, n, p = seeds(c)
    cpu, gpu = (CtrDrbg(x, reseed_interval=17, entropy_source=entropy_source(1)) for x in (c, g))
    for d in (cpu, gpu):
        d.instantiate(e, n, p)
    want = requests(cpu, NBYTES)
    got = gpu.generate_bulk(NBYTES)  # plan on the host, keystream_multi: one launch
    assert hashlib.sha256(got).hexdigest() == hashlib.sha256(want).hexdigest()
    assert (gpu.key, gpu.v, gpu.reseed_counter) == (cpu.key, cpu.v, cpu.reseed_counter)
    assert gpu.generate(100) == cpu.generate(100)


@pytest.mark.parametrize("flavour", ["ptx", "c"])
@pytest.mark.parametrize("name", CIPHERS)
def test_c_drbg_plan_gpu_equals_c_generate(registry, name, flavour):
    c, g = ciphers(registry, name)
    a, b = twin_c_drbgs(c, 2)
    want = requests(a, NBYTES)
    got = g.keystream_multi(b.plan_bulk(NBYTES, REQ), flavour=flavour)  # C P_drbg_plan, then the GPU
    assert got == want
    assert b.generate(64) == a.generate(64)


@pytest.mark.parametrize("name", ["lea128", "hight"])
def test_odd_request_sizes(registry, name):
    """Requests that are not whole blocks (1000 bytes): the padded layout, sliced per request."""
    c, g = ciphers(registry, name)
    e, n, p = seeds(c)
    cpu, gpu = CtrDrbg(c), CtrDrbg(g)
    for d in (cpu, gpu):
        d.instantiate(e, n, p)
    assert gpu.generate_bulk(50_003, request_bytes=1000) == requests(cpu, 50_003, 1000)


@pytest.mark.parametrize("name", CIPHERS)
def test_counter_carries_across_the_whole_block(registry, name):
    c, g = ciphers(registry, name)
    B, rng = c.block_bytes, np.random.default_rng(3)
    vs = [
        b"\xff" * B,
        b"\x00" * (B - 4) + b"\xff\xff\xff\xf0",
        bytes(B - 8) + b"\xff" * 8,
        rng.integers(0, 256, B, dtype=np.uint8).tobytes(),
    ]
    plan = []
    for i, v in enumerate(vs):
        key = rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes()
        nb = [4096, 37, 1000, 3][i]
        plan.append(BulkRequest(key, v, nb, nb * B - (5 if i == len(vs) - 1 else 0)))
    want = b"".join(
        c.run_mode(c.expand_key(r.key), "ctr", "encrypt", bytes(r.nbytes), ctr_next_iv(r.v, 1)) for r in plan
    )
    for fl in ("ptx", "c"):
        assert g.keystream_multi(plan, flavour=fl) == want


def test_many_independent_instances(registry):
    c, g = ciphers(registry, "lea128")
    ent = lambda i: hashlib.sha256(b"e%d" % i).digest()[:16]  # noqa: E731
    non = lambda i: b"n%07d" % i  # noqa: E731
    cpu = instantiate_many(c, 24, ent, non)
    gpu = instantiate_many(g, 24, ent, non)
    got = generate_many(gpu, 200_000)  # 24 instances x 4 requests, one launch
    assert len(set(got)) == 24
    assert got == [requests(d, 200_000) for d in cpu]


def fresh_context(g, env: dict) -> cm.GpuSet:
    """A new context over every visible GPU made under ``env`` (the context reads its A/B switches when made)."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return cm.GpuSet(g, None, cm.STREAMS)
    finally:
        for k, v in old.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v


def plan_case(registry, name: str, seed: int, n: int):
    """Twin C DRBGs of ``name`` seeded alike: ``want`` = n bytes of P_drbg_generate calls from the first, the plan of
    the same n bytes (P_drbg_plan) from the second as the arrays the context's call takes, and the requests' ends."""
    c, g = ciphers(registry, name)
    a, b = twin_c_drbgs(c, seed)
    want = requests(a, n)
    plan = b.plan_bulk(n, REQ)
    keys = np.frombuffer(b"".join(r.key for r in plan), np.uint8)
    vs = np.frombuffer(b"".join(r.v for r in plan), np.uint8)
    lens = np.array([r.nbytes for r in plan], np.uint64)
    ends = np.concatenate([[0], np.cumsum(lens.astype(np.int64))])
    return g, a, b, want, keys, vs, lens, ends


@pytest.mark.parametrize("path", ["mapped", "copy", "lone-kst", "two-launch", "ctas", "pair"])
@pytest.mark.parametrize("name", ["lea128", "aes128", "aria128"])
def test_context_drbg_calls_equal_c_generate(registry, name, path):
    """The multi-GPU context's multi-key calls from a C P_drbg_plan (every visible GPU, split at every size;
    34 requests over two reseeds, the last partial) == P_drbg_generate calls: a lone call (one stream, waiting
    for the keystream's event) with its phases recorded, calls timed in the library (P_mg_time_multi), and
    asynchronous calls back to back (the key-stream form, alternating slots) then one sync.  Each way the plan
    reaches the GPU: read mapped by the key-schedule launch (default), copied (CIPHERSPEC_MG_PLAN_COPY=1), and
    the lone call on the key stream (CIPHERSPEC_MG_LONE_KST=1); and where the cipher's key schedule is fused into
    the keystream launch (LEA-128: the default), the two launches instead (CIPHERSPEC_MG_FUSED=0); whole waves (the
    default: one wave of CTAs crossing requests) or the former grid of CTAs per request (CIPHERSPEC_MG_WAVE=0); the plan
    of V's and keys side by side, one fetch a request (CIPHERSPEC_MG_PAIR=1: fused key schedules, LEA-128 here)."""
    if path == "pair" and name != "lea128":
        pytest.skip("the pair kernel is the fused keystream kernel's (LEA-128 here)")
    n = 33 * REQ + 4000
    g, a, b, want, keys, vs, lens, ends = plan_case(registry, name, 4, n)
    env = {
        "mapped": {},
        "copy": {"CIPHERSPEC_MG_PLAN_COPY": "1"},
        "lone-kst": {"CIPHERSPEC_MG_LONE_KST": "1"},
        "two-launch": {"CIPHERSPEC_MG_FUSED": "0"},
        "ctas": {"CIPHERSPEC_MG_WAVE": "0"},
        "pair": {"CIPHERSPEC_MG_PAIR": "1"},
    }[path]
    gs = fresh_context(g, env)
    gs.set_split_min(0)
    first = gs.parts_multi(lens)
    with gs.alloc([int(ends[f]) for f in first]) as dout:
        gs.set_phases(True)
        gs.ctr_multi_dev(keys, vs, lens, dout)
        ph = gs.phases()
        gs.set_phases(False)
        assert dout.download().tobytes() == want
        for d, p in enumerate(ph["devices"]):
            if first[d] < first[d + 1]:
                assert 0 <= p["start"] <= p["planned"] <= p["enqueued"] <= p["waited"] <= ph["call_us"], p
                assert p["keystream"] > 0 and min(p["copy"], p["keys"], p["clear"]) >= 0, p
        dout.upload(bytes(n), [int(ends[f]) for f in first])  # cleared: the timed calls write it again
        assert len(gs.time_multi(keys, vs, lens, dout, 2)) == 2
        assert dout.download().tobytes() == want
        for _ in range(2):
            gs.ctr_multi_dev(keys, vs, lens, dout, wait=False)
        gs.sync()
        assert dout.download().tobytes() == want
    assert b.generate(64) == a.generate(64)
    gs.close()


@pytest.mark.parametrize("path", ["default", "no-prefetch", "two-launch", "copy", "pair"])
def test_context_drbg_whole_waves_cross_requests(registry, path):
    """LEA-128, 1,500 requests and a partial one (94 MiB: each CTA's share of the one-wave grid crosses requests,
    on one GPU and on each of two): the context's call == P_drbg_generate with each request's V and key fetched
    into shared memory ahead -- the first at the CTA's start, the next during the one before (default: fused; two
    launches, CIPHERSPEC_MG_FUSED=0; the plan copied, CIPHERSPEC_MG_PLAN_COPY=1) -- or loaded when the CTA reaches
    the request (CIPHERSPEC_MG_PREFETCH=0)."""
    n = 1500 * REQ + 4000
    g, _, _, want, keys, vs, lens, ends = plan_case(registry, "lea128", 7, n)
    env = {
        "default": {},
        "no-prefetch": {"CIPHERSPEC_MG_PREFETCH": "0"},
        "two-launch": {"CIPHERSPEC_MG_FUSED": "0"},
        "copy": {"CIPHERSPEC_MG_PLAN_COPY": "1"},
        "pair": {"CIPHERSPEC_MG_PAIR": "1"},
    }[path]
    for split_min in (0, 1 << 40):  # every visible GPU, then the first alone
        gs = fresh_context(g, env)
        gs.set_split_min(split_min)
        first = gs.parts_multi(lens)
        at = [int(ends[f]) for f in first]
        with gs.alloc(at) as dout:
            for _ in range(2):  # (the second call: each device's other slot)
                dout.upload(bytes(n), at)
                gs.ctr_multi_dev(keys, vs, lens, dout)
                assert dout.download().tobytes() == want, (path, split_min)
        gs.close()


@pytest.mark.parametrize("name", ["lea128", "aes128", "aria128"])
def test_whole_waves_equal_c_generate(registry, name):
    """Whole requests only (8 of 64 KiB): for LEA-128 the one-wave grid crossing requests, the V's staged as they are
    and each CTA's descriptors worked out on the device, in the context's call (every visible GPU, split) and in the
    one-call entry; AES's and ARIA's bitsliced lane kernels keep a CTA per request (their whole requests the same
    way); all == P_drbg_generate."""
    c, g = ciphers(registry, name)
    a, b = twin_c_drbgs(c, 6)
    n = 8 * REQ
    want = requests(a, n)
    plan = b.plan_bulk(n, REQ)
    keys = np.frombuffer(b"".join(r.key for r in plan), np.uint8)
    vs = np.frombuffer(b"".join(r.v for r in plan), np.uint8)
    lens = np.array([r.nbytes for r in plan], np.uint64)
    assert g.keystream_multi(plan) == want
    gs = fresh_context(g, {})
    gs.set_split_min(0)
    first = gs.parts_multi(lens)
    with gs.alloc([int(f) * REQ for f in first]) as dout:
        gs.ctr_multi_dev(keys, vs, lens, dout)
        assert dout.download().tobytes() == want
    gs.close()


@pytest.mark.parametrize("path", ["default", "two-launch", "pair"])
@pytest.mark.parametrize("name", ["lea128", "aes128"])
def test_context_async_pieces_equal_c_generate(registry, name, path):
    """A pipelined caller's pattern (bench/gpu/drbg_multi.py's pipelined row): pieces of different requests, each an
    asynchronous multi-key call on one GPU's context back to back (alternating slots, so a slot's page-locked plan is
    rewritten while the keystream two calls back may still run), one sync, == P_drbg_generate calls.  It catches a
    keystream that reads its plan from the page-locked staging after the host may rewrite it (the AES-128 1 GiB
    pipelined row of the first device run of branch drbgfix)."""
    c, g = ciphers(registry, name)
    a, b = twin_c_drbgs(c, 6)
    piece, npieces = 512, 6  # 32 MiB pieces (the bench's): more CTAs than fit at once, so late CTAs read the plan late
    n = piece * npieces * REQ
    want = requests(a, n)
    plan = b.plan_bulk(n, REQ)
    keys = np.frombuffer(b"".join(r.key for r in plan), np.uint8)
    vs = np.frombuffer(b"".join(r.v for r in plan), np.uint8)
    lens = np.array([r.nbytes for r in plan], np.uint64)
    if path == "pair" and name != "lea128":
        pytest.skip("the pair kernel is the fused keystream kernel's (LEA-128 here)")
    env = {"two-launch": {"CIPHERSPEC_MG_FUSED": "0"}, "pair": {"CIPHERSPEC_MG_PAIR": "1"}}.get(path, {})
    gs = fresh_context(g, env)
    try:
        gs.set_split_min(1 << 62)  # one GPU: every piece on GPU 0
        fn = gs.fn("mg_ctr_multi_dev")
        with gs.alloc([0, n] + [n] * (len(gs.devices) - 1)) as dout:
            for rep in range(2):  # (the second pass over kept scratch)
                dout.upload(bytes(n), [0, n] + [n] * (len(gs.devices) - 1))
                for k in range(npieces):
                    a0 = k * piece
                    ptr = (ctypes.c_void_p * len(gs.devices))(*([dout.ptrs[0] + a0 * REQ] * len(gs.devices)))
                    rc = fn(
                        gs.handle,
                        keys[a0 * c.key_bytes :].ctypes.data,
                        vs[a0 * c.block_bytes :].ctypes.data,
                        lens[a0:].ctypes.data,
                        piece,
                        ptr,
                        -1,
                        0,
                    )
                    gs.c.check(rc, "asynchronous piece")
                gs.sync()
                assert dout.download([n]).tobytes() == want, (name, path, rep)
    finally:
        gs.close()
