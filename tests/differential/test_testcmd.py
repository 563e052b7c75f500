"""`cipherspec test` catches a miscompiled kernel, says how to rerun the one failing case, and locates the
first IR value that differs at its spec location; its JUnit XML is read back with xml.etree.

The miscompilation is injected (generator.c.body.injected_fault: one xor of SPECK's round 5 emitted as an
or) into the C library, natively and cross-built for s390x (big-endian: the traced build runs under QEMU
too).  SPECK's libraries build in about a second."""

from __future__ import annotations

import io
import shlex
import xml.etree.ElementTree as ET

import pytest
from paths import ROOT
from tools import require

from cipherspec.registry import Registry
from driver import cli

SPECK = str(ROOT / "examples" / "ciphers" / "speck.cs")
NAME = "speck128_128"


def _faulty_op() -> tuple[int, str]:
    """A xor of round 5 in the C library's encrypt, and its spec location (line:col)."""
    from generator.c.prepare import prepare
    from generator.c.schedules import resolve

    module = Registry(extra=[SPECK]).module(NAME)
    fn = prepare(module, resolve(module, None)).functions["encrypt"]
    i = next(i for i, op in enumerate(fn.ops) if op.code == "xor" and op.origin and op.origin.round == 5)
    origin = fn.ops[i].origin
    assert origin is not None
    return i, f"speck.cs:{origin.line}:{origin.col} encrypt round 5"


def _run(args):
    out = io.StringIO()
    return cli.run(["test", *args], out=out), out.getvalue()


def test_a_miscompiled_kernel_is_caught_located_and_reproduced(tmp_path):
    require("s390x-linux-gnu-gcc", "qemu-s390x")
    from generator.c.body import injected_fault

    index, where = _faulty_op()
    junit = tmp_path / "report.xml"
    with injected_fault("encrypt", index):
        rc, out = _run([SPECK, "--target", "c", "c-s390x", "--mode", "ctr", "--junit", str(junit)])
    assert rc == 1, out
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    assert fails and all("CTR!" in line for line in fails), out
    assert any("c-s390x[portable]" in line for line in fails), out
    assert f"first differing IR value: encrypt %{index} = xor.u64" in out
    assert f"at {where}" in out.replace("examples/ciphers/", "").replace(str(ROOT) + "/", "")

    # JUnit: one test case per cipher x target x schedule x mode, the failures carrying the reproducer
    root = ET.parse(junit).getroot()
    cases = root.findall(".//testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    assert root.tag == "testsuites" and int(root.get("failures", "-1")) == len(failed) > 0
    assert {c.get("classname") for c in failed} >= {f"{NAME}.c-s390x[portable]"}
    assert all(c.get("name", "").endswith(" ctr") for c in cases)
    text = failed[0].find("failure").text or ""
    rerun = next(line for line in text.splitlines() if line.startswith("rerun: cipherspec test "))

    # the reproducer runs just that case: it fails with the fault, passes without
    args = shlex.split(rerun.removeprefix("rerun: cipherspec test "))
    assert "--key" in args and "--iv" in args and "--length" in args and "--schedule" in args
    with injected_fault("encrypt", index):
        rc, out = _run([*args, "--junit", str(junit)])
    assert rc == 1 and len(ET.parse(junit).getroot().findall(".//testcase")) == 1, out
    assert f"encrypt %{index} = xor.u64" in out
    rc, out = _run(args)
    assert rc == 0 and "1 passed, 0 failed" in out, out


def test_the_traced_build_agrees_on_a_correct_kernel():
    """Without a fault, every value of the traced build equals the interpreter's: the locator then says
    the fault is below the IR (what it says for a NEON or CUDA kernel's own bug)."""
    from driver.difftest.locate import locate
    from driver.difftest.targets import native_trace
    from generator.c.schedules import resolve

    module = Registry(extra=[SPECK]).module(NAME)
    lines = locate(module, native_trace(module, resolve(module, None)), bytes(range(16)), "decrypt", bytes(16))
    assert len(lines) == 1 and "agrees with the interpreter" in lines[0], lines


@pytest.mark.parametrize("depth", ["quick", "full"])
def test_cases_cross_lane_groups_and_counter_carries(depth):
    from driver.difftest.cases import cases

    got = cases(7, NAME, 16, 16, lanes=32, depth=depth)
    lengths = {len(c.data) for c in got if not c.counter}
    assert {0, 16, 31 * 16, 32 * 16, 33 * 16, 65 * 16, 32 * 16 - 1, 32 * 16 + 1} <= lengths
    carries = [int.from_bytes(c.iv, "big") for c in got if c.counter]
    for k in (32, 64, 128):
        assert any((iv % (1 << k)) == (1 << k) - 1 for iv in carries), k
    assert cases(7, NAME, 16, 16, 32, depth) == got  # the seed decides everything


def test_a_wrong_pass_is_named(monkeypatch):
    """A C pass that changes a result (one xor of encrypt turned into an or): the traced build agrees with
    the interpreter on the IR it was given, so the locator replays the passes and names the wrong one."""
    from dataclasses import replace

    import generator.c.prepare
    import generator.c.trace
    from cipherspec.pipeline import Pass
    from driver.difftest.locate import locate
    from driver.difftest.targets import native_trace
    from generator.c.schedules import resolve

    def flip(fn, tables):
        if fn.name != "encrypt":
            return fn
        i = next(i for i, op in enumerate(fn.ops) if op.code == "xor")
        return fn.copy_with([replace(op, code="or") if j == i else op for j, op in enumerate(fn.ops)], fn.outputs)

    real = generator.c.prepare.c_passes
    monkeypatch.setattr(generator.c.prepare, "c_passes", lambda s: (*real(s), Pass("flip", flip)))
    monkeypatch.setattr(generator.c.trace, "c_passes", generator.c.prepare.c_passes)
    module = Registry(extra=[SPECK]).module(NAME)
    block = bytes(range(16, 32))
    lines = locate(module, native_trace(module, resolve(module, None)), bytes(range(16)), "encrypt", block)
    assert len(lines) == 1 and "the pass 'flip' changed it" in lines[0], lines
