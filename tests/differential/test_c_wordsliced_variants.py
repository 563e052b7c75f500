"""SM4 (examples/ciphers/sm4.cs) as shipped -- word-sliced aesni kernels -- on every x86 variant this CPU runs
(GFNI, VAES, AES-NI with the regrouped rotations, the bitsliced fallback) against the interpreter, ECB both
ways over a run that is not a whole number of core runs.  The library is the one test_example_ciphers
builds (the build cache shares it); CTR is compared with libgcrypt by bench/peers/run.py."""

from __future__ import annotations

import numpy as np
from paths import ROOT

from cipherspec.registry import Registry
from driver.targets import make_cipher

REG = Registry(extra=[ROOT / "examples" / "ciphers" / "sm4.cs"])


def test_every_variant_matches_the_interpreter():
    lib = make_cipher(REG, "sm4", None, "c", "sm4_c_aesni")
    ref = make_cipher(REG, "sm4", None, "ref")
    rng = np.random.default_rng(4)
    key = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    blocks = rng.integers(0, 256, (77, 16), dtype=np.uint8)
    want = ref.encrypt_blocks(ref.expand_key(key), blocks)
    ran = []
    for v in lib.variants():
        if lib.variant_for(v) != v:
            continue
        c = lib.with_isa(v)
        rk = c.expand_key(key)
        assert (np.asarray(c.encrypt_blocks(rk, blocks)) == want).all(), v
        assert (np.asarray(c.decrypt_blocks(rk, want)) == blocks).all(), v
        ran.append(v)
    assert ran and ran[0] == lib.variant


def test_modes_across_the_run_length():
    """ECB, CBC and CTR (partial blocks too) around one run of the default variant's core (64 blocks at 512
    bits), against the interpreter: the padded tail and the CBC chunking."""
    from c_support import check_modes

    lib = make_cipher(REG, "sm4", None, "c", "sm4_c_aesni")
    ref = make_cipher(REG, "sm4", None, "ref")
    rng = np.random.default_rng(9)
    key, iv = rng.bytes(16), rng.bytes(16)
    for n in (63, 65):
        check_modes(lib, ref, key, iv, rng.bytes(n * 16 + 3))
