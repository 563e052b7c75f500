"""Bad input to the openssl-provider target: one-line exit-2 errors from `cipherspec build`, nothing
half-written; a missing OpenSSL 3 toolchain named with what to install.  (What the provider itself
refuses through EVP -- bad key/IV lengths and params, bad padding, calls before a key -- is checked in
tests/differential/test_openssl_provider.py against OpenSSL's own ciphers.)"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest
from paths import TOY_SPEC

from driver import cli


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = cli.run(argv, out)
    return rc, out.getvalue(), err.getvalue()


# a 12-byte block: no bitsliced schedule (every shipped spec has one now)
W96 = (
    "family w(rounds) { block u32[3] little; key u32[3] little;\n"
    "  key_schedule(K) -> rk: u32[rounds][3] { for i in 0..rounds { rk[i] = K; } }\n"
    "  encrypt(X, rk) { X = X ^ rk[0]; } decrypt(X, rk) { X = X ^ rk[0]; } }\n"
    "cipher w96 = w(rounds = 1);\n"
)


@pytest.fixture(scope="module")
def w96_spec(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("spec") / "w96.cs"
    path.write_text(W96)
    return str(path)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["build", "nope", "--target", "openssl-provider"], "unknown cipher 'nope'"),
        (
            ["build", "lea128", "--target", "openssl-provider", "--schedule", "sliced_v8"],
            "param v must be one of 16, 32",
        ),
        (
            [
                "build",
                "--spec",
                "{w96}",
                "w96",
                "aria128",
                "--target",
                "openssl-provider",
                "--schedule",
                "bitsliced_v32",
            ],
            "schedule bitsliced is not available for w96: a 12-byte block",
        ),
    ],
)
def test_build_bad_input(tmp_path, w96_spec, argv, message):
    argv = [a.format(w96=w96_spec) for a in argv]
    dest = tmp_path / "out"
    rc, _, err = _cli(argv + ["-o", str(dest)])
    assert rc == 2 and message in err and len(err.splitlines()) == 1, err
    assert not dest.exists() and list(tmp_path.iterdir()) == []


def test_two_ciphers_with_one_openssl_name_are_refused(tmp_path):
    spec = tmp_path / "twins.cs"
    spec.write_text(
        TOY_SPEC.read_text().replace(
            "cipher toy4 = toy(rounds = 4);", "cipher toy4 = toy(rounds = 4);\ncipher toy_4 = toy(rounds = 5);"
        )
    )
    dest = tmp_path / "out"
    rc, _, err = _cli(["build", "--spec", str(spec), "toy4", "toy_4", "--target", "openssl-provider", "-o", str(dest)])
    assert rc == 2 and "ciphers toy4 and toy_4 both become OpenSSL's TOY-4-*" in err and len(err.splitlines()) == 1
    assert not dest.exists()


def test_missing_openssl_headers_is_one_line(tmp_path):
    """A C compiler that cannot see OpenSSL 3's headers: a ToolError naming libssl-dev, exit 2."""
    fake_cc = tmp_path / "cc"
    fake_cc.write_text(
        "#!/bin/sh\necho 'fatal error: openssl/core_dispatch.h: No such file or directory' >&2\nexit 1\n"
    )
    fake_cc.chmod(0o755)
    import os

    env = dict(os.environ, CC=str(fake_cc))
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "driver",
            "build",
            "lea128",
            "--target",
            "openssl-provider",
            "-o",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and "OpenSSL 3 headers" in p.stderr and "libssl-dev" in p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "out").exists()
