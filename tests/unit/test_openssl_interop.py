"""`cipherspec encrypt/decrypt` against `openssl enc`, byte for byte, both ways: AES-128 and ARIA-128 in
ECB and CBC (PKCS#7 padding, and -nopad / --no-pad) and CTR, with -K/-iv hex; inputs of 0..1000 bytes cut
into 48-byte chunks, so padding and chaining cross chunk boundaries."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess

import pytest
from tools import require

from driver import cli

KEY = "000102030405060708090a0b0c0d0e0f"
IV = "f0e0d0c0b0a090807060504030201000"
CASES = [
    (cipher, mode, pad)
    for cipher in ("aes128", "aria128")
    for mode, pad in (("ecb", True), ("ecb", False), ("cbc", True), ("cbc", False), ("ctr", False))
]


def openssl(cipher: str, mode: str, pad: bool, decrypt: bool, src, dest) -> None:
    name = {"aes128": "aes-128", "aria128": "aria-128"}[cipher] + f"-{mode}"
    args = [require("openssl")["openssl"], "enc", f"-{name}", "-K", KEY, "-in", str(src), "-out", str(dest)]
    args += [] if mode == "ecb" else ["-iv", IV]
    args += [] if pad else ["-nopad"]
    args += ["-d"] if decrypt else []
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr


def ours(cipher: str, mode: str, pad: bool, decrypt: bool, src, dest) -> None:
    args = ["decrypt" if decrypt else "encrypt", cipher, "--mode", mode, "--key", KEY, "-i", str(src), "-o", str(dest)]
    args += [] if mode == "ecb" else ["--iv", IV]
    args += [] if pad or mode == "ctr" else ["--no-pad"]
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.run(args, io.StringIO()) == 0, err.getvalue()


@pytest.mark.parametrize("cipher,mode,pad", CASES, ids=[f"{c}-{m}-{'pad' if p else 'nopad'}" for c, m, p in CASES])
def test_same_bytes_as_openssl_enc(tmp_path, monkeypatch, cipher, mode, pad):
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "48")
    src, theirs, mine, back = (tmp_path / n for n in ("in", "theirs", "mine", "back"))
    lengths = (0, 1, 15, 16, 17, 49, 1000) if pad or mode == "ctr" else (0, 16, 64, 992)
    for n in lengths:
        data = os.urandom(n)
        src.write_bytes(data)
        openssl(cipher, mode, pad, False, src, theirs)
        ours(cipher, mode, pad, False, src, mine)
        assert mine.read_bytes() == theirs.read_bytes(), n
        ours(cipher, mode, pad, True, theirs, back)  # we decrypt openssl's ciphertext
        assert back.read_bytes() == data, n
