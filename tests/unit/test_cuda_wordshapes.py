"""Word shapes beyond the shipped ciphers on CUDA: 64-bit words as register pairs (wide.py, split_u64),
byte S-boxes and u8 -> u32 tables on 32-bit words, u16/u64 rotations.

Without a GPU: the cores of both flavours run in the CPU emulator (generator/ptx/emulate.py) against
the interpreter, including the hoisted CTR split; every kernel compiles with nvcc for sm_90 with 0
spills and no local memory; the host key schedules run through the host C compiler.  On a GPU:
tests/differential/test_cuda_wordshapes_gpu.py (bench/gpu/run.sh)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from cuda_support import host_round_keys
from tools import is_key_schedule_ok, require_nvcc
from wordshape_specs import CUDA_DEFAULTS, CUDA_OTHER, NARROW, REG, WIDE

from cipherspec.blockcipher import RefCipher, bytes_to_words
from cipherspec.passes import split_u64
from generator.ptx import cores, emulate, multikey, wide
from generator.ptx.ctchoice import default_for
from generator.ptx.ctr import state_names, uniform_split, varying_words
from generator.ptx.placement import CudaSchedule, rk_index
from generator.ptx.source import generate, prepared
from toolchain import nvcc


def _setup(name, seed):
    module = prepared(REG.module(name))
    ref = RefCipher(module)  # the split module: its round keys are the kernels' 32-bit words
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes()
    rkd = ref.expand_key(key)
    rk = np.zeros(len(rk_index(module)), np.uint64)
    for n, i in rk_index(module).items():
        rk[i] = int(np.asarray(rkd[n]).reshape(-1)[0])
    blocks = rng.integers(0, 256, (64, ref.block_bytes), dtype=np.uint8)
    x = [w.astype(np.uint64) for w in bytes_to_words(module.block, blocks)]
    tables = {t.name: np.array(t.values) for t in module.tables.values()}
    return module, ref, rkd, rk, blocks, x, tables


def _stack(out):
    return np.stack([np.asarray(w, np.uint64) for w in out], 1)


@pytest.mark.parametrize("flavour", ["ptx", "c", "ptx-bal"])
@pytest.mark.parametrize("name", WIDE + NARROW)
def test_cores_match_interpreter(name, flavour):
    bal = flavour.endswith("-bal")
    flavour = flavour.split("-")[0]
    module, ref, rkd, rk, blocks, x, tables = _setup(name, 1)
    acc = cores.access(module, CudaSchedule(tab="shared4" if module.tables else "shared"), "RK")
    copies = 4 if module.tables else 1
    ct = ref.encrypt_blocks(rkd, blocks)
    want = _stack([w.astype(np.uint64) for w in bytes_to_words(module.block, ct)])
    text = cores.core(
        "e", module.functions["encrypt"], module, acc, flavour, state_names(module, "encrypt"), balanced=bal
    )
    assert (_stack(emulate.run_core(text, x, rk, tables, copies=copies)) == want).all()
    xc = [w.astype(np.uint64) for w in bytes_to_words(module.block, ct)]
    text = cores.core("d", module.functions["decrypt"], module, acc, flavour, state_names(module, "decrypt"))
    assert (_stack(emulate.run_core(text, xc, rk, tables, copies=copies)) == _stack(x)).all()


@pytest.mark.parametrize("name", WIDE + ["sm4like8"])
def test_hoisted_ctr_core_matches(name):
    """pre then main == encrypt when the counter's high words are uniform, 64-bit H values as halves."""
    module, _, _, rk, _, x, tables = _setup(name, 2)
    vary = varying_words(module)
    x = [v if j in vary else np.full_like(v, v[0]) for j, v in enumerate(x)]
    xs = state_names(module, "encrypt")
    split = uniform_split(module)  # split_u64.halve_hoisted: 64-bit H values as two 32-bit words
    assert all(w <= 32 for _, w, _ in split.main.inputs()) and len(split.frontier) == len(split.pre.outputs)
    acc = cores.access(module, CudaSchedule(tab="const"), "RK")
    pre = cores.core("p", split.pre, module, acc, "ptx", xs)
    main = cores.core("m", split.main, module, acc, "ptx", xs, [n for n, _ in split.pre.outputs], balanced=True)
    h = emulate.run_core(pre, [v[:1] for v in x], rk, tables)
    got = _stack(emulate.run_core(main, x, rk, tables, h=h))
    full = cores.core("e", module.functions["encrypt"], module, acc, "ptx", xs)
    assert (got == _stack(emulate.run_core(full, x, rk, tables))).all()


def test_pairs_use_carry_chains_and_funnel_shifts():
    module = prepared(REG.module("speck128le"))
    acc = cores.access(module, CudaSchedule(), "RK")
    text = cores.core("e", module.functions["encrypt"], module, acc, "ptx", state_names(module, "encrypt"))
    assert re.search(r"add\.cc\.u32 [^;]+; addc\.u32 ", text)  # the pair in one statement (or line of a block)
    assert "shf.l.wrap.b32" in text and "xor.b32" in text
    assert '"or.b32' not in text and '"and.b32' not in text  # packing the halves costs nothing
    rounds = REG.module("speck128le").rounds
    assert text.count("add.cc.u32") == rounds and text.count("shf.l.wrap.b32") == 4 * rounds
    c = cores.core("e", module.functions["encrypt"], module, acc, "c", state_names(module, "encrypt"))
    assert "const uint64_t" in c and "asm(" not in c


def test_split_u64_interfaces():
    m = REG.module("speck128be")
    s = split_u64.run_module(m)
    assert str(s.block) == "u32[4] big" and [(k.width, k.shape) for k in s.key_arrays] == [(32, (8, 2))]
    assert [n for n, _, _ in s.functions["encrypt"].inputs()][:4] == ["X[0].hi", "X[0].lo", "X[1].hi", "X[1].lo"]
    m = REG.module("sm4like8")
    assert split_u64.run_module(m) is m  # nothing 64-bit: the module as it was


@pytest.mark.parametrize("name", WIDE)
def test_split_u64_preserves_results(name):
    """The split module is the same cipher over bytes (the property tests cover the shipped ciphers)."""
    m = REG.module(name)
    a, b = RefCipher(m), RefCipher(split_u64.run_module(m))
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 256, (2, a.key_bytes), dtype=np.uint8)
    blocks = rng.integers(0, 256, (32, a.block_bytes), dtype=np.uint8)
    for key in keys:
        ra, rb = a.expand_key(key.tobytes()), b.expand_key(key.tobytes())
        assert (a.encrypt_blocks(ra, blocks) == b.encrypt_blocks(rb, blocks)).all()
        assert (a.decrypt_blocks(ra, blocks) == b.decrypt_blocks(rb, blocks)).all()


def test_truth_table_reduction():
    assert wide.reduce(0xFC, [0xF0, 0x00]) == 0xF0  # a | 0
    assert wide.reduce(0xC0, [0xF0, 0xFF]) == 0xF0  # a & ~0
    assert wide.reduce(0x96, [0xF0, 0xCC, 0x00]) == 0x3C  # a ^ b ^ 0
    assert wide.reduce(0x96, [0xF0, 0xCC, 0xFF]) == 0xC3  # a ^ b ^ ~0


@pytest.mark.parametrize("name,sched", CUDA_DEFAULTS + CUDA_OTHER)
def test_compiles_without_spills(tmp_path, name, sched):
    """Every default schedule and the non-default ones the GPU test runs (test_cuda_wordshapes_gpu.py)."""
    require_nvcc()
    module = prepared(REG.module(name))
    schedule = CudaSchedule.parse(sched, module) if sched else default_for(module)
    src = generate(REG.module(name), schedule, with_gcm=False)
    # ECB enc/dec, CTR (keystream, XOR), multi-key, tail per flavour; key schedule; a cheap key schedule's fused
    # multi-key kernels, and where its key is whole words their pair form
    fused = (
        not schedule.lanes and multikey.key_schedule_cost(prepared(REG.module(name), schedule)) <= multikey.FUSE_MAX_OPS
    )
    cu = tmp_path / f"{src.name}.cu"
    cu.write_text(src.cu)
    (tmp_path / f"{src.name}.h").write_text(src.h)
    pair = fused and module.key.nbytes % 4 == 0  # the fused kernel's pair form (CIPHERSPEC_MG_PAIR; CS_AB builds)
    rep = nvcc.compile_cubin(cu, "sm_90")
    assert len(rep.kernels) == 13 + 2 * fused + 2 * pair, rep.text[-2000:]
    for kernel, use in rep.kernels.items():
        assert use.clean or is_key_schedule_ok(use, kernel), f"{src.name} {kernel}: {vars(use)}"


@pytest.mark.parametrize("name", WIDE + NARROW)
def test_host_key_schedule(tmp_path, name):
    """The library's host key schedule (64-bit words: uint64_t C, round keys written as 32-bit halves)."""
    module = prepared(REG.module(name))
    ref = RefCipher(module)
    keys = np.random.default_rng(9).integers(0, 256, (3, ref.key_bytes), dtype=np.uint8)
    got = host_round_keys(module, keys, tmp_path)
    for k in range(3):
        want = ref.expand_key(keys[k].tobytes())
        for n, i in rk_index(module).items():
            assert got[k, i] == int(np.asarray(want[n]).reshape(-1)[0]), (k, n)
