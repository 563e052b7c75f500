"""asmblock.py: a core's inline-PTX statements printed as asm blocks -- which statements join, the operand cap,
the live values, and the same results as the one-statement form on the emulator."""

from __future__ import annotations

import re

import numpy as np
import pytest
from cuda_support import kernel_round_keys

from cipherspec.blockcipher import RefCipher, bytes_to_words
from generator.ptx import asmblock, cores, emulate
from generator.ptx.ctr import state_names
from generator.ptx.placement import CudaSchedule
from generator.ptx.source import prepared


def _st(dst: str, op: str, *srcs: str) -> str:
    tpl = f"{op} %0, " + ", ".join(f"%{k + 1}" for k in range(len(srcs))) + ";"
    ins = ", ".join(f'"r"({s})' for s in srcs)
    return f'uint32_t {dst}; asm("{tpl}" : "=r"({dst}) : {ins});  // %{dst[1:]} {op}'


LINES = [
    _st("v1", "xor.b32", "x[0]", "x[1]"),
    _st("v2", "and.b32", "v1", "x[2]"),
    _st("v3", "xor.b32", "v2", "rk.w[o + 3]"),  # reads memory: stays a statement
    _st("v4", "or.b32", "v3", "v1"),
    _st("v5", "not.b32", "v4"),
    "const uint32_t v6 = S_LOOKUP(v5);  // a table load ends the run",
    _st("v7", "xor.b32", "rk.w[1]", "rk.w[2]"),  # reads no state: stays a statement
    _st("v8", "xor.b32", "v6", "v7"),
    _st("v9", "and.b32", "v8", "v5"),
]


def test_runs_join_and_the_rest_stays():
    out = asmblock.fuse(LINES, ["v9", "v4"], limit=96, min_run=2)
    text = "\n".join(out)
    blocks = re.findall(r"// asm block: (\d+) statements, (\d+) values out", text)
    # v1-v2 | v4-v5 | v8-v9 (v3, v7 alone); out: v1 (read by v4), v2 | v4 (the caller), v5 (the lookup) | v9
    assert blocks == [("2", "2"), ("2", "2"), ("2", "1")]
    assert LINES[5] in out
    assert any(ln.startswith("uint32_t v3; asm(") for ln in out) and any(
        ln.startswith("uint32_t v7; asm(") for ln in out
    )
    assert "uint32_t v8;" not in text  # v8 lives only inside its block
    assert re.findall(r"^uint32_t ([\w, ]+);  // asm block", text, re.M) == ["v1, v2", "v4, v5", "v9"]
    assert "mov.b32 %0, v1;\\n\\tmov.b32 %1, v2;" in text and "xor.b32 v1, %2, %3;" in text  # outputs, then inputs
    assert asmblock.fuse(LINES, ["v9", "v4"], limit=96) == LINES  # runs of 2: shorter than MIN_RUN
    assert asmblock.fuse(LINES, ["v9"], limit=0, min_run=2) == LINES  # CIPHERSPEC_PTX_ASMBLOCK=0: as they were


def test_operand_cap_and_expand_round_trip():
    chain = [_st("v1", "xor.b32", "x[0]", "x[1]")]
    chain += [_st(f"v{k}", "xor.b32", f"v{k - 1}", f"x[{k}]") for k in range(2, 40)]
    for limit in (4, 10, 96):
        out = asmblock.fuse(chain, ["v39"], limit=limit, min_run=2)
        for m in re.finditer(r'"\}" : (.*?) : (.*?)\);', "\n".join(out)):
            assert m.group(1).count('"=r"') + m.group(2).count('"r"') <= limit
        back = asmblock.expand("\n".join(out))
        assert re.findall(r"^uint32_t (\w+); asm", back, re.M) == [f"v{k}" for k in range(1, 40)]


def test_fused_core_equals_statements_on_the_emulator(registry, monkeypatch):
    """HIGHT's scalar encryption core: blocks on and off give the interpreter's ciphertext."""
    monkeypatch.setenv("CIPHERSPEC_PTX_ASMBLOCK", "1")
    module = prepared(registry.module("hight"))
    ref = RefCipher(registry.module("hight"))
    rng = np.random.default_rng(3)
    key = rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes()
    rkd = ref.expand_key(key)
    rk = kernel_round_keys(module, rkd)
    blocks = rng.integers(0, 256, (32, ref.block_bytes), dtype=np.uint8)
    x = [w.astype(np.uint64) for w in bytes_to_words(module.block, blocks)]
    want = np.stack(bytes_to_words(module.block, ref.encrypt_blocks(rkd, blocks)), 1)
    acc = cores.access(module, CudaSchedule(), "RK")
    fn, xs = module.functions["encrypt"], state_names(module, "encrypt")
    fused = cores.core("e", fn, module, acc, "ptx", xs)
    plain = cores.core("e", fn, module, acc, "ptx", xs, fuse=False)
    assert fused.count("// asm block:") > 10 and "// asm block:" not in plain
    assert fused.count("asm(") < plain.count("asm(") // 2
    for text in (fused, plain):
        got = np.stack([np.asarray(w, np.uint64) for w in emulate.run_core(text, x, rk, {})], 1)
        assert (got == want).all()


@pytest.mark.parametrize(
    "value,core,cap",
    [
        (None, None, asmblock.CAP),
        (None, "1", asmblock.WIDE_CAP),
        (None, "main", asmblock.CAP),
        ("0", "1", 0),
        ("1", "cap", asmblock.WIDE_CAP),
        ("1", "0", asmblock.CAP),
        ("40", "1", 40),
    ],
)
def test_switch(monkeypatch, value, core, cap):
    """On by default; CIPHERSPEC_PTX_ASMBLOCK=0 prints the statements as they were, =N caps a block's operands;
    the default cap is CAP, WIDE_CAP with CIPHERSPEC_PTX_CORE's "cap" part (off by default)."""
    for env, v in (("CIPHERSPEC_PTX_ASMBLOCK", value), ("CIPHERSPEC_PTX_CORE", core)):
        if v is None:
            monkeypatch.delenv(env, raising=False)
        else:
            monkeypatch.setenv(env, v)
    assert asmblock.cap() == cap
    assert (asmblock.fuse(LINES, ["v9"], min_run=2) == LINES) == (cap == 0)


def _functions(cu: str, prefix: str) -> list[str]:
    """The text of each device function whose name starts with ``prefix``."""
    return [cu[m.start() : cu.index("\n}\n", m.start())] for m in re.finditer(rf"void {prefix}\w*\(", cu)]


def test_multi_key_core_switch(registry, monkeypatch):
    """By default a lane layout's cores print blocks, its multi-key core (cs_menc_ptx: the DRBG bulk's and GCM
    batch's keystream) too; CIPHERSPEC_PTX_ASMBLOCK_MULTI=0 keeps that one as statements (fused, AES's multi-key
    CTR kernel compiles to other SASS), and the other cores are the same either way."""
    from generator.ptx.source import generate

    module = registry.module("pipo64_128", 3)  # (3 rounds: a round loop of 2 iterations, a cheap source)
    sched = CudaSchedule.parse("bs_t256_rk-shared", module)
    monkeypatch.delenv("CIPHERSPEC_PTX_ASMBLOCK", raising=False)
    monkeypatch.delenv("CIPHERSPEC_PTX_ASMBLOCK_MULTI", raising=False)
    multi = generate(module, sched, with_gcm=False).cu
    monkeypatch.setenv("CIPHERSPEC_PTX_ASMBLOCK_MULTI", "0")
    plain = generate(module, sched, with_gcm=False).cu
    blocks = {
        (k, d): sum(f.count("// asm block:") for f in _functions(cu, f"cs_{d}_ptx"))
        for k, cu in (("plain", plain), ("multi", multi))
        for d in ("enc", "menc")
    }
    assert blocks["plain", "enc"] == blocks["multi", "enc"] > 0
    assert _functions(plain, "cs_enc_ptx") == _functions(multi, "cs_enc_ptx")
    assert _functions(plain, "cs_menc_ptx") and blocks["plain", "menc"] == 0
    assert blocks["multi", "menc"] == blocks["plain", "enc"]  # (the same core, round keys from another memory)


@pytest.mark.parametrize(
    "core,on",
    [(None, set()), ("1", {"lanes_out", "cap", "main"}), ("0", set()), ("main", {"main"})],
)
def test_core_parts(monkeypatch, core, on):
    """CIPHERSPEC_PTX_CORE: unset or 0 none (the default), 1 all three parts, else the parts listed."""
    if core is None:
        monkeypatch.delenv("CIPHERSPEC_PTX_CORE", raising=False)
    else:
        monkeypatch.setenv("CIPHERSPEC_PTX_CORE", core)
    assert {p for p in asmblock.PARTS if asmblock.wide(p)} == on


def test_core_parts_in_a_lane_source(registry, monkeypatch):
    """With CIPHERSPEC_PTX_CORE=1 the lane transform out of the planes (cs_lanes_out) and the bitsliced CTR core
    (cs_main) print blocks, cs_main keeping its reads of the segment's planes (hs.h[..]) as statements of their own;
    the lane transforms in stay statements; the other cores print blocks as by default but larger (the operand
    cap): fewer of them.  By default (=0) cs_lanes_out and cs_main stay statements."""
    from generator.ptx.source import generate

    module = registry.module("pipo64_128", 3)
    sched = CudaSchedule.parse("bs_t256_rk-shared", module)
    monkeypatch.delenv("CIPHERSPEC_PTX_ASMBLOCK", raising=False)
    src = {}
    for core in ("1", "0"):
        monkeypatch.setenv("CIPHERSPEC_PTX_CORE", core)
        src[core] = generate(module, sched, with_gcm=False).cu

    def blocks(cu: str, prefix: str) -> int:
        return sum(f.count("// asm block:") for f in _functions(cu, prefix))

    for part in ("cs_lanes_out_ptx", "cs_main_ptx"):
        assert blocks(src["1"], part) > 0 and blocks(src["0"], part) == 0, part
    assert _functions(src["1"], "cs_lanes_in") == _functions(src["0"], "cs_lanes_in")
    assert 0 < blocks(src["1"], "cs_enc_ptx") <= blocks(src["0"], "cs_enc_ptx")
    main = "\n".join(_functions(src["1"], "cs_main_ptx"))
    inside = re.findall(r'^\s*"[^"]*\\n\\t"', main, re.M)  # the blocks' instruction lines
    assert inside and not any("hs.h[" in ln for ln in inside) and "hs.h[" in main
