"""Every GPU of the host, without a GPU: the split arithmetic and the generated host code.

1. The split (runtime/cuda_multi.py's Python mirrors): parts cover the range exactly, on whole blocks and
   pages, balanced; per-part counters (IV + the part's first block) compose to the one-call CTR of the
   interpreter, across the 2^32, 2^64 and whole-block carries; requests go to parts whole, balanced.
2. The generated host code (templates/multigpu.cu.j2), compiled with the host C++ compiler under
   AddressSanitizer and UBSan over a fake CUDA runtime (tests/data/cuda_stub.h: 3 fake devices, device
   memory tagged by device, deferred stream queues): every multi-GPU entry, memory mode, device list and
   stream count equals one reference call over the whole range; the C split equals the Python mirror.
3. The device list's bad input: a GPU that does not exist, an empty list, a GPU twice -> UsageError.
The GPU run of the same entries is tests/differential/test_cuda_multigpu_gpu.py.
"""

from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cipherspec import modes
from cipherspec.errors import UsageError
from generator.common.templates import render
from generator.ptx import hostapi
from generator.ptx.ctchoice import default_for
from generator.ptx.multikey import MAX_REQ_BLOCKS
from generator.ptx.source import generate, prepared
from runtime import cuda_multi as cm
from toolchain.cc import Toolchain, compile_cached
from toolchain.errors import BuildError

DATA = os.path.join(os.path.dirname(__file__), "..", "data")


# ------------------------------------------------------------------------------ 1. the split
@settings(max_examples=300, deadline=None)
@given(st.integers(0, 1 << 40), st.sampled_from([8, 16]), st.integers(1, 8))
def test_split_covers_exactly_on_grains_balanced(n, B, parts):
    g = cm.grain(B)
    first = cm.split(n, g, parts)
    assert first[0] == 0 and first[-1] == n and first == sorted(first)
    assert all(f % g == 0 or f == n for f in first)  # on grains (whole blocks and pages), or the end
    sizes = [b - a for a, b in zip(first, first[1:])]
    assert max(sizes) - min(sizes) < 2 * g  # balanced in grains (the last grain may be partial)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 1 << 36), st.integers(1, 8), st.integers(1, 8))
def test_devices_used_and_pieces(n, ndev, streams):
    used = cm.devices_used(n, ndev)
    assert 1 <= used <= ndev and (used == 1 or n // used >= cm.MIN_PART)
    g = cm.grain(16)
    p = cm.piece_bytes(n, streams, g, cm.MIN_PIECE, cm.CHUNK)
    assert cm.MIN_PIECE <= p <= cm.CHUNK and p % g == 0
    assert p == cm.CHUNK or -(-n // p) <= streams or p == cm.MIN_PIECE


@pytest.mark.parametrize("name", ["lea128", "hight"])
def test_part_counters_compose_to_one_ctr_call(make_ref, name):
    """CTR over each part from IV + first/B, concatenated == one CTR over the whole (interpreter), with the
    IV placed so the 2^32, 2^64 and whole-block carries fall inside a part or on a boundary."""
    ref = make_ref(name)
    B = ref.block_bytes
    rk = ref.expand_key(bytes(range(ref.key_bytes)))
    grain = 2 * B  # a small grain: many boundaries over a short message
    data = np.random.default_rng(1).integers(0, 256, 41 * B + 5, dtype=np.uint8).tobytes()
    for bits in (32, 64, 8 * B):
        for below in (1, 5, 12):
            iv = ((1 << bits) - below).to_bytes(B, "big") if bits < 8 * B else ((1 << bits) - below).to_bytes(B, "big")
            want, _ = modes.ctr(ref, rk, iv, data)
            for parts in (1, 2, 3, 7):
                first = cm.split(len(data), grain, parts)
                got = b"".join(
                    modes.ctr(ref, rk, modes.ctr_next_iv(iv, a // B), data[a:b])[0] for a, b in zip(first, first[1:])
                )
                assert got == want, (bits, below, parts)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=0, max_size=60), st.integers(1, 8))
def test_split_requests_whole_and_balanced(lens, parts):
    first = cm.split_requests(lens, parts)
    assert len(first) == parts + 1 and first[0] == 0 and first[-1] == len(lens) and first == sorted(first)
    total = sum(lens)
    for d in range(1, parts):  # boundary d: the first request starting at or after ceil(total * d / parts)
        start = sum(lens[: first[d]])
        assert start >= -(-total * d // parts) or first[d] == len(lens)
        if first[d] > 0:
            assert sum(lens[: first[d] - 1]) < -(-total * d // parts)


def test_split_requests_uniform_requests_split_evenly():
    assert cm.split_requests([65536] * 2048, 2) == [0, 1024, 2048]
    assert cm.split_requests([65536] * 2047 + [100], 2) == [0, 1024, 2048]
    assert cm.split_requests([65536] * 3, 8) == [0, 1, 1, 2, 2, 2, 3, 3, 3]  # empty parts do nothing
    assert cm.split_requests([], 3) == [0, 0, 0, 0]


def test_group_end_packs_up_to_the_cap():
    lens = [10, 10, 10, 25, 5, 40]
    ends, r = [], 0
    while r < len(lens):
        r = cm.group_end(lens, r, len(lens), 30)
        ends.append(r)
    assert ends == [3, 5, 6]  # [10 10 10] [25 5] [40: alone, over the cap]


# ------------------------------------------------------------------------------ 2. the generated host code
SAN_FLAGS = (
    "-std=c++17",
    "-O1",
    "-g",
    "-pthread",
    "-Wall",
    "-Wno-unused-function",
    "-fno-omit-frame-pointer",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
)
LIB_FLAGS = ("-std=c++17", "-O1", "-g", "-pthread", "-Wall", "-Wno-unused-function")


def _fake_build(registry, name: str, kind: str):
    """The generated host code of cipher ``name``'s sizes over the fake runtime (cached by content): kind "exe"
    is the C harness (sanitizers), "shared" the fake library for the Python runtime.  Rendered with small
    pieces and parts (4, 1 and 2 grains), so a short test makes many of each."""
    module = prepared(registry.module(name))
    src = generate(registry.module(name), default_for(module))
    B, KB, P = module.block.nbytes, module.key.nbytes, src.symbol
    mg = hostapi.context(module, "T")
    g = mg["grain"]
    mg.update(chunk=4 * g, min_piece=g, min_part=2 * g)
    mk = {"max_blocks": MAX_REQ_BLOCKS, "timeline": False, "fused": False}  # (the template's switches: all off)
    ctx = dict(P="T", B=B, KB=KB, default_flavour=0, mk=mk, mg=mg)
    errors = re.search(r"enum \{ CS_OK = 0[^\n]*\n", src.h).group(0)

    def function(signature: str) -> str:  # a function of the real generated source, renamed to the T_ prefix
        start = src.cu.index(signature)
        return src.cu[start : src.cu.index("\n}\n", start) + 3].replace(P, "T")

    sync_start = src.cu.index("struct cs_mutex {")
    sync_layer = src.cu[sync_start : src.cu.index("\n}\n", src.cu.index("static int cs_call(")) + 3]
    prelude = [
        f"#define BB {B}",
        f"#define KBB {KB}",
        "#define DEFAULT_FLAVOUR 0",
        f"#define TEST_GRAIN {g}ull",
        f"#define TEST_CHUNK {4 * g}ull",
        f"#define TEST_MIN_PART {2 * g}ull",
        errors,
        f"typedef struct {{ uint32_t w[{_rk_words(src)}]; }} T_rk;",
        'extern "C" {',
        render("ptx/multigpu.h.j2", **ctx),
        "}",
        function("static int cs_cuda(cudaError_t e)"),
        function(f"static void {P}_ctr_add("),
        "#include <pthread.h>",
        "#include <sched.h>",
        sync_layer,  # (device.cu.j2's host threads, lock and condition variable over POSIX threads)
    ]
    if kind == "shared":
        prelude += [
            'extern "C" const char *T_strerror(int code)',
            "{",
            "    switch (code) {",
            '    case CS_OK: return "ok";',
            mg["strerror"],
            '    default: return "fake error";',
            "    }",
            "}",
        ]
    main = "harness.cpp" if kind == "exe" else "fake_cuda_lib.cpp"
    files = {
        main: open(os.path.join(DATA, "multigpu_harness.cpp" if kind == "exe" else main)).read(),
        "mg_prelude.h": "\n".join(prelude) + "\n",
        "mg_impl.inc": render("ptx/multigpu.cu.j2", **ctx),
    }
    for h in ("cuda_stub.h", "fake_cipher.h"):
        files[h] = open(os.path.join(DATA, h)).read()
    cxx = os.environ.get("CXX", "c++")
    flags = SAN_FLAGS if kind == "exe" else LIB_FLAGS
    try:
        return compile_cached(files, [main], kind, Toolchain(cc=cxx, flags=flags, link_flags=("-pthread",)))
    except BuildError as e:
        if "sanitize" in str(e) and os.environ.get("CIPHERSPEC_REQUIRE_TOOLS") != "1":
            pytest.skip(f"{cxx} cannot build with the sanitizers: {e}")
        raise


def _rk_words(src) -> int:
    return int(re.search(r"typedef struct \{ uint32_t w\[(\d+)\]; \}", src.h).group(1))


def _harness(registry, name: str):
    return _fake_build(registry, name, "exe")


@pytest.mark.parametrize("name", ["lea128", "hight"])  # 16- and 8-byte blocks (the second: two device sets)
def test_generated_host_code_over_fake_devices(registry, name):
    exe = _harness(registry, name)
    env = dict(os.environ, STUB_DEVICES="3", ASAN_OPTIONS="detect_leaks=1")
    res = subprocess.run(
        [str(exe)] + (["quick"] if name == "hight" else []), capture_output=True, text=True, env=env, timeout=600
    )
    assert res.returncode == 0, res.stderr[-3000:] + res.stdout[-1000:]
    assert re.match(r"ok \d+ checks", res.stdout), res.stdout
    if name == "lea128":  # a waited-for multi-key call through the key stream too (the benchmark's A/B)
        res = subprocess.run(
            [str(exe), "quick"], capture_output=True, text=True, env=dict(env, CIPHERSPEC_MG_LONE_KST="1"), timeout=600
        )
        assert res.returncode == 0, res.stderr[-3000:] + res.stdout[-1000:]
    res = subprocess.run([str(exe), "nodev"], capture_output=True, text=True, env=dict(env, STUB_DEVICES="0"))
    assert res.returncode == 0, res.stderr[-3000:]


def test_generated_split_equals_the_python_mirror(registry):
    exe = _harness(registry, "lea128")
    rng = np.random.default_rng(5)
    g = cm.grain(16)
    cases_b = [
        (int(n), int(gr), int(p))
        for n, gr, p in zip(
            np.concatenate([[0, 1, g - 1, g, g + 1, 10 * g], rng.integers(0, 1 << 34, 40)]),
            [g] * 46,
            rng.integers(1, 9, 46),
        )
    ]
    cases_r = []
    for _ in range(40):
        nreq = int(rng.integers(0, 50))
        lens = [int(x) for x in rng.choice([0, 16, 65536, 4096 * 3, int(rng.integers(0, 99999))], nreq)]
        cases_r.append((int(rng.integers(1, 9)), int(rng.integers(1, 200000)), lens))
    text = "".join(f"b {n} {gr} {p}\n" for n, gr, p in cases_b)
    text += "".join(f"r {p} {cap} {len(lens)} {' '.join(map(str, lens))}\n" for p, cap, lens in cases_r)
    res = subprocess.run([str(exe), "split"], input=text, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stdout.splitlines()
    assert len(lines) == len(cases_b) + len(cases_r)
    for (n, gr, p), line in zip(cases_b, lines):
        used = cm.devices_used(n, p, 2 * g)
        piece = cm.piece_bytes(n, p, gr, g, 4 * g)
        assert line == f"{used} {' '.join(map(str, cm.split(n, gr, p)))} | {piece}", (n, gr, p)
    for (p, cap, lens), line in zip(cases_r, lines[len(cases_b) :]):
        ends, r = [], 0
        while r < len(lens):
            ends.append(r)
            r = cm.group_end(lens, r, len(lens), cap)
        want = " ".join(map(str, cm.split_requests(lens, p))) + " |" + "".join(f" {e}" for e in ends)
        assert line == want, (p, cap, lens)


def test_source_has_the_multi_gpu_api(registry):
    module = prepared(registry.module("aes128"))
    src = generate(registry.module("aes128"), default_for(module))
    for entry in (
        "mg_new",
        "mg_ctr_dev",
        "mg_ecb_dev",
        "mg_ctr_multi_dev",
        "mg_set_phases",
        "mg_phases",
        "mg_time_multi",
        "mg_ctr_host",
        "mg_ecb_host",
        "mg_ctr_multi_host",
        "mg_sync",
        "mg_parts",
        "mg_bandwidth",
    ):
        assert f"int {src.symbol}_{entry}(" in src.cu and f"int {src.symbol}_{entry}(" in src.h, entry
    for name, value, _ in cm.ERRORS:
        assert f"{name} = {value}" in src.h and f"case {name}:" in src.cu
    assert "cudaDeviceEnablePeerAccess" not in src.cu and "Multicast" not in src.cu  # nothing crosses GPUs


def test_host_api_has_one_return_convention(registry):
    """Issue 23: every entry of the CUDA host API returns CS_OK or an error code (an int); counts and pointers
    come back through out-parameters.  The exceptions: the error-message lookup and the context's free."""
    module = prepared(registry.module("lea128"))
    src = generate(registry.module("lea128"), default_for(module))
    decls = re.findall(rf"^([A-Za-z_][\w \*]*?)\s*\*?\s*{src.symbol}_(\w+)\(", src.h, re.M)
    assert len(decls) > 30
    other = {name: ret for ret, name in decls if ret.strip() != "int"}
    assert other == {"strerror": "const char", "mg_free": "void"}, other
    for entry in ("mg_parts", "mg_parts_multi", "mg_devices", "mg_malloc", "mg_malloc_host", "mg_set_split_min"):
        assert f"int {src.symbol}_{entry}(" in src.h, entry


# ------------------------------------------------------------------------------ 3. bad device lists
@pytest.mark.parametrize(
    "devices,count,message",
    [
        ([2], 2, "GPU 2 does not exist; 2 visible: 0, 1"),
        ([0, 5], 4, "GPU 5 does not exist"),
        ([-1], 2, "GPU -1 does not exist"),
        ([], 2, "the list is empty"),
        ([1, 1], 2, "listed twice"),
        (["0"], 2, "not a GPU index"),
        (None, 0, "no CUDA device is visible"),
    ],
)
def test_bad_device_lists_are_usage_errors(devices, count, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        cm.resolve_devices(devices, count)


def test_device_lists():
    assert cm.resolve_devices(None, 2) == (0, 1)
    assert cm.resolve_devices([1, 0], 2) == (1, 0)
    assert cm.resolve_devices(1, 2) == (1,)
    assert cm.parse_devices("all") is None and cm.parse_devices("0,2") == [0, 2]
    with pytest.raises(UsageError, match="--devices"):
        cm.parse_devices("zero")


def test_constants_fit_the_grain():
    for B in (8, 16):
        g = cm.grain(B)
        assert cm.CHUNK % g == 0 and cm.MIN_PIECE % g == 0 and cm.MIN_PART % g == 0 and g % B == 0


# ------------------------------------------------------------------------------ 4. the Python runtime, fake GPUs
class ToyRef:
    """tests/data/fake_cipher.h's toy cipher in numpy: E(K, x)[b] = x[B-1-b] ^ K[b % KB] ^ (7b + 1)."""

    def __init__(self, B: int, KB: int):
        self.block_bytes, self.key_bytes, self.name = B, KB, "toy"
        self.mask = np.array([(7 * b + 1) & 0xFF for b in range(B)], np.uint8)

    def expand_key(self, key: bytes) -> np.ndarray:
        k = np.frombuffer(bytes(key), np.uint8)
        return k[np.arange(self.block_bytes) % self.key_bytes] ^ self.mask

    def encrypt_blocks(self, k: np.ndarray, blocks) -> np.ndarray:
        return np.asarray(blocks, np.uint8).reshape(-1, self.block_bytes)[:, ::-1] ^ k

    def decrypt_blocks(self, k: np.ndarray, blocks) -> np.ndarray:
        return (np.asarray(blocks, np.uint8).reshape(-1, self.block_bytes) ^ k)[:, ::-1]


@pytest.fixture(scope="module")
def fake_gpus(registry):
    """A CudaCipher (lea128's sizes) over the fake library: 3 fake GPUs, the toy cipher for kernels."""
    import ctypes
    from types import SimpleNamespace

    from runtime.cuda_target import CudaCipher

    module = registry.module("lea128")
    src = generate(module, default_for(prepared(module)))
    lib = ctypes.CDLL(str(_fake_build(registry, "lea128", "shared")))
    fake_src = SimpleNamespace(name="fake_lea128", symbol="T", cu="", h=f"#define T_RK_WORDS {_rk_words(src)}\n")
    lib.T_stub_set_devices.argtypes, lib.T_stub_registered.restype = [ctypes.c_int], ctypes.c_long
    c = CudaCipher(module, SimpleNamespace(flavour="ptx"), fake_src, lib=lib)
    return c, ToyRef(16, 16), lib


class ShortReads:
    """A reader that gives at most a few bytes per read (as a pipe may): exercises partial blocks."""

    def __init__(self, data: bytes, rng):
        self.data, self.pos, self.rng = data, 0, rng

    def readinto(self, buf) -> int:
        n = min(len(buf), int(self.rng.integers(1, 3000)), len(self.data) - self.pos)
        buf[:n] = self.data[self.pos : self.pos + n]
        self.pos += n
        return n


def test_runtime_host_calls_over_fake_gpus(fake_gpus):
    c, ref, lib = fake_gpus
    rng = np.random.default_rng(9)
    key = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    rk, rr = c.expand_key(key), ref.expand_key(key)
    for n in (0, 1, 15, 16, 17, 4096 * 9 + 7, 4096 * 40 + 1):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        iv = bytes([0xFF] * 12) + bytes([0xFF, 0xFF, 0xFF, 0xFE])
        want = modes.ctr(ref, rr, iv, data)[0]
        for devices in (None, [2, 0], [1]):
            for memory in ("auto", "stage", "register", "pageable"):
                assert c.ctr(rk, iv, data, devices=devices, memory=memory) == want, (n, devices, memory)
        blocks = np.frombuffer(data[: n - n % 16], np.uint8).reshape(-1, 16)
        assert np.array_equal(c.encrypt_blocks(rk, blocks), ref.encrypt_blocks(rr, blocks))
        assert np.array_equal(c.decrypt_blocks(rk, ref.encrypt_blocks(rr, blocks), devices=[2]), blocks)
        g = c.gpus()
        pin_in, pin_out = c.pinned_array(n), c.pinned_array(n)
        pin_in[:] = np.frombuffer(data, np.uint8)
        g.ctr(rk, iv, pin_in, out=pin_out, memory="pinned", wait=False)
        g.sync()
        assert pin_out.tobytes() == want
    assert lib.T_stub_registered() == 0


def test_runtime_device_resident_over_fake_gpus(fake_gpus):
    c, ref, _ = fake_gpus
    g = c.gpus([1, 2, 0])
    rng = np.random.default_rng(4)
    key, iv = bytes(range(16)), bytes(16)
    rk, rr = c.expand_key(key), ref.expand_key(key)
    n = 4096 * 10 + 3
    data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
    first = g.parts(n)
    assert first[0] == 0 and first[-1] == n and len(first) == 4
    with g.alloc(first) as din, g.alloc(first) as dout:
        din.upload(data, first)
        g.ctr_dev(rk, iv, din, dout, n)
        assert dout.download().tobytes() == modes.ctr(ref, rr, iv, data)[0]
        g.ctr_dev(rk, iv, None, dout, n)
        assert dout.download().tobytes() == modes.ctr(ref, rr, iv, bytes(n))[0]
    with pytest.raises(UsageError, match="do not fit on GPU 2"):
        g.alloc([0, 1, 3 << 30, 3 << 30])  # the fake GPUs have 1 GiB free: refused before any allocation


def test_runtime_drbg_bulk_over_fake_gpus(fake_gpus):
    from cipherspec.drbg import CtrDrbg

    c, ref, _ = fake_gpus
    for request, nbytes in ((65536, 65536 * 9 + 100), (1000, 12345)):
        gpu, cpu = CtrDrbg(c), CtrDrbg(ref)
        for d in (gpu, cpu):
            d.instantiate(bytes(range(16)), bytes(8), b"fake")
        want = []
        left = nbytes
        while left > 0:
            want.append(cpu.generate(min(request, left)))
            left -= request
        got = c.drbg_stream(gpu, nbytes, devices=[2, 1], chunk=4 * 65536, request_bytes=request).read()
        assert got == b"".join(want), request
        assert (gpu.key, gpu.v, gpu.reseed_counter) == (cpu.key, cpu.v, cpu.reseed_counter)
        plan = cpu.plan_bulk(5 * request + 7, request)
        expect = b"".join(
            modes.ctr(ref, ref.expand_key(r.key), modes.ctr_next_iv(r.v, 1), bytes(r.nbytes))[0] for r in plan
        )
        assert c.keystream_multi(plan) == expect
        assert c.keystream_multi(plan, flavour="ptx", devices=[0, 2]) == expect  # device-resident, one launch per GPU
        flipped = bytes(b ^ 0x71 for b in c.keystream_multi(plan, flavour="c"))  # the toy's flavour-1 tweak
        assert flipped == expect


def test_ctr_stream_over_fake_gpus(fake_gpus):
    import io

    c, ref, _ = fake_gpus
    rng = np.random.default_rng(12)
    key = bytes(range(16, 32))
    rk, rr = c.expand_key(key), ref.expand_key(key)
    iv = bytes([0xFF] * 16)  # the whole block wraps at the first block
    for n in (0, 5, 16, 4096 * 7 + 9):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        want = modes.ctr(ref, rr, iv, data)[0]
        out, seen = io.BytesIO(), []
        s = c.ctr_stream(rk, iv, devices=[2, 0, 1], chunk=3 * 1024 + 5)  # not whole pieces: partial blocks carry
        assert s.pipe(ShortReads(data, rng), out, progress=seen.append) == n
        assert out.getvalue() == want and (not n or seen[-1] == n) and seen == sorted(seen)
        s = c.ctr_stream(rk, iv, chunk=4096)
        cuts = sorted(int(x) for x in rng.integers(0, n + 1, 5))
        pieces = [data[a:b] for a, b in zip([0] + cuts, cuts + [n])]
        assert b"".join(s.update(p) for p in pieces) + s.finish() == want
        if n % 16:
            with pytest.raises(UsageError, match="after the final partial block"):
                s.update(bytes(32))
    data = rng.integers(0, 256, 4096 * 5 + 32, dtype=np.uint8).tobytes()
    ct = ref.encrypt_blocks(rr, np.frombuffer(data, np.uint8)).tobytes()
    for decrypt, src, want in ((False, data, ct), (True, ct, data)):
        out = io.BytesIO()
        assert c.ecb_stream(rk, decrypt, devices=[1, 2], chunk=1000).pipe(ShortReads(src, rng), out) == len(src)
        assert out.getvalue() == want
    with pytest.raises(UsageError, match="whole number of 16-byte blocks; the stream ends 5 bytes into a block"):
        c.ecb_stream(rk).pipe(io.BytesIO(bytes(37)), io.BytesIO())


def test_runtime_refuses_bad_devices_and_modes(fake_gpus):
    c, _, lib = fake_gpus
    rk = c.expand_key(bytes(16))
    with pytest.raises(UsageError, match="GPU 3 does not exist; 3 visible: 0, 1, 2"):
        c.ctr(rk, bytes(16), b"x", devices=[3])
    with pytest.raises(UsageError, match="the list is empty"):
        c.gpus([])
    with pytest.raises(UsageError, match="memory: one of"):
        c.ctr(rk, bytes(16), b"x", memory="magic")
    with pytest.raises(UsageError, match="page-locked"):
        c.gpus().ctr(rk, bytes(16), b"x" * 100, memory="pinned")  # pageable bytes claimed as pinned: refused
    lib.T_stub_set_devices(0)
    try:
        with pytest.raises(UsageError, match="no CUDA device is visible"):
            c.gpus([0])
    finally:
        lib.T_stub_set_devices(3)


def test_multi_key_call_paths_in_the_source(registry):
    """A lone (waited-for) multi-key call keeps its copy, key schedule and keystream on one stream and waits
    for the keystream's event; an asynchronous one puts the copy and key schedule on the high-priority key
    stream, the keystream waiting on an event.  The pipelined DRBG entry (P_mg_drbg_dev) is gone."""
    module = prepared(registry.module("lea128"))
    src = generate(registry.module("lea128"), default_for(module))
    assert (
        "use_kst ? dv->kst : NULL" in src.cu
        and "const int use_kst = !wait || mg->lone_kst;" in src.cu
        and "_mk_wait_made(&s->mk, s->st)" in src.cu
    )
    assert "cudaStreamCreateWithPriority" in src.cu and "cudaStreamWaitEvent(stream, s->keyed, 0)" in src.cu
    assert "cudaEventRecord(s->made, stream)" in src.cu
    assert "drbg_dev" not in src.cu and "drbg_dev" not in src.h


def test_runtime_phases_and_library_timer_over_fake_gpus(fake_gpus):
    """GpuSet.set_phases / phases / time_multi over three fake GPUs: host timestamps in order within the call,
    the fake's GPU lengths (1, 2, 3, 4 ms) per used GPU, -1 for an idle one; the output == the toy keystream."""
    c, ref, _ = fake_gpus
    rng = np.random.default_rng(3)
    nreq, req = 7, 4096
    keys = rng.integers(0, 256, nreq * 16, dtype=np.uint8)
    vs = rng.integers(0, 256, nreq * 16, dtype=np.uint8)
    lens = np.full(nreq, req, np.uint64)
    want = b"".join(
        modes.ctr(
            ref,
            ref.expand_key(keys[16 * r : 16 * r + 16].tobytes()),
            modes.ctr_next_iv(vs[16 * r : 16 * r + 16].tobytes(), 1),
            bytes(req),
        )[0]
        for r in range(nreq)
    )
    for devices, split_min in (([2, 0, 1], 0), ([1, 2], 1 << 40)):
        g = c.gpus(devices)
        g.set_split_min(split_min)
        first = g.parts_multi(lens)
        with g.alloc([int(f) * req for f in first]) as dout:
            g.set_phases(True)
            g.ctr_multi_dev(keys, vs, lens, dout)
            ph = g.phases()
            g.set_phases(False)
            assert dout.download().tobytes() == want
            assert len(ph["devices"]) == len(devices) and ph["call_us"] >= 0
            for d, p in enumerate(ph["devices"]):
                if first[d] == first[d + 1]:
                    assert p["planned"] == p["copy"] == p["gpu"] == -1
                    continue
                assert 0 <= p["start"] <= p["planned"] <= p["enqueued"] <= p["waited"] <= ph["call_us"], p
                assert (p["copy"], p["keys"], p["keystream"], p["clear"], p["gpu"]) == (1e3, 2e3, 3e3, 4e3, 1e4)
            secs = g.time_multi(keys, vs, lens, dout, 4)
            assert len(secs) == 4 and all(s >= 0 for s in secs)
            assert dout.download().tobytes() == want
