"""The generated CUDA library, whole, on the CPU (tests/support/cuda_cpu.py): kernels, host API, both
flavours, against the interpreter -- the GPU suite's checks (cuda_checks.py) on machines without a GPU.

One schedule per kernel shape the generator has (each layout; shared fills and barriers; u8/u16/u32
words); the GPU suite runs the full matrix on the device.  Needs g++ (a C++ compiler with ucontext);
skipped without it unless CIPHERSPEC_REQUIRE_TOOLS=1.
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda_checks import _key, check_ctr, check_ecb, check_multi, ctr_lengths
from tools import require

from cipherspec import modes
from cipherspec.drbg import BulkRequest

# (cipher, schedule): shared-table fills + barrier + rk in shared; u16 words, ILP and no hoisting; the lane
# layouts: byte-packed with two slots, bitsliced with its derived key planes staged in shared memory; AES
# T-tables (their derived key words made by the host key schedule)
SCHEDULES = [
    ("aria128", "rk-shared_t64_tab-shared4_ilp2"),
    ("cham64_128", "rk-shared_t64_ilp2_nohoist"),
    ("hight", "swar_t64_ilp2"),
    ("pipo64_128", "bs_t32_rk-shared"),
    ("aes128", "tt_t64_tab-shared4"),
    # the constant-time default's layout: round loops (roundloop.py), derived key planes (g++ ~2-3 min: slow)
    pytest.param("aes128", "bs_t32", marks=pytest.mark.slow),
]
_CACHE: dict = {}


def _need_gxx():
    require("g++")


def cipher(registry, name, sched):
    from cuda_cpu import cpu_cipher

    _need_gxx()
    from generator.ptx.build import family_rk_words

    if (name, sched) not in _CACHE:  # (the round keys at the family's size, as `cipherspec build` pads them)
        _CACHE[(name, sched)] = cpu_cipher(registry, name, sched, rk_pad=family_rk_words(registry, name, sched))
    return _CACHE[(name, sched)]


@pytest.mark.parametrize("name,sched", SCHEDULES)
def test_ecb(registry, make_ref, name, sched):
    check_ecb(cipher(registry, name, sched), make_ref(name), np.random.default_rng(7), counts=(1, 2, 33, 301))


@pytest.mark.parametrize("name,sched", SCHEDULES)
def test_ctr(registry, make_ref, name, sched):
    c = cipher(registry, name, sched)
    check_ctr(c, make_ref(name), np.random.default_rng(11), lengths=ctr_lengths(c.block_bytes, big=300))


@pytest.mark.parametrize("name,sched", SCHEDULES)
def test_multi_key(registry, make_ref, name, sched):
    check_multi(cipher(registry, name, sched), make_ref(name), np.random.default_rng(5))


@pytest.mark.parametrize(
    "name,sched,trip",
    [("aria128", "rk-shared_t64_tab-shared4_ilp2", 128), ("cham64_128", "rk-shared_t64_ilp2_nohoist", 128)],
)
def test_multi_key_whole_waves(registry, make_ref, name, sched, trip):
    """Requests averaging at least a CTA's loop trip (``trip`` blocks: 64 threads x ILP 2) take whole waves in the
    one-call entry too (the shim's wave: two CTAs, each crossing requests, the second starting mid-request): equal
    requests but the last (the V's staged as they are, each CTA working out its descriptors; 16- and 8-byte blocks)
    and mixed ones (the plan's CTA map), over shared tables and round keys.  Lane layouts keep a CTA per request."""
    c = cipher(registry, name, sched)
    assert f"b0 += {trip}u" in c.source.cu and "int flat = 1;" in c.source.cu  # (else nothing new is checked)
    for nblocks in ((trip + 77,) * 3 + (trip * 2,), (trip * 2 - 5, trip // 3, trip + 9)):
        check_multi(c, make_ref(name), np.random.default_rng(len(nblocks)), nblocks=nblocks)
    lanes = cipher(registry, "hight", "swar_t64_ilp2").source.cu
    assert "int flat = 0;" in lanes and "int flat = 0 && !s->no_wave;" in lanes


def test_the_harness_sees_a_missing_barrier(registry, make_ref):
    """Without its barrier the kernel reads shared tables before other threads filled them: the CPU build
    must then disagree with the interpreter (so a pass above means something)."""
    import ctypes
    from dataclasses import replace

    from cuda_cpu import build

    from generator.ptx.build import schedule_for
    from generator.ptx.source import generate
    from runtime.cuda_target import CudaCipher

    _need_gxx()
    module = registry.module("aria128")
    sched = schedule_for(module, "t64_tab-shared_rk-const")
    src = generate(module, sched)
    broken = replace(src, cu=src.cu.replace("__syncthreads();", ";"))
    c = CudaCipher(module, sched, broken, lib=ctypes.CDLL(str(build(broken))))
    ref = make_ref("aria128")
    rng = np.random.default_rng(3)
    key = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    pt = rng.integers(0, 256, (200, 16), dtype=np.uint8)
    assert (
        c.device_ecb(c.expand_key(key), pt.tobytes(), False, "c")
        != ref.encrypt_blocks(ref.expand_key(key), pt).tobytes()
    )


@pytest.mark.parametrize("memory", ["auto", "pinned", "register", "stage", "pageable"])
def test_multi_gpu_entries(registry, make_ref, memory):
    """The multi-GPU host entries (P_mg_*: pieces over streams and host threads, staging, registration, the
    CTR counter offset of each piece) over the CPU's one "device": CTR with input and keystream-only, ECB
    both ways, against the interpreter; several pieces per call (2 MiB + a tail: 1 MiB pieces and a short one)."""
    from runtime.cuda_multi import GpuSet, pinned_array

    c, ref = cipher(registry, "hight", "swar_t64_ilp2"), make_ref("hight")
    rng = np.random.default_rng(13)
    key = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    rk, rkr = c.expand_key(key), ref.expand_key(key)
    iv = bytes.fromhex("0102030405fffff0")  # the low word carries inside the call
    data = rng.integers(0, 256, 2 * (1 << 20) + 77, dtype=np.uint8)
    if memory == "pinned":  # the caller's buffers must be page-locked
        data = _copy_to(pinned_array(c, data.size), data)
    g = GpuSet(c, streams=3, chunk=1 << 20)
    try:
        want, _ = modes.ctr(ref, rkr, iv, data.tobytes())
        out = pinned_array(c, data.size) if memory == "pinned" else None
        assert g.ctr(rk, iv, data, out=out, memory=memory).tobytes() == want
        zeros = bytes(data.size)
        assert g.ctr(rk, iv, nbytes=data.size, out=out, memory=memory).tobytes() == modes.ctr(ref, rkr, iv, zeros)[0]
        blocks = data[: data.size // 8 * 8]
        ct = ref.encrypt_blocks(rkr, blocks.reshape(-1, 8)).tobytes()
        assert g.ecb(rk, blocks, out=out, memory=memory).tobytes() == ct
        buf = _copy_to(
            pinned_array(c, len(ct)) if memory == "pinned" else np.empty(len(ct), np.uint8), np.frombuffer(ct, np.uint8)
        )
        g.ecb(rk, buf, decrypt=True, out=buf, memory=memory)  # in place
        assert buf.tobytes() == blocks.tobytes()
    finally:
        g.close()


def _copy_to(dst: np.ndarray, src: np.ndarray) -> np.ndarray:
    dst[:] = src
    return dst


def test_crypt_into_runs_the_multi_gpu_entries(registry, make_ref):
    """The CLI's streaming path (CudaCipher.crypt_into, chunk by chunk, in place) continues the CTR stream
    across calls like the C library."""
    c, ref = cipher(registry, "hight", "swar_t64_ilp2"), make_ref("hight")
    rng = np.random.default_rng(17)
    key = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    rk = c.expand_key(key)
    iv0 = bytes.fromhex("a0a1a2a3a4a5a6a7")
    data = rng.integers(0, 256, 5000, dtype=np.uint8)
    iv = np.frombuffer(iv0, np.uint8).copy()
    buf = data.copy()
    for a, b in ((0, 1600), (1600, 4096), (4096, 5000)):  # block-aligned chunks, a short last one
        piece = buf[a:b]
        c.crypt_into(rk, "ctr", "encrypt", piece, piece.size, iv)
    assert buf.tobytes() == modes.ctr(ref, ref.expand_key(key), iv0, data.tobytes())[0]


def test_multi_gpu_bulk_from_a_plan_runs_the_staged_key_schedule(registry, make_ref):
    """P_mg_ctr_multi_dev over the CPU's one "device", the real kernels: the key-schedule launch reads the keys,
    descriptors and CTA map from mapped memory (the shim's: one memory), stages up to 32 keys per CTA in shared
    memory (the shim fills it with 0x5a first), expands them there and stores the tables together; 37 requests
    (a full CTA and a partial one) == each request's CTR keystream from V + 1, twice (the second call reuses
    the context's scratch, cleared after the first)."""
    from runtime.cuda_multi import GpuSet

    c, ref = cipher(registry, "hight", "swar_t64_ilp2"), make_ref("hight")
    rng = np.random.default_rng(17)
    nreq, req, B = 37, 256, c.block_bytes
    keys = rng.integers(0, 256, nreq * 16, dtype=np.uint8)
    vs = rng.integers(0, 256, nreq * B, dtype=np.uint8)
    lens = np.full(nreq, req, np.uint64)
    want = b"".join(
        modes.ctr(
            ref,
            ref.expand_key(keys[16 * r : 16 * r + 16].tobytes()),
            modes.ctr_next_iv(vs[B * r : B * r + B].tobytes(), 1),
            bytes(req),
        )[0]
        for r in range(nreq)
    )
    g = GpuSet(c)
    try:
        first = g.parts_multi(lens)
        with g.alloc([int(f) * req for f in first]) as dout:
            for _ in range(2):
                g.ctr_multi_dev(keys, vs, lens, dout)
                assert dout.download().tobytes() == want
    finally:
        g.close()


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"CIPHERSPEC_MG_FUSED": "0"},
        {"CIPHERSPEC_MG_PLAN_COPY": "1"},
        {"CIPHERSPEC_MG_MAX_TRIPS": "1"},
        {"CIPHERSPEC_MG_WAVE": "0"},
        {"CIPHERSPEC_MG_PAIR": "1"},
        {"CIPHERSPEC_MG_PAIR": "1", "CIPHERSPEC_MG_PLAN_COPY": "1"},
    ],
    ids=["fused", "two-launch", "copied", "one-trip", "ctas", "pair", "pair-copied"],
)
def test_multi_key_call_with_a_fused_key_schedule(registry, make_ref, monkeypatch, env):
    """LEA-128's default has a cheap key schedule (multikey.fused_key_schedule): the multi-GPU context's multi-key
    call over the CPU's one device runs one launch whose CTAs derive their round keys (the default), the two
    launches (CIPHERSPEC_MG_FUSED=0), the fused launch over a copied plan (CIPHERSPEC_MG_PLAN_COPY=1) or over CTAs of
    one loop trip (CIPHERSPEC_MG_MAX_TRIPS=1: more CTAs a request), or the CTA-per-request grid everywhere
    (CIPHERSPEC_MG_WAVE=0; the pair kernel over V's and keys side by side, CIPHERSPEC_MG_PAIR=1, mapped or copied;
    else requests of at least a loop trip on average get whole waves: the shim's one wave is
    two CTAs, each crossing requests, the second starting mid-request).  Each way,
    waited for and asynchronous (then the context's sync), over the kept scratch (growing once), requests of mixed
    lengths and of equal lengths but the last: every request's output == its CTR keystream from V + 1 (the
    interpreter)."""
    from runtime.cuda_multi import GpuSet

    for k, v in env.items():
        monkeypatch.setenv(k, v)
    c, ref = cipher(registry, "lea128", None), make_ref("lea128")
    assert (
        "_ctr_multi_ks_ptx(" in c.source.cu and "_ctr_multi_ks_c(" in c.source.cu
    )  # (else this test checks nothing new)
    rng = np.random.default_rng(29)
    B = c.block_bytes
    g = GpuSet(c, (0,))  # made after the environment is set: it reads the switches
    try:
        # requests of mixed lengths (the CTA map) and of equal lengths but the last (CTAs mapped by division: two a
        # request and the last shorter, one a request and the last longer, spanning two), the last partial; the last
        # two long enough for whole waves (LEA's loop trip: 512 blocks), equal (division) and mixed (the flat map)
        cases = ((3, True, None, (1, 600)), (3, False, (700, 5), None), (40, True, (300, 900), None))
        cases += ((40, True, None, (1, 600)), (4, True, (700, 600), None), (4, False, None, (500, 1500)))
        for nreq, wait, equal, span in cases:
            nbs = (
                [int(nb) for nb in rng.integers(span[0], span[1], nreq)]
                if equal is None
                else [equal[0]] * (nreq - 1) + [equal[1]]
            )
            vs0 = [b"\xff" * B] + [rng.integers(0, 256, B, dtype=np.uint8).tobytes() for _ in range(nreq - 1)]
            plan = [
                BulkRequest(_key(c, rng), v, nb, nb * B - (3 if i == nreq - 1 else 0))
                for i, (v, nb) in enumerate(zip(vs0, nbs))
            ]
            keys, vs, lens = c.multi_arrays(plan)
            want = b"".join(
                modes.ctr(ref, ref.expand_key(r.key), modes.ctr_next_iv(r.v, 1), bytes(r.nbytes))[0] for r in plan
            )
            for flavour in (0, 1):
                with g.alloc([0, int(lens.sum())]) as dout:
                    g.ctr_multi_dev(keys, vs, lens, dout, flavour, wait)
                    g.sync()
                    assert dout.download().tobytes() == want, (nreq, wait, equal, flavour)
    finally:
        g.close()


def test_bitsliced_ctr_over_whole_warp_chunks(registry, make_ref):
    """The bitsliced CTR kernel's block order (lane L of a warp holds blocks L, 32 + L, ... of the warp's 1,024,
    lanes_source.py): whole chunks, a chunk and a partial one, several trips of the grid-stride loop."""
    c = cipher(registry, "pipo64_128", "bs_t32_rk-shared")
    B = c.block_bytes
    check_ctr(c, make_ref("pipo64_128"), np.random.default_rng(3), lengths=(1024 * B, 2047 * B + 3, 5000 * B + 7))


def test_bitsliced_ctr_with_warps_in_step(registry, make_ref):
    """sync-pair (generator/ptx/lockstep.py): every thread runs its CTA's trips and meets the others at each trip
    and each round-loop iteration (here __syncthreads: the harness has no named barriers), also in a call's last,
    partial CTA trip, whose threads past the end compute but store nothing; XOR and keystream, several trips."""
    c = cipher(registry, "pipo64_128", "bs_t128_rk-shared_sync-pair")
    B = c.block_bytes
    check_ctr(c, make_ref("pipo64_128"), np.random.default_rng(5), lengths=(B, 4096 * B + 5, 20000 * B + 7))
