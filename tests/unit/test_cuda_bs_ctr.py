"""The bitsliced CTR core's segment-uniform part computed on the host (generator/ptx/bs_ctr.py), without a GPU.

On the interpreter: the split moves ops (and the main part reads no uniform plane itself), and
main(varying planes, pre(uniform planes, derived key words)) equals the whole core for random inputs.  The
host C of ``pre`` (compiled with the C compiler, as nvcc's host pass compiles it) equals the interpreter on
random segment words and round-key words; the main core's inline-PTX text (the CPU emulator) equals the
interpreter too.  The kernels themselves (wrap inside a call, partial blocks) run on the CPU shim in
test_cuda_cpu.py (pipo64_128's bitsliced schedule) and on the GPU in tests/differential/test_cuda_gpu.py.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from tools import require

from cipherspec.interp import Interpreter
from cipherspec.ir import Origin
from generator.ptx import bs_ctr, cores, emulate
from generator.ptx.bitsliced import plane_name
from generator.ptx.ctr import state_names, varying_words
from generator.ptx.irbuild import Builder
from generator.ptx.lanes import lanes_for
from generator.ptx.placement import CudaSchedule
from generator.ptx.source import generate, prepared

CASES = ["pipo64_128", "hight"]  # u8 words with an 8-bit S-box; u16 words with ripple-carry adders
_LAY: dict = {}


def _lanes(registry, name):
    if name not in _LAY:
        module = prepared(registry.module(name), CudaSchedule(layout="bs"))
        _LAY[name] = (module, lanes_for(module, "bs", ctr_hoist=True))
    return _LAY[name]


def _inputs(module, lay, rng, n=4):
    """Random segment words u[j] (a uniform block word's planes are its bits, broadcast), random varying planes
    and derived key words (key planes: all-0 or all-1, as set_key makes them), n lanes each."""
    words = state_names(module, "encrypt")
    vary = varying_words(module)
    W = module.block.width
    u = rng.integers(0, 1 << W, (len(words), n), dtype=np.uint64)
    env: dict[str, np.ndarray] = {}
    for j, w in enumerate(words):
        for i in range(W):
            name = plane_name(w, i)
            if j in vary:
                env[name] = rng.integers(0, 1 << 32, n, dtype=np.uint64)
            else:
                env[name] = np.where((u[j] >> np.uint64(i)) & np.uint64(1), np.uint64(0xFFFFFFFF), np.uint64(0))
    for d, _ in lay.derive.outputs:
        env[d] = np.full(n, 0xFFFFFFFF * int(rng.integers(0, 2)), np.uint64)
    return u, env


def _run(fn, env):
    names = {op.imm[0] for op in fn.ops if op.code == "input"}
    out = Interpreter({}).run(fn, {k: v.astype(np.uint32) for k, v in env.items() if k in names})
    return {k: np.asarray(v, np.uint64) for k, v in out.items()}


@pytest.mark.parametrize("name", CASES)
def test_split_moves_ops_and_main_after_pre_is_the_core(registry, name):
    module, lay = _lanes(registry, name)
    h = lay.ctr
    assert h is not None and h.hoisted_ops > 0 and h.frontier
    uniform = bs_ctr.uniform_planes(module, state_names(module, "encrypt"))
    assert not [op for op in h.main.ops if op.code == "input" and op.imm[0] in uniform]  # all come as H values
    assert {op.code for op in h.pre.ops} <= bs_ctr.PLANE_OPS  # a Boolean circuit: constant-time on the host
    core = lay.cores["encrypt"]
    n_core = sum(1 for op in core.ops if op.code not in ("input", "const"))
    n_main = sum(1 for op in lay.cores["ctr_main"].ops if op.code not in ("input", "const"))
    assert n_main < n_core  # (xor3.unshare ran on both)
    rng = np.random.default_rng(25)
    for _ in range(3):
        _, env = _inputs(module, lay, rng)
        want = _run(core, env)
        hv = _run(h.pre, env)
        assert all(np.isin(v, (0, 0xFFFFFFFF)).all() for v in hv.values())  # all-0/all-1 planes
        got = _run(lay.cores["ctr_main"], env | hv)
        assert set(got) == set(want)
        for k in want:
            assert np.array_equal(got[k], want[k]), k


@pytest.mark.parametrize("name", CASES)
def test_main_core_text_on_the_emulator(registry, name):
    """cs_main's inline PTX, with the H values as parameter operands (hs.h[k]), equals the interpreter."""
    module, lay = _lanes(registry, name)
    rk_idx = {n: k for k, (n, _) in enumerate(lay.derive.outputs)}
    hs = cores.Bound("const S &hs", "hs", {n: f"h[{k}]" for k, (n, _) in enumerate(lay.ctr.pre.outputs)})
    acc = cores.access(module, CudaSchedule(layout="bs"), "RK")
    main = lay.cores["ctr_main"]
    text = cores.core("m", main, module, acc, "ptx", lay.state["ctr_main"], rk_idx=rk_idx, bound=hs)
    assert "h[0]" in text and "const S &hs" in text
    rng = np.random.default_rng(5)
    _, env = _inputs(module, lay, rng, n=1)
    hv = _run(lay.ctr.pre, env)
    rk = np.array([int(env[n][0]) for n in rk_idx], np.uint64)
    x = [env[n] for n in lay.state["ctr_main"]]
    h = [hv[n] for n, _ in lay.ctr.pre.outputs]
    got = emulate.run_core(text, x, rk, {}, h=h)
    want = _run(main, env | hv)
    assert [int(v[0]) for v in got] == [int(want[n][0]) for n, _ in main.outputs]


@pytest.mark.parametrize("piece", [bs_ctr.HOST_PIECE, 40])
def test_host_pre_equals_the_interpreter(registry, tmp_path, piece):
    """The host's P_seg_pre, one body or (piece 40) out-of-line pieces with repeated ones shared, equals the
    interpreter's run of the split's pre."""
    require("cc")
    module, lay = _lanes(registry, "pipo64_128")
    words = state_names(module, "encrypt")
    rk_words = {n: 3 + k for k, (n, _) in enumerate(lay.derive.outputs)}  # (3 key-schedule words first)
    text = bs_ctr.host_c(lay.ctr, words, rk_words, "P", piece=piece)
    n_pieces = text.count("static void P_seg_pre_")
    if piece == bs_ctr.HOST_PIECE:
        assert n_pieces == 0 and "__CUDA_ARCH__" not in text  # (pipo's pre fits one piece)
    else:
        calls = text.count("P_seg_pre_", text.index("#else"))
        assert 1 < n_pieces <= calls  # pieces (those equal up to a round-key offset are one function)
        assert "P_wipe(v, sizeof v);" in text  # the key-derived slots cleared, as h is by P_seg_wipe
        assert text.count("#if defined(__CUDA_ARCH__)") == 1  # the device's copy: the straight body
    nh, nw, nrk = len(lay.ctr.frontier), len(words), 3 + len(rk_words)
    harness = f"""#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define CS_HD  /* (the .cu's: __host__ __device__ under nvcc, the device makes a GCM record's planes) */
static void P_wipe(void *p, size_t n) {{ memset(p, 0, n); __asm__ __volatile__("" : : "r"(p) : "memory"); }}  /* host.cu.j2's */
typedef struct {{ uint32_t u[{nw}]; uint32_t lo; uint64_t nblocks, nbytes; uint32_t h[{nh}]; }} P_seg;
{text}
int main(void) {{
    P_seg seg; uint32_t rk[{nrk}];
    for (int j = 0; j < {nw}; ++j) if (scanf("%u", &seg.u[j]) != 1) return 2;
    for (int i = 0; i < {nrk}; ++i) if (scanf("%u", &rk[i]) != 1) return 2;
    P_seg_pre(rk, &seg);
    for (int k = 0; k < {nh}; ++k) printf("%u\\n", seg.h[k]);
    P_seg_wipe(&seg);
    return seg.h[0] != 0;
}}
"""
    (tmp_path / "t.c").write_text(harness)
    exe = tmp_path / "t"
    subprocess.run(["cc", "-O1", "-o", str(exe), str(tmp_path / "t.c")], check=True)
    rng = np.random.default_rng(9)
    for _ in range(4):
        u, env = _inputs(module, lay, rng, n=1)
        rk = [0xFFFFFFFF * int(x) for x in rng.integers(0, 2, nrk)]
        for n, w in rk_words.items():
            env[n] = np.array([rk[w]], np.uint64)
        stdin = " ".join(str(int(v[0])) for v in u) + " " + " ".join(map(str, rk))
        res = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        want = _run(lay.ctr.pre, env)
        assert [int(x) for x in res.stdout.split()] == [int(want[n][0]) for n, _ in lay.ctr.pre.outputs]


def test_kernels_call_main_and_the_switch_turns_it_off(registry, monkeypatch):
    module = registry.module("pipo64_128")
    src = generate(module, CudaSchedule(layout="bs", threads=32), with_gcm=False)
    assert src.hoisted_ops > 0
    assert src.cu.count("cs_main_ptx(x, y, rkp, seg);") == 2  # ctr and ctr_tail; ecb and multi-key keep theirs
    assert src.cu.count("_seg_pre(rk->w, &seg);") == 2 and "uint32_t h[" in src.cu
    # the CTR kernel's block order: lane L of a warp holds blocks L, 32 + L, ... (coalesced stores; both flavours)
    assert src.cu.count("(base + (uint64_t)s * 32 - lane) * 32 + (uint64_t)b * 32 + lane;") == 2
    off = generate(module, CudaSchedule(layout="bs", threads=32, hoist=False), with_gcm=False)
    assert "cs_main_ptx" not in off.cu and "_bs_nohoist_" in off.name  # (the name says so: another source)
    monkeypatch.setenv("CIPHERSPEC_PTX_CTR", "v1")
    old = generate(module, CudaSchedule(layout="bs", threads=32), with_gcm=False)
    assert "cs_main_ptx" not in old.cu and "_seg_pre" not in old.cu and old.hoisted_ops == 0


def test_before_round_keeps_late_uniform_ops_in_main(registry):
    """before_round (the loop-keeping split, lanes._ctr_split): a uniform op of that round or later, and what it
    reads, stay in main, which then reads host values only in earlier rounds; the identity still holds."""
    module = prepared(registry.module("pipo64_128"), CudaSchedule(layout="bs"))
    words = state_names(module, "encrypt")
    u = plane_name(words[0], 0)  # (pipo: words 0..3 uniform, 4..7 the counter's)
    v = plane_name(words[7], 0)
    b = Builder("t")
    b.origin = Origin("t.cs", 1, 1, "encrypt", round=0)
    x, k, y = b.input(u), b.input("D[0]"), b.input(v)
    s0 = b.op("and", b.op("xor", x, k), k)  # round 0, uniform
    b.origin = Origin("t.cs", 2, 1, "encrypt", round=1)
    s1 = b.op("not", s0)  # round 1, uniform
    out = b.op("xor", s1, y)
    fn = b.function([("o", out)])
    free = bs_ctr.split(fn, module, words, {"D[0]"})
    kept = bs_ctr.split(fn, module, words, {"D[0]"}, before_round=1)
    assert free.hoisted_ops == 3 and kept.hoisted_ops == 1  # the round-1 op and the op it reads stay in main
    reads = [
        op
        for op in kept.main.ops
        if op.code != "input"
        and any(kept.main.ops[a].code == "input" and kept.main.ops[a].imm[0].startswith("H[") for a in op.args)
    ]
    assert reads and all(op.origin.round == 0 for op in reads)
    rng = np.random.default_rng(1)
    for _ in range(4):
        env = {
            u: np.uint32(0xFFFFFFFF * int(rng.integers(0, 2))),
            "D[0]": np.uint32(0xFFFFFFFF * int(rng.integers(0, 2))),
            v: np.uint32(int(rng.integers(0, 1 << 32))),
        }
        want = Interpreter({}).run(fn, env)["o"]
        for h in (free, kept):
            hv = Interpreter({}).run(h.pre, {n: env[n] for n in (u, "D[0]")})
            got = Interpreter({}).run(h.main, {v: env[v], "D[0]": env["D[0]"]} | hv)["o"]
            assert int(np.asarray(got).reshape(-1)[0]) == int(np.asarray(want).reshape(-1)[0])
