"""The NEON library's modes file (generator/neon/modes.py) as text and as code: it is the C library's mode
layer (one definition), it compiles warning-free (-Wall -Wextra) with gcc and clang for AArch64, and its GHASH is made
of PMULL/PMULL2 (the expected instructions, Halide simd_op_check style); the results are checked under
QEMU in tests/differential/test_neon_modes.py."""

from __future__ import annotations

import subprocess

import pytest
from tools import require

from generator.c.text import fragment
from generator.neon.build import dispatched_files


@pytest.fixture(scope="module")
def lea_files(registry):
    return dispatched_files(registry.module("lea128"))[0]  # one variant: cheap to generate


def test_modes_are_the_c_library_mode_layer(lea_files, registry):
    src = lea_files["lea128_neon_modes.c"]
    gcm = fragment("aead.c", P="lea128_neon", P_UP="LEA128_NEON", block_bytes=16, cmac_rb="0x87", default_isa="NULL")
    assert gcm in src  # aead.c verbatim, not a second copy of the modes
    assert fragment("ghash.c", pmull=True) in src and fragment("ghash_pmull.c") in src
    assert '{"pmull", CS_F_PMULL, 8, cs_ghash_pmull}' in src
    hight = dispatched_files(registry.module("hight"))[0]
    assert (
        "gcm" not in hight["hight_neon_modes.h"] and "hight_neon_cmac(" in hight["hight_neon_modes.h"]
    )  # 64-bit block


@pytest.mark.parametrize("cc", [["aarch64-linux-gnu-gcc"], ["clang", "--target=aarch64-linux-gnu"]])
def test_compiles_and_uses_pmull(lea_files, cc, tmp_path):
    require(cc[0], "aarch64-linux-gnu-objdump")
    for name, text in lea_files.items():
        (tmp_path / name).write_text(text)
    obj = tmp_path / "modes.o"
    r = subprocess.run(
        [
            *cc,
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unused-function",
            "-Wno-unused-variable",  # aead.c's x86-only `wide` in gcm_init
            "-c",
            "-o",
            str(obj),
            "lea128_neon_modes.c",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    dis = subprocess.run(["aarch64-linux-gnu-objdump", "-d", str(obj)], capture_output=True, text=True).stdout
    ghash = dis.split("<cs_ghash_pmull>:", 1)[1].split("\n\n", 1)[0]
    assert "\tpmull\t" in ghash and "\tpmull2\t" in ghash
    for symbol in ("lea128_neon_gcm_encrypt", "lea128_neon_xts_decrypt", "lea128_neon_cmac", "lea128_neon_set_key"):
        assert f"<{symbol}>:" in dis
