"""`cipherspec test`'s reports without building anything: the JUnit XML as a standard reader sees it, the
progress line (only on a terminal), the reproducer's command line, and the mode checks' verdicts."""

from __future__ import annotations

import io
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from driver.difftest.junit import write_junit
from driver.difftest.session import Progress, Result


def test_junit_is_read_back_by_a_standard_reader(tmp_path):
    results = [
        Result("sm4", "c", "sm4_c_bitsliced_v32", "avx2", "ctr", "passed", seconds=0.25, cases=30),
        Result("sm4", "c-s390x", "sm4_c_bitsliced_v32", "portable", "ecb", "failed", "ECB differs", "rerun: ..."),
        Result("sm4", "cuda", "-", None, "-", "skipped", "needs an NVIDIA GPU"),
        Result("present80", "neon", "present80_neon_b16_il1", None, "cbc", "passed"),
    ]
    path = tmp_path / "r.xml"
    write_junit(str(path), results, 1.5)
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("skipped"), root.get("errors")) == ("4", "1", "1", "0")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["sm4", "present80"]
    cases = root.findall(".//testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("sm4.c[avx2]", "sm4_c_bitsliced_v32 ctr"),
        ("sm4.c-s390x[portable]", "sm4_c_bitsliced_v32 ecb"),
        ("sm4.cuda", "- -"),
        ("present80.neon", "present80_neon_b16_il1 cbc"),
    ]
    failure = cases[1].find("failure")
    assert failure is not None and failure.get("message") == "ECB differs" and failure.text == "rerun: ..."
    assert cases[2].find("skipped") is not None and cases[0].get("time") == "0.250"


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_line_only_on_a_terminal():
    tty, pipe = _Tty(), io.StringIO()
    for stream in (tty, pipe):
        p = Progress(stream)
        p.show("sm4 neon sm4_neon_b4_il2 ctr")
        p.clear()
    assert tty.getvalue() == "\r\x1b[2Ksm4 neon sm4_neon_b4_il2 ctr\r\x1b[2K"
    assert pipe.getvalue() == ""


@pytest.mark.parametrize("name", ["lea128", "logic_u32"])
def test_mode_checks_name_the_first_wrong_block(name):
    """Each mode's check passes the right output and names the first wrong block of a corrupted one -- also for a
    conformance spec whose decrypt does not invert its encrypt (logic_u32: CBC encryption is checked against the
    target's own chain, not through the interpreter's decryption)."""
    from cipherspec import modes
    from cipherspec.registry import Registry
    from driver.difftest.cases import case
    from driver.difftest.modes import mode_checks
    from driver.targets import make_cipher

    reg = Registry()
    reg.add_file(str(Path(__file__).parents[1] / "conformance" / "logic.cs"))
    ref = make_cipher(reg, name)
    c = case(1, bytes(range(16)), bytes(16), 5 * 16 + 3, "test")
    rk = ref.expand_key(c.key)
    whole = c.data[: 5 * 16]
    inverts = modes.cbc_decrypt(ref, rk, c.iv, modes.cbc_encrypt(ref, rk, c.iv, whole)) == whole
    assert inverts == (name == "lea128")  # (logic_u32's decrypt is another function: both are compared)
    for mode, check in mode_checks().items():
        for r in check.requests(ref, rk, c):
            right = r.expected if r.expected is not None else modes.cbc_encrypt(ref, rk, r.iv, r.data)
            assert check.first_bad(ref, rk, r, right) is None, (mode, r.op)
            wrong = bytearray(right)
            wrong[3 * 16 + 2] ^= 1
            assert check.first_bad(ref, rk, r, bytes(wrong)) == 3, (mode, r.op)
            fn, block = check.block_call(ref, rk, r, bytes(wrong), 3)
            assert fn in ("encrypt", "decrypt") and len(block) == 16


def test_reproducer_reruns_one_case():
    from driver.difftest.cases import case
    from driver.difftest.session import Options, Session
    from driver.difftest.targets import Unit

    s = Session.__new__(Session)
    s.opts = Options(specs=["my spec.cs"], seed=9)
    u = Unit("c-s390x", "x_c_scalar", "portable", 1)
    line = s.reproducer("x", u, "ctr", case(9, b"\x01" * 16, b"\x02" * 16, 17, "t"))
    assert shlex.split(line) == [
        "cipherspec", "test", "my spec.cs", "--cipher", "x", "--target", "c-s390x", "--schedule", "x_c_scalar",
        "--variant", "portable", "--mode", "ctr", "--seed", "9", "--key", "01" * 16, "--iv", "02" * 16,
        "--length", "17",
    ]  # fmt: skip
