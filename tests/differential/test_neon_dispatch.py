"""The built NEON library's run-time dispatch (generator/neon/dispatch.py), under qemu-aarch64.

The dispatching harness links every variant + <cipher>_neon.c, as `cipherspec build --target neon` does.
QEMU's CPU models all have FEAT_AES, so the portable path is reached through the documented override
(CIPHERSPEC_NEON_NO_CRYPTO=1); FEAT_SHA3 is on `-cpu max` only, so cortex-a76 takes the AES-only (or
portable) variant by getauxval.  Every path is checked against the interpreter."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neon_support import batches, dispatched
from shipped import shipped_registry
from tools import require

from cipherspec import modes
from generator.neon import dispatch
from generator.neon.build import build

REG = shipped_registry()
# (qemu cpu, guest environment) -> index of the variant expected (0 = the first, -1 = portable)
PATHS = {
    "max": ("max", None, 0),
    "a76": ("cortex-a76", None, 1),  # cortex-a76: FEAT_AES, no FEAT_SHA3
    "nosha3": ("max", {"CIPHERSPEC_NEON_NO_SHA3": "1"}, 1),
    "portable": ("max", {"CIPHERSPEC_NEON_NO_CRYPTO": "1"}, -1),
}


def cipher(name: str):
    return dispatched(name)  # shared with test_neon_modes.py: one generation per session


def test_variants_prefer_crypto_where_an_sbox_is_affine_equivalent():
    names = {n: [v.schedule.name for v in dispatch.variants(REG.module(n))] for n in ("aria128", "aes256", "lea128")}
    assert names == {
        "aria128": ["aria128_neon_b16_crypto_il1_sha3", "aria128_neon_b16_crypto_il1", "aria128_neon_b16_il1"],
        "aes256": ["aes256_neon_b16_crypto_il1_sha3", "aes256_neon_b16_crypto_il1", "aes256_neon_b16_il1"],
        "lea128": ["lea128_neon_b4_il4"],
    }
    assert [v.features for v in dispatch.variants(REG.module("pipo64_128"))] == [("sha3",), ()]


@pytest.mark.qemu
@pytest.mark.parametrize(
    "name,path",
    [("aria128", p) for p in sorted(PATHS)]
    + [("aes128", "max"), ("aes128", "portable"), ("pipo64_128", "max"), ("pipo64_128", "a76")],
)
@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_dispatched_library_matches_interpreter(name, path, data):
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    c, ref = cipher(name)
    c.qemu_cpu, c.qemu_env, pick = PATHS[path]
    want = [v.schedule.name for v in c.variants]
    assert c.variant() == want[min(pick, len(want) - 1)]
    requests, expected = [], []
    for key, blocks, iv, stream in data.draw(batches(c)):
        rk, rref = c.expand_key(key), ref.expand_key(key)
        requests += [("ecb_encrypt", rk, blocks, None), ("ecb_decrypt", rk, blocks, None), ("ctr", rk, stream, iv)]
        expected += [
            modes.ecb_encrypt(ref, rref, blocks),
            modes.ecb_decrypt(ref, rref, blocks),
            modes.ctr(ref, rref, iv, stream)[0],
        ]
        if "ctr" not in c.emitted.modes:
            requests.pop(), expected.pop()
    for (op, _, d, _), g, e in zip(requests, c.run_batch(requests), expected):
        assert g == e, f"{name} dispatched ({path}) {op} of {len(d)} bytes differs"


@pytest.mark.qemu
def test_override_values_and_single_variant_library():
    require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    c, _ = cipher("aria128")
    c.qemu_cpu = "cortex-a53"
    c.qemu_env = {"CIPHERSPEC_NEON_NO_CRYPTO": "0"}  # "0" does not turn crypto off
    assert c.variant() == "aria128_neon_b16_crypto_il1"  # cortex-a53: no FEAT_SHA3
    lea, _ = cipher("lea128")
    assert lea.variant() == "lea128_neon_b4_il4"


def test_build_writes_one_library_with_every_variant(tmp_path):
    nm = require("aarch64-linux-gnu-gcc", "aarch64-linux-gnu-nm")["aarch64-linux-gnu-nm"]
    build(REG, ["aria128"], None, tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".S", ".h", ".c", ".a"))
    assert names == [
        "aria128_neon.c",
        "aria128_neon.h",
        "aria128_neon_b16_crypto_il1.S",
        "aria128_neon_b16_crypto_il1.h",
        "aria128_neon_b16_crypto_il1_sha3.S",
        "aria128_neon_b16_crypto_il1_sha3.h",
        "aria128_neon_b16_il1.S",
        "aria128_neon_b16_il1.h",
        "aria128_neon_key.c",
        "aria128_neon_modes.c",
        "aria128_neon_modes.h",
        "libaria128_neon.a",
    ]
    syms = subprocess.run(
        [nm, "--defined-only", str(tmp_path / "libaria128_neon.a")], capture_output=True, text=True, check=True
    ).stdout
    for s in (
        "aria128_neon_ecb_encrypt",
        "aria128_neon_ctr",
        "aria128_neon_variant",
        "aria128_neon_b16_crypto_il1_ctr",
        "aria128_neon_b16_il1_ecb_decrypt",
        "aria128_neon_key_schedule",
        "aria128_neon_set_key",
        "aria128_neon_gcm_encrypt",
        "aria128_neon_xts_decrypt",
        "aria128_neon_cmac",
    ):
        assert f" T {s}\n" in syms
    header = (tmp_path / "aria128_neon.h").read_text()
    assert "HWCAP_AES" in header and "HWCAP_SHA3" in header and "CIPHERSPEC_NEON_NO_CRYPTO" in header
