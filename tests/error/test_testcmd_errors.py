"""`cipherspec test` refuses bad input in one line with exit status 2 (unknown target or cipher, a spec
that does not check, --require of a target whose tools are missing), and says in one line what a skipped
target needs.  Only the unknown-variant case builds a kernel (SPECK's s390x library: a second)."""

from __future__ import annotations

import io

import pytest
from paths import ROOT

from driver import cli

SPECK = str(ROOT / "examples" / "ciphers" / "speck.cs")


def _run(args, capsys):
    out = io.StringIO()
    rc = cli.run(["test", *args], out=out)
    return rc, out.getvalue(), capsys.readouterr().err


@pytest.mark.parametrize(
    "args,message",
    [
        ([SPECK, "--target", "sparc"], "unknown target 'sparc'"),
        ([SPECK, "--cipher", "speck64"], "unknown cipher 'speck64'"),
        ([SPECK, "--mode", "ofb"], "unknown mode 'ofb'"),
        ([SPECK, "--schedule", "speck128_128_c_scalar"], "give exactly one --target"),
        ([SPECK, "--iv", "00"], "give its --key too"),
        ([SPECK, "--key", "zz"], "not hexadecimal"),
        ([], "name spec files"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    rc, out, err = _run(args, capsys)
    assert rc == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_spec_without_a_cipher_and_an_unknown_variant(tmp_path, capsys):
    only_family = tmp_path / "family.cs"
    text = (ROOT / "examples" / "ciphers" / "speck.cs").read_text()
    only_family.write_text("\n".join(line for line in text.splitlines() if not line.startswith("cipher ")) + "\n")
    rc, out, err = _run([str(only_family)], capsys)
    assert rc == 2 and "no cipher to test" in err and len(err.strip().splitlines()) == 1, err
    rc, out, err = _run([SPECK, "--target", "c-s390x", "--variant", "avx9", "--mode", "ecb"], capsys)
    assert rc == 2 and "no kernel has the variant 'avx9' here" in err and len(err.strip().splitlines()) == 1, err


def test_a_spec_that_does_not_check(tmp_path, capsys):
    bad = tmp_path / "bad.cs"
    bad.write_text(
        "family f(rounds) {\n  block u32[4] little;\n  key u32[4] little;\n  encrypt(X, rk) { X[0] = Y; }\n}\n"
    )
    rc, out, err = _run([str(bad)], capsys)
    assert rc == 2 and out == ""
    assert str(bad) in err and "Traceback" not in err


def test_missing_tools_skip_in_one_line_and_require_fails(monkeypatch, capsys):
    import toolchain.tools

    real = toolchain.tools.shutil.which
    monkeypatch.setattr(toolchain.tools.shutil, "which", lambda t: None if t == "qemu-s390x" else real(t))
    rc, out, err = _run([SPECK, "--target", "c-s390x"], capsys)
    assert rc == 0, err
    assert (
        out.splitlines()[0] == "skip c-s390x: needs qemu-s390x (Debian: qemu-user; bash scripts/setup.sh installs them)"
    )
    assert "0 passed, 0 failed, 1 skipped" in out
    rc, out, err = _run([SPECK, "--target", "c-s390x", "--require", "c-s390x"], capsys)
    assert rc == 2 and out == ""
    assert err.strip() == (
        "cipherspec: error: --require c-s390x: needs qemu-s390x (Debian: qemu-user; bash scripts/setup.sh installs them)"
    )
