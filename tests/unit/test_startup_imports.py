"""What `cipherspec encrypt` imports when its library is already known (driver/quickload.py's hit): ctypes
and the streaming path, not the compiler.  numpy, lark, Jinja, rich and the spec front end cost ~0.5 s of
start-up (bench/results/cli.md); this guards against one of them creeping back in through an import.

No timing here: the command runs under ``python -X importtime`` and the test reads the modules it
imported from that report.  The same check on --target ref (which must parse the specs) shows that the
report sees them."""

from __future__ import annotations

import os
import subprocess
import sys

from paths import ROOT

from driver.quickload import load_cipher

HEAVY = ("numpy", "lark", "jinja2", "rich", "generator", "cipherspec.parse", "cipherspec.registry", "cipherspec.modes")
KEY, IV = bytes(range(16)).hex(), bytes(range(16, 32)).hex()


def imported(*args: str, stdin: bytes = b"") -> tuple[set[str], bytes]:
    """The modules `python -X importtime -m driver ARGS` imports, and its output."""
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "driver", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=300,
    )
    report = p.stderr.decode()
    assert p.returncode == 0, report[-2000:]
    lines = [line for line in report.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}, p.stdout  # [0]: the header line


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY)


def test_a_known_library_starts_without_the_compiler():
    c = load_cipher([], "lea128")  # the entry exists now (built first on an empty cache)
    data = bytes(range(256)) * 3
    modules, out = imported("encrypt", "lea128", "--mode", "ctr", "--key", KEY, "--iv", IV, stdin=data)
    assert "runtime.c_library" in modules and "driver.quickload" in modules  # the hit path ran
    assert heavy(modules) == [], f"the quickload path imported {heavy(modules)}"
    buf, iv = bytearray(data), bytearray.fromhex(IV)
    c.crypt_into(c.expand_key(bytes.fromhex(KEY)), "ctr", "encrypt", buf, len(buf), iv)
    assert out == bytes(buf)


def test_the_report_sees_the_compiler():
    modules, out = imported("encrypt", "lea128", "--mode", "ctr", "--key", KEY, "--iv", IV, "--target", "ref")
    assert out == b"" and {"numpy", "lark", "cipherspec.parse", "cipherspec.registry"} <= set(heavy(modules))


def test_drbg_starts_without_the_compiler(tmp_path):
    """`cipherspec drbg` on the C target: the library's own CTR_DRBG through ctypes, no numpy (the limits and
    the choice of implementation live in cipherspec.drbg_limits)."""
    load_cipher([], "lea128")
    entropy = tmp_path / "entropy"
    entropy.write_bytes(bytes(range(32)))
    args = ("drbg", "lea128", "--entropy-file", str(entropy), "--nonce", "00" * 8, "--bytes", "100", "--hex")
    modules, out = imported(*args)
    assert "runtime.c_drbg" in modules, "the C library's DRBG did not run"
    assert heavy(modules) == [], f"cipherspec drbg imported {heavy(modules)}"
    _, reference = imported(*args, "--target", "ref")  # the Python DRBG over the interpreter
    assert len(out.strip()) == 200 and out == reference
