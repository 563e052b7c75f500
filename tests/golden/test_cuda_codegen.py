"""What the CUDA generator emits: the expected instructions, origins on every line, determinism, errors."""

from __future__ import annotations

import re

import pytest

from cipherspec.errors import UsageError
from generator.ptx import asmblock, lop3
from generator.ptx.ctchoice import default_for
from generator.ptx.placement import CudaSchedule
from generator.ptx.source import generate, prepared

ASM = re.compile(r'asm\("([a-z0-9.]+)')


def _gen(registry, name, text=None):
    module = prepared(registry.module(name))
    return generate(registry.module(name), CudaSchedule.parse(text, module) if text else default_for(module))


def _ptx_core(src, core="cs_enc_ptx"):
    start = src.cu.index(f"void {core}(")
    return asmblock.expand(src.cu[start : src.cu.index("\n}\n", start) + 1])  # one statement an instruction


def test_lea_core_is_add_xor_funnel_shift(registry):
    body = _ptx_core(_gen(registry, "lea128", "rk-const_t256"))
    found = ASM.findall(body)
    assert set(found) == {"add.u32", "xor.b32", "shf.l.wrap.b32", "shf.r.wrap.b32"}
    assert sum(op.startswith("shf.") for op in found) == 72 and found.count("add.u32") == 72


def test_pipo_logic_fuses_to_lop3(registry):
    body = _ptx_core(_gen(registry, "pipo64_128", "ilp2_rk-shared_t256"))  # the scalar layout: one byte a register
    ops = ASM.findall(body)
    assert "lop3.b32" in ops and "prmt.b32" in ops  # fused S-box logic; 8-bit rotations replicate with prmt
    assert ops.count("lop3.b32") > 50


def test_every_core_line_names_its_origin(registry):
    src = _gen(registry, "cham64_128")
    for core in ("cs_enc_ptx", "cs_dec_ptx", "cs_pre_ptx", "cs_main_ptx", "cs_enc_c"):
        for line in _ptx_core(src, core).splitlines()[2:]:
            if line.strip().startswith(("uint32_t", "const uint32_t")):
                assert re.search(r"// %\d+.* @ cham\.cs:\d+:\d+", line), line


def test_output_is_deterministic(registry):
    a, b = _gen(registry, "aria128"), _gen(registry, "aria128")
    assert a.cu == b.cu and a.h == b.h


def test_schedule_names(registry):
    assert _gen(registry, "lea128", "rk-const_t256").name == "lea128_cuda_ctr_rk-const_t256"
    assert _gen(registry, "aes128", "rk-shared_t512_tab-shared8").name == "aes128_cuda_ctr_rk-shared_t512_tab-shared8"
    assert (
        _gen(registry, "cham128_128", "cham128_128_cuda_ctr_ilp2_rk-reg_t128").name
        == "cham128_128_cuda_ctr_ilp2_rk-reg_t128"
    )


def test_shared_fill_has_a_barrier_and_bank_aware_copies(registry):
    cu = _gen(registry, "aria128", "tab-shared32").cu
    kernel = cu[cu.index("_ctr_ptx(") :]
    fill, sync, use = kernel.index("cs_smem["), kernel.index("__syncthreads()"), kernel.index("cs_pre_ptx(")
    assert fill < sync < use
    assert "threadIdx.x & 31u" in kernel and "<< 5]" in cu


def test_ctr_hoists_uniform_work(registry):
    assert _gen(registry, "cham128_128").hoisted_ops >= 8  # rounds 1-2 depend only on nonce words
    assert _gen(registry, "lea128").hoisted_ops >= 12


def test_lop3_truth_tables():
    assert lop3.COLUMNS == (0xF0, 0xCC, 0xAA)
    from cipherspec.ir import Function, Op

    ops = [
        Op("input", 32, (), ("a",)),
        Op("input", 32, (), ("b",)),
        Op("input", 32, (), ("c",)),
        Op("xor", 32, (0, 1)),
        Op("and", 32, (3, 2)),
        Op("not", 32, (4,)),
    ]
    trees = lop3.cover(Function("f", ops, [("y", 5)]))
    t = trees[5]
    col = {v: lop3.COLUMNS[i] for i, v in enumerate(t.leaves)}
    assert t.table == ~((col[0] ^ col[1]) & col[2]) & 0xFF and set(t.members) == {3, 4, 5}


@pytest.mark.parametrize(
    "text,msg",
    [
        ("tab-shared64", "power of two from 1 to 32"),
        ("t48", "multiple of 32"),
        ("rk-texture", "cannot be placed"),
        ("bogus", "unknown cuda schedule part"),
        ("t512_ctas8", "at most 2048"),
    ],
)
def test_bad_schedules(registry, text, msg):
    with pytest.raises(UsageError, match=msg):
        _gen(registry, "aes128", text)


def test_ctas_sets_the_launch_bounds_of_the_ecb_and_ctr_kernels(registry):
    src = _gen(registry, "lea128", "rk-const_t256_ctas3")
    assert src.name == "lea128_cuda_ctr_ctas3_rk-const_t256"
    assert src.cu.count("__launch_bounds__(256, 3)") == 6  # ECB enc/dec and CTR (XOR template), both flavours
    assert _gen(registry, "lea128", "rk-const_t256_ctas1").name == "lea128_cuda_ctr_rk-const_t256"  # 1: the default


def test_too_many_copies_names_the_limit(registry):
    from dataclasses import replace

    module = prepared(registry.module("aria128"))
    eight = {f"T{i}": replace(t, name=f"T{i}") for i, t in enumerate(list(module.tables.values()) * 2)}
    with pytest.raises(UsageError, match=r"needs \d+ bytes of shared memory per block; the limit is 232448 bytes"):
        CudaSchedule(tab="shared32", rk="shared").validate(replace(module, tables=eight))  # 8 x 32 KB > 227 KB


def test_round_keys_in_registers_are_bounded(registry):
    with pytest.raises(UsageError, match="limit for registers"):
        _gen(registry, "aria128", "rk-reg")
