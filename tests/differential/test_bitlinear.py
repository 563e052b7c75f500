"""The bit-linear conformance cells (tests/conformance/bitlinear.cs: a bit permutation across the block, and
the near miss with two bits XORed into one position) as shipped -- the default C library, bitsliced with the
inlined 4-bit circuits and demand-ordered pieces -- on every ISA variant this CPU runs, every mode and
direction, lengths across the lane boundaries, against the interpreter.  (The matrix test runs the other
C schedules, NEON and CUDA on the same specs.)"""

from __future__ import annotations

import numpy as np
import pytest
from c_support import block_counts, check_modes, random_bytes, variant_lanes
from cpu import has_level
from paths import ROOT

from cipherspec.registry import Registry
from driver.targets import make_cipher as make_ref_cipher
from generator.c import BACKEND

SPEC = ROOT / "tests" / "conformance" / "bitlinear.cs"


@pytest.fixture(scope="module")
def reg():
    return Registry([SPEC])


@pytest.mark.parametrize("name", ["bitlinear_perm", "bitlinear_near"])
def test_every_variant_against_the_interpreter(reg, name):
    c = BACKEND.load(reg, name, None, None)
    assert c.schedule.layout == "bitsliced"
    ref = make_ref_cipher(reg, name, None, "ref")
    rng = np.random.default_rng(7)
    ran = []
    for variant in c.variants():
        if not has_level(variant) and variant != "portable":
            continue
        cv = c.with_isa(None if variant == "portable" else variant)
        if variant == "portable" and cv.variant_for("sse2") is not None:
            continue  # on x86-64 the portable kernels are not reachable through set_key_isa
        key, iv = random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes)
        n = variant_lanes(c.module, c.schedule, variant)
        for blocks in block_counts(n)[-3:]:  # n - 1 .. 2n + 1 blocks: a whole run and a padded tail
            check_modes(cv, ref, key, iv, random_bytes(rng, blocks * c.block_bytes + 3))
        ran.append(variant)
    assert ran, "no variant ran"
