"""The CUDA default is constant-time for every example and conformance spec (issue 25): a spec with tables
builds without --schedule into a layout that reads no table with a secret index (the bitsliced one, specs on
64-bit words included: split_u64 halves their interfaces, their u64 ops are 64 planes a word), a spec without
tables into the one-block-per-thread layout (constant-time as it is); a table layout is only what --schedule
names, and then the warning names the real constant-time default.  No GPU and no nvcc needed (the build writes
.cu/.h only); the compiles with ptxas are in test_conformance_matrix.py (conformance.cuda_check) and
test_example_ciphers.py."""

from __future__ import annotations

import conformance as M
import pytest
from paths import ROOT

from cipherspec.registry import Registry
from generator.ptx import build as cuda_build
from generator.ptx.build import schedule_for
from generator.ptx.ctchoice import choose
from generator.ptx.placement import CudaSchedule, constant_time, table_base
from generator.ptx.source import prepared

EXAMPLES = sorted((ROOT / "examples" / "ciphers").glob("*.cs"))
REG = Registry(extra=M.spec_files() + EXAMPLES)


def _with_tables() -> list[str]:
    return [n for n in REG.names() if prepared(REG.module(n)).tables]


def test_every_default_is_constant_time():
    """Every example and conformance spec (with tables or without): its default reads no table with a secret
    index; one with tables is bitsliced, the 64-bit cells with lookups (u64 ARX with a byte S-box, nibble and
    byte S-boxes on u64 words) among them."""
    tabled = set(_with_tables())
    assert {"sm4", "present80", "sbox8_u8", "bitlinear_perm", "tables_u32"} <= tabled
    assert {"arx64_lut_u64", "bytesub_u64_le", "sbox4_u64"} <= tabled
    assert len(REG.names()) > len(tabled) > 20
    for n in REG.names():
        m = REG.module(n)
        s = schedule_for(m, None)
        assert constant_time(prepared(m, s), s), (n, s)
        assert (s.layout == "bs") == (n in tabled), (n, s)


def test_no_constant_time_layout_says_why(monkeypatch):
    """Were no constant-time layout to take a spec (the bitsliced lowering refusing it), choose says why in one
    line and the default falls back to the table layout."""
    import generator.ptx.bitsliced as bs

    monkeypatch.setattr(bs, "supports", lambda m: f"the bitsliced layout cannot take {m.cipher}: (test)")
    c = choose(prepared(REG.module("sbox4_u64")))
    assert c.sched is None and "cannot take sbox4_u64" in c.why and "\n" not in c.why
    assert schedule_for(REG.module("sbox4_u64"), None) == table_base(prepared(REG.module("sbox4_u64")))


def test_a_schedule_string_keeps_the_table_layout():
    """parse's base is the table layout: a named table schedule stays one, whatever the default is."""
    m = prepared(REG.module("sm4"))
    s = CudaSchedule.parse("rk-const_t256_tab-shared32", m)
    assert s.layout == "scalar" and s == table_base(m)
    assert schedule_for(REG.module("sm4"), "bs_rk-const_sync-auto_t256") == schedule_for(REG.module("sm4"), None)


def _notes(monkeypatch, tmp_path, name: str, schedule: str | None) -> list[str]:
    monkeypatch.setenv("CIPHERSPEC_NVCC", str(tmp_path / "no-nvcc"))  # sources only
    return cuda_build.build(REG, [name], schedule, tmp_path)


@pytest.mark.parametrize("given", [None, "rk-const_t256_tab-shared32"])
def test_notes_and_warning(monkeypatch, tmp_path, given):
    notes = _notes(monkeypatch, tmp_path, "sbox4_u8", given)
    layout = [n for n in notes if "estimated instructions per block" in n]
    assert len(layout) == 1
    assert "table layout sbox4_u8_cuda_ctr_rk-const_t256_tab-shared32 ~" in layout[0]
    assert "bs ~" in layout[0]
    warn = [n for n in notes if n.startswith("WARNING")]
    if given is None:
        assert "layout bs (constant-time default" in layout[0] and not warn
    else:
        assert "given with --schedule" in layout[0]
        assert len(warn) == 1 and "(sbox4_u8_cuda_ctr_bs_rk-const_sync-auto_t256)" in warn[0], warn
        assert "tab-shared32)." not in warn[0]  # (it used to name the leaky schedule itself)


def test_warning_without_a_constant_time_layout(monkeypatch, tmp_path):
    import generator.ptx.bitsliced as bs

    monkeypatch.setattr(bs, "supports", lambda m: "(test)")
    notes = _notes(monkeypatch, tmp_path, "arx64_lut_u64", None)
    warn = [n for n in notes if n.startswith("WARNING")]
    assert len(warn) == 1 and "No constant-time CUDA layout takes arx64_lut_u64" in warn[0]


def test_bitsliced_estimate_beats_tables_for_present():
    """The cost model on PRESENT's 4-bit S-boxes and pLayer: the bit permutation is free renaming in bitsliced
    form, so the estimate is far below the table layout's (whose pLayer is shifts and masks per bit)."""
    from generator.ptx.ctchoice import estimates

    est = estimates(REG.module("present80"))
    assert est["bs"] < est["table"] / 5, est


@pytest.mark.parametrize(
    "name",
    [
        "sm4",
        "present80",
        "sbox4_u16",
        "bytesub_u32_be",
        "tables_u32",
        "bitlinear_perm",
        "invmix_u32_le",
        "sbox4_u64",
        "bytesub_u64_le",
        "arx64_lut_u64",
    ],
)
def test_default_lane_route_equals_the_reference(name):
    """The bitsliced default of specs outside the shipped set, on the interpreter (no GPU): u32 big-endian words
    with byte S-boxes and rotations (SM4), a 4-bit S-box and a bit permutation on u8[8] (PRESENT), u16 words, tables
    feeding column maps; the route of test_cuda_lanes.py (memory words -> lanes_in -> core -> lanes_out)."""
    import numpy as np
    from lane_route import blocks_of, derived, memory_words

    from cipherspec.blockcipher import RefCipher
    from cipherspec.interp import Interpreter
    from generator.ptx.lanes import lanes_for

    sched = schedule_for(REG.module(name), None)
    assert sched.layout == "bs"
    module = prepared(REG.module(name), sched)
    lay = lanes_for(module, "bs")
    ref = RefCipher(REG.module(name))
    rng = np.random.default_rng(3)
    rkd = ref.expand_key(rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes())
    keys = derived(lay, module, rkd)
    G, B = lay.group, ref.block_bytes
    blocks = rng.integers(0, 256, (2 * G, B), dtype=np.uint8)
    it = Interpreter(module.tables)
    for fname, want in (("encrypt", ref.encrypt_blocks(rkd, blocks)), ("decrypt", ref.decrypt_blocks(rkd, blocks))):
        lw = it.run(lay.lanes_in, memory_words(blocks, G))
        y = it.run(lay.cores[fname], {n: lw[m] for n, (m, _) in zip(lay.state[fname], lay.lanes_in.outputs)} | keys)
        back = it.run(lay.lanes_out, {n: y[o] for n, (o, _) in zip(lay.state["encrypt"], lay.cores[fname].outputs)})
        assert (blocks_of(back, G, B) == want).all(), fname


def test_round_keys_past_the_constant_cache_go_to_shared_memory():
    """PRESENT-80's key planes (32 round keys x 64 planes, ~9 KB) exceed the constant cache's 8 KB working set:
    its bitsliced default reads them from shared memory, and the notes say why; SM4's (~4 KB) stay in the
    constant bank."""
    present, sm4 = prepared(REG.module("present80")), prepared(REG.module("sm4"))
    c = choose(present)
    assert c.sched is not None and (c.sched.layout, c.sched.rk) == ("bs", "shared")
    assert "constant-cache working set" in c.why
    assert schedule_for(REG.module("sm4"), None).rk == "const" and "constant-cache" not in choose(sm4).why
