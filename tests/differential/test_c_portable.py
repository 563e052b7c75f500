"""A C library for a host that is not x86-64: built with aarch64-linux-gnu-gcc exactly as `cipherspec build`
plans it (the portable variant only: no x86 kernels, no CPUID), run under qemu-aarch64 with the ASan test's
harness (runtime/c_harness.c: every mode, in place, error codes) and compared with the interpreter."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from c_support import random_bytes, variant_lanes
from tools import require

from cipherspec import modes

CC, QEMU = "aarch64-linux-gnu-gcc", "qemu-aarch64"


@pytest.mark.parametrize("name", ["aes128", "aria128", "lea128", "cham64_128"])
def test_portable_library_under_qemu(registry, make_ref, name):
    require(CC, QEMU)
    from generator.c.build import plan
    from generator.c.harness import harness_program
    from generator.c.schedules import resolve
    from toolchain.cc import Toolchain

    module = registry.module(name)
    sched = resolve(module, None)
    tc = Toolchain(cc=CC, flags=("-std=c99", "-O2"), link_flags=("-static",))
    objs = plan(module, sched, tc).objects
    assert [o.args for o in objs if "CS_VARIANT" in " ".join(o.args)] == [("-DCS_VARIANT=portable",)]
    exe = harness_program(module, sched, "c_harness.c", tc)
    ref = make_ref(name)
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
