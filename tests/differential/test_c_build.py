"""The C build: `cipherspec build` output (layout, determinism, linking through pkg-config), in-place
calls, the plain-array fallback (no vector extensions) against the interpreter, origin comments."""

from __future__ import annotations

import ctypes
import filecmp
import os
import subprocess

import numpy as np
import pytest
from c_support import block_counts, check_modes, random_bytes
from ci_scope import full_matrix
from tools import require

from cipherspec import modes
from driver import cli

PROGRAM = r"""
#include <stdio.h>
#include <lea128.h>
int main(void)
{
    lea128_key ks;
    uint8_t key[16], iv[16], buf[40];
    int i;
    for (i = 0; i < 16; i++) { key[i] = (uint8_t)i; iv[i] = (uint8_t)(0xf0 + i); }
    for (i = 0; i < 40; i++) buf[i] = (uint8_t)(3 * i);
    if (lea128_set_key(&ks, key, sizeof key) != CIPHERSPEC_OK) return 1;
    if (lea128_ctr(&ks, iv, buf, buf, sizeof buf) != CIPHERSPEC_OK) return 2;
    for (i = 0; i < 40; i++) printf("%02x", buf[i]);
    printf(" ");
    for (i = 0; i < 16; i++) printf("%02x", iv[i]);
    printf("\n");
    return 0;
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / "out"
    assert cli.run(["build", "lea128", "hight", "--target", "c", "-o", str(out)]) == 0
    return out


def test_build_layout(built):
    for name in ("lea128", "hight"):
        for rel in (
            f"include/{name}.h",
            f"src/{name}.c",
            f"lib/lib{name}.a",
            f"lib/lib{name}.so",
            f"lib/pkgconfig/{name}.pc",
        ):
            assert (built / rel).is_file(), rel
        members = subprocess.run(
            ["ar", "t", str(built / "lib" / f"lib{name}.a")], capture_output=True, text=True, check=True
        ).stdout.split()
        assert len(members) == len(set(members)) > 2, members  # dispatcher + kernels, `ar x` gets every one


def test_build_is_deterministic(built, tmp_path):
    again = tmp_path / "again"
    assert cli.run(["build", "lea128", "hight", "--target", "c", "-o", str(again)]) == 0
    for sub in ("include", "src", "lib/pkgconfig"):
        cmp = filecmp.dircmp(built / sub, again / sub)
        assert sorted(cmp.common_files) == sorted(os.listdir(built / sub))
        assert not cmp.diff_files and not cmp.left_only and not cmp.right_only
        _, mismatch, errors = filecmp.cmpfiles(built / sub, again / sub, cmp.common_files, shallow=False)
        assert not mismatch and not errors


@pytest.mark.parametrize("link", ["static", "shared"])
def test_link_through_pkg_config(built, tmp_path, make_ref, link):
    require("pkg-config", "cc")
    env = dict(os.environ, PKG_CONFIG_PATH=str(built / "lib" / "pkgconfig"))
    flags = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "lea128"], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    src = tmp_path / "prog.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "prog"
    extra = ["-static"] if link == "static" else [f"-Wl,-rpath,{built / 'lib'}"]
    subprocess.run(["cc", str(src), *flags, *extra, "-o", str(exe)], check=True)
    got_ct, got_iv = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    ref = make_ref("lea128")
    want_ct, want_iv = modes.ctr(
        ref, ref.expand_key(bytes(range(16))), bytes(range(0xF0, 0x100)), bytes(3 * i for i in range(40))
    )
    assert (got_ct, got_iv) == (want_ct.hex(), want_iv.hex())


@pytest.mark.parametrize(
    "name,schedule",
    [("lea128", "sliced_v32"), ("aria128", "sliced_v16"), ("pipo64_128", "scalar"), ("cham64_128", "sliced_v32")],
)
def test_in_place(registry, name, schedule):
    """in == out gives the same result as separate buffers, for every mode."""
    from generator.c import BACKEND

    make_cipher = BACKEND.load

    c = make_cipher(registry, name, None, schedule)
    rng = np.random.default_rng(11)
    B = c.block_bytes
    rk = c.expand_key(random_bytes(rng, c.key_bytes))
    iv = random_bytes(rng, B)
    data = random_bytes(rng, 70 * B)
    f = lambda s: getattr(c.lib, f"{name}_{s}")  # noqa: E731
    n = ctypes.c_size_t(len(data))
    for mode in ("ecb_encrypt", "ecb_decrypt", "cbc_encrypt", "cbc_decrypt", "ctr"):
        buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        ivb = (ctypes.c_uint8 * B).from_buffer_copy(iv)
        rkp = ctypes.c_void_p(ctypes.addressof(rk))  # the key struct: a ctypes array
        rc = f(mode)(rkp, buf, buf, n) if mode.startswith("ecb") else f(mode)(rkp, ivb, buf, buf, n)
        assert rc == 0
        kind, _, direction = mode.partition("_")
        want = modes.run_mode(c, rk, kind, direction or "encrypt", data, iv)
        assert bytes(buf) == want, mode


# u32 and u8 words in CI; the u16 words and AES's fused tables (the slowest plain-array builds: 1-2 min each
# on an empty cache) with CIPHERSPEC_FULL_MATRIX=1
PLAIN_ARRAY = [("lea128", "sliced_v32"), ("hight", "sliced_v16")]
PLAIN_ARRAY += [("aes128", "sliced_tfused_v16"), ("cham64_128", "sliced_v32")] if full_matrix() else []


@pytest.mark.parametrize("name,schedule", PLAIN_ARRAY)
def test_plain_array_fallback(registry, make_ref, name, schedule):
    """The same source with CS_NO_VECTOR_EXT (plain C arrays instead of vector extensions)."""
    from generator.c.build import build_shared
    from generator.c.schedules import lanes, parse_schedule
    from runtime.c_target import CCipher

    module = registry.module(name)
    sched = parse_schedule(module, schedule)
    lib = build_shared(registry.module(name), sched, extra_args=["-DCS_NO_VECTOR_EXT"])
    c = CCipher(module, sched, lib)
    ref = make_ref(name)
    rng = np.random.default_rng(5)
    key, iv = random_bytes(rng, c.key_bytes), random_bytes(rng, c.block_bytes)
    for blocks in block_counts(lanes(module, sched)):
        check_modes(c, ref, key, iv, random_bytes(rng, blocks * c.block_bytes + 3))


def test_every_core_statement_has_its_origin(registry):
    from generator.c.schedules import parse_schedule
    from generator.c.source import generate

    module = registry.module("aria128")
    text = generate(module, parse_schedule(module, "sliced_v16"))["src/aria128_sliced_v16.c"]
    stmts = [
        ln
        for ln in text.splitlines()
        if ln.lstrip().startswith("const ")
        and ln.rstrip().endswith("*/")
        or ln.lstrip().startswith("const cs_v")
        or ln.lstrip().startswith("const uint")
    ]
    assert len(stmts) > 2000  # the core's pieces (split.py re-rolls equal rounds) and the block transposition
    for ln in stmts:
        assert "/* aria.cs:" in ln or "/* key word" in ln or "/* block word" in ln or "/* block transposition" in ln, ln
    assert "NOT constant-time: secret-indexed tables SB1, SB2, SB3, SB4" in text
