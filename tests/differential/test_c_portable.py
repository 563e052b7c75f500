"""A C library for a host that is not x86-64: built with a cross compiler exactly as `cipherspec build` plans
it (the portable variant only: no x86 kernels, no CPUID), run under QEMU with runtime/c_harness.c (every
mode, in place, error codes) and compared with the interpreter -- through `cipherspec test --target
c-aarch64 / c-s390x`.  s390x is big-endian: a byte-order slip in a load, a store or a counter shows there;
CI runs it for the 32-bit and 16-bit word ARX ciphers (their cross builds are seconds; AES's and ARIA's
bitsliced fallbacks take longer: CIPHERSPEC_FULL_MATRIX=1 runs them too)."""

from __future__ import annotations

import io

import pytest
from ci_scope import full_matrix
from paths import ROOT
from tools import require

from cipherspec.registry import Registry
from driver import cli, testcmd

CASES = [
    ("aes128", ["c-aarch64"] + ["c-s390x"] * full_matrix()),
    ("aria128", ["c-aarch64"] + ["c-s390x"] * full_matrix()),
    ("lea128", ["c-aarch64", "c-s390x"]),
    ("cham64_128", ["c-aarch64", "c-s390x"]),
    ("speck128_128", ["c-aarch64"]),  # the example spec: 64-bit ARX words in interleaved 16-byte lane groups
]
TOOLS = {"c-aarch64": ("aarch64-linux-gnu-gcc", "qemu-aarch64"), "c-s390x": ("s390x-linux-gnu-gcc", "qemu-s390x")}


@pytest.mark.parametrize("name,targets", CASES, ids=[n for n, _ in CASES])
def test_portable_library_under_qemu(registry, name, targets):
    for t in targets:
        require(*TOOLS[t])
    from generator.c.build import plan
    from generator.c.schedules import resolve
    from toolchain.cross import ARCHES, toolchain_for

    if name not in registry.names():
        registry = Registry(extra=[ROOT / "examples" / "ciphers" / "speck.cs"])
    module = registry.module(name)
    for t in targets:
        objs = plan(module, resolve(module, None), toolchain_for(ARCHES[t.removeprefix("c-")])).objects
        assert [o.args for o in objs if "CS_VARIANT" in " ".join(o.args)] == [("-DCS_VARIANT=portable",)]
    out = io.StringIO()
    args = cli.build_parser("test").parse_args(["test", "--cipher", name, "--target", *targets, "--require", *targets])
    assert testcmd.cmd_test(args, out, registry) == 0, out.getvalue()
    assert out.getvalue().count("PASS ") == len(targets), out.getvalue()
