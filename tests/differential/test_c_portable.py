"""A C library for a host that is not x86-64: built with aarch64-linux-gnu-gcc exactly as `cipherspec build`
plans it (the portable variant only: no x86 kernels, no CPUID), run under qemu-aarch64 with the ASan test's
harness (tests/data/c_harness.c: every mode, in place, error codes) and compared with the interpreter.
SPECK-128/128 (the example spec) covers 64-bit ARX words: interleaved lane groups on 16-byte vectors
(generator/c/lanes64.py's portable plan)."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from c_support import random_bytes, variant_lanes
from paths import ROOT
from tools import require

from cipherspec import modes
from cipherspec.registry import Registry
from driver.targets import make_cipher

CC, QEMU = "aarch64-linux-gnu-gcc", "qemu-aarch64"
EXAMPLES = Registry(extra=[ROOT / "examples" / "ciphers" / "speck.cs"])


@pytest.mark.parametrize("name", ["aes128", "aria128", "lea128", "cham64_128", "speck128_128"])
def test_portable_library_under_qemu(registry, name):
    require(CC, QEMU)
    from generator.c.build import build_program, plan
    from generator.c.schedules import resolve
    from toolchain.cc import Toolchain

    reg = registry if name in registry.names() else EXAMPLES
    module = reg.module(name)
    sched = resolve(module, None)
    tc = Toolchain(cc=CC, flags=("-std=c99", "-O2"), link_flags=("-static",))
    objs = plan(module, sched, tc).objects
    assert [o.args for o in objs if "CS_VARIANT" in " ".join(o.args)] == [("-DCS_VARIANT=portable",)]
    defs = [
        f"-DCS_CIPHER={name}",
        f"-DCS_KEY_BYTES={module.key.nbytes}",
        f"-DCS_BLOCK_BYTES={module.block.nbytes}",
        "-include",
        f"{name}.h",
    ]
    exe = build_program(module, sched, {"harness.c": (ROOT / "tests" / "data" / "c_harness.c").read_text()}, tc, defs)
    ref = make_cipher(reg, name, None, "ref")
    B = module.block.nbytes
    n = variant_lanes(module, sched, "portable")
    rng = np.random.default_rng(11)
    for length in (0, B + 3, (n + 1) * B + 5):
        key, iv, data = random_bytes(rng, module.key.nbytes), random_bytes(rng, B), random_bytes(rng, length)
        p = subprocess.run([QEMU, str(exe)], input=key + iv + data, capture_output=True, timeout=600)
        assert p.returncode == 0 and p.stderr == b"", p.stderr.decode(errors="replace")[-2000:]
        whole = data[: length - length % B]
        rr = ref.expand_key(key)
        out = p.stdout
        assert out[: len(whole)] == modes.ecb_encrypt(ref, rr, whole)
        assert out[len(whole) : 2 * len(whole)] == modes.ecb_decrypt(ref, rr, whole)
        assert out[3 * len(whole) : 4 * len(whole)] == modes.cbc_decrypt(ref, rr, iv, whole)
        assert (out[4 * len(whole) : 4 * len(whole) + length], out[-B:]) == modes.ctr(ref, rr, iv, data)
