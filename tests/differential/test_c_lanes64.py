"""64-bit ARX words in 64-bit lanes (generator/c/lanes64.py) against the interpreter, on every x86 ISA
variant of the C library this CPU runs (keys set up with set_key_isa): the conformance specs arx64_u64_le
(little-endian ARX, byte-multiple and other rotations, not/and/or, shifts) and order_u64_be (big-endian
words), the near miss arx64_lut_u64 (one byte S-box: keeps the schedule's layout), and SPECK-128/128 (the
example).  ECB both ways and CTR at every lane-group boundary +-1 block, and CTR across a 2^64 carry of the
counter.  The libraries are the ones the conformance matrix and the example tests build (cached)."""

from __future__ import annotations

import numpy as np
import pytest
from c_support import block_counts, random_bytes, variant_lanes
from conformance import SPEC_DIR
from cpu import has_level, is_x86_64
from paths import ROOT

from cipherspec import modes
from cipherspec.registry import Registry
from driver.targets import make_cipher
from generator.c import lanes64
from generator.c.schedules import default_schedule
from generator.c.variants import variants

REG = Registry(extra=[SPEC_DIR / "arx64.cs", SPEC_DIR / "byteorder.cs", ROOT / "examples" / "ciphers" / "speck.cs"])
NAMES = ("arx64_u64_le", "order_u64_be", "arx64_lut_u64", "speck128_128")
pytestmark = pytest.mark.skipif(not is_x86_64(), reason="the x86-64 ISA variants (the portable one: test_c_portable)")


@pytest.mark.parametrize("name", NAMES)
def test_layout_comes_from_the_ir(name):
    """Every level's kernel: 64-bit ARX -> the cost model's width and interleave (zmm on avx512); the near
    miss -> the schedule's own (no i)."""
    module = REG.module(name)
    sched = default_schedule(module)
    for v in variants(module, sched):
        plan = lanes64.plan(module, v.name)
        if name == "arx64_lut_u64":
            assert plan is None and v.kernel.get("i") is None, v.kernel.name
            continue
        assert plan is not None and v.kernel.get("i") == plan.interleave and v.kernel.get("v") == plan.vector_bytes
        assert plan.interleave > 1
    if name != "arx64_lut_u64":
        assert {v.name: v.kernel.get("v") for v in variants(module, sched)} == {"avx512": 64, "avx2": 32, "sse2": 16}


@pytest.mark.parametrize("name", NAMES)
def test_every_variant_matches_the_interpreter(name):
    module = REG.module(name)
    lib = make_cipher(REG, name, None, "c")
    ref = make_cipher(REG, name, None, "ref")
    rng = np.random.default_rng(64)
    key = random_bytes(rng, lib.key_bytes)
    rr = ref.expand_key(key)
    bb = lib.block_bytes
    ran = []
    for v in variants(module, lib.schedule):
        if not has_level(v.name):
            continue
        c = lib.with_isa(v.name)
        rk = c.expand_key(key)
        lanes = variant_lanes(module, lib.schedule, v.name)
        for blocks in block_counts(lanes):
            data = random_bytes(rng, blocks * bb)
            for direction in ("encrypt", "decrypt"):
                got = modes.run_mode(c, rk, "ecb", direction, data)
                assert got == modes.run_mode(ref, rr, "ecb", direction, data), f"{v.name} ECB {direction} {blocks}"
            iv = random_bytes(rng, bb)
            assert c.ctr(rk, iv, data + b"x") == modes.ctr(ref, rr, iv, data + b"x"), f"{v.name} CTR {blocks}"
        iv = bytes(bb - 8) + (2**64 - 5).to_bytes(8, "big")  # the low counter word carries inside a run
        data = random_bytes(rng, (lanes + 3) * bb)
        assert c.ctr(rk, iv, data) == modes.ctr(ref, rr, iv, data), f"{v.name} CTR across 2^64"
        ran.append(v.name)
    assert "sse2" in ran


def test_plain_array_fallback():
    """The interleaved kernels and the counter core with CS_NO_VECTOR_EXT (plain arrays of CS_VLANES lanes),
    every variant, on the 2-round arx64_u64_le (a cheap build)."""
    from generator.c.build import build_shared
    from runtime.c_target import CCipher

    module = REG.module("arx64_u64_le")
    sched = default_schedule(module)
    lib = CCipher(module, sched, build_shared(module, sched, extra_args=["-DCS_NO_VECTOR_EXT"]))
    ref = make_cipher(REG, "arx64_u64_le", None, "ref")
    rng = np.random.default_rng(7)
    key, iv = random_bytes(rng, lib.key_bytes), random_bytes(rng, lib.block_bytes)
    rr = ref.expand_key(key)
    for v in [v.name for v in variants(module, sched) if has_level(v.name)]:
        c = lib.with_isa(v)
        rk = c.expand_key(key)
        data = random_bytes(rng, (2 * variant_lanes(module, sched, v) + 1) * lib.block_bytes + 5)
        whole = data[: len(data) - len(data) % lib.block_bytes]
        assert modes.run_mode(c, rk, "ecb", "encrypt", whole) == modes.ecb_encrypt(ref, rr, whole), v
        assert modes.run_mode(c, rk, "ecb", "decrypt", whole) == modes.ecb_decrypt(ref, rr, whole), v
        assert c.ctr(rk, iv, data) == modes.ctr(ref, rr, iv, data), v
