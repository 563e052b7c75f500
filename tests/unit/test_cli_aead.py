"""`cipherspec encrypt/decrypt --mode gcm|ccm|xts` and `cipherspec mac --mode cmac` as file tools: the bytes
against the `cryptography` package (OpenSSL), across chunk boundaries (a tag split between chunks), a
wrong tag leaving -o FILE untouched and stdout empty, CCM from a pipe, XTS sectors.

The commands run in this process (driver.cli.run) on the interpreter, with the cipher taken from the
session's registry (loading it anew costs ~0.5 s a command); a few run as real processes, and the C
target is checked once against the interpreter (natively once the C library has the modes)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM
from fd0 import on_fd0
from paths import ROOT

from cipherspec import aead
from driver import aeadcmd, cli

KEY = bytes(range(16))
K = KEY.hex()
XKEY = KEY + bytes(range(0xF0, 0x100))
NONCE = bytes.fromhex("cafebabefacedbaddecaf888")


_C: dict = {}


def c_aes():
    """aes128 on the C target, made once (generating its C costs seconds even when the build is cached)."""
    if not _C:
        from shipped import shipped_registry

        from driver.targets import make_cipher

        _C["aes128"] = make_cipher(shipped_registry(), "aes128", None, "c")
    return _C["aes128"]


@pytest.fixture
def run(make_ref, monkeypatch, tmp_path, capfdbinary):
    """(status, stdout bytes, stderr text) of `cipherspec ARGS` with ``stdin`` on fd 0; target ref by default.
    The cipher objects come from this session (ref: the shared registry's; c: aes128's CCipher)."""
    real = aeadcmd.load_cipher

    def load(specs, name, rounds=None, target="c", schedule=None):
        if target == "ref" and not specs:
            return make_ref(name, rounds)
        if target == "c" and name == "aes128" and not specs and rounds is None and schedule is None:
            return c_aes()
        return real(specs, name, rounds, target, schedule)

    monkeypatch.setattr(aeadcmd, "load_cipher", load)

    def run(args, stdin=b"", target="ref"):
        """``stdin``: bytes put on fd 0 as a file, or None: fd 0 as the caller left it."""
        if stdin is None:
            rc = cli.run([*args, "--target", target])
        else:
            (tmp_path / "stdin").write_bytes(stdin)
            with on_fd0(tmp_path / "stdin"):
                rc = cli.run([*args, "--target", target])
        cap = capfdbinary.readouterr()
        return rc, cap.out, cap.err.decode()

    return run


def gcm_args(direction, *extra):
    return [direction, "aes128", "--mode", "gcm", "--key", K, "--iv", NONCE.hex(), *extra]


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 100])
def test_gcm_round_trip_across_chunks(run, monkeypatch, n):
    """32-byte chunks: the 16-byte tag of a decryption falls inside a chunk, across two, or alone."""
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "32")
    pt, aad = os.urandom(n), os.urandom(n % 7)
    rc, ct, err = run(gcm_args("encrypt", "--aad", aad.hex()), pt)
    assert rc == 0, err
    assert ct == AESGCM(KEY).encrypt(NONCE, pt, aad)
    rc, out, err = run(gcm_args("decrypt", "--aad", aad.hex()), ct)
    assert (rc, out) == (0, pt), err


def test_gcm_other_iv_length_tag_length_and_aad_file(run, tmp_path):
    iv, pt = bytes(range(20)), b"some plaintext of 30 bytes...."
    (tmp_path / "aad").write_bytes(b"header")
    rc, ct, err = run(
        [
            "encrypt",
            "aes128",
            "--mode",
            "gcm",
            "--key",
            K,
            "--iv",
            iv.hex(),
            "--tag-len",
            "12",
            "--aad-file",
            str(tmp_path / "aad"),
        ],
        pt,
    )
    e = Cipher(algorithms.AES(KEY), modes.GCM(iv)).encryptor()
    e.authenticate_additional_data(b"header")
    assert (rc, ct) == (0, e.update(pt) + e.finalize() + e.tag[:12]), err


def test_gcm_nonce_from_a_file(run, tmp_path):
    (tmp_path / "raw").write_bytes(NONCE)  # 12 raw bytes
    (tmp_path / "hex").write_text(NONCE.hex() + "\n")
    want = AESGCM(KEY).encrypt(NONCE, b"x", None)
    for name in ("raw", "hex"):
        rc, ct, err = run(["encrypt", "aes128", "--mode", "gcm", "--key", K, "--iv-file", str(tmp_path / name)], b"x")
        assert (rc, ct) == (0, want), err


def test_wrong_tag_leaves_the_output_file_untouched(run, tmp_path, monkeypatch):
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "32")
    ct = bytearray(AESGCM(KEY).encrypt(NONCE, bytes(200), None))
    ct[-1] ^= 1
    (tmp_path / "ct").write_bytes(ct)
    out = tmp_path / "plain.out"
    out.write_bytes(b"previous contents")
    rc, stdout, err = run(gcm_args("decrypt", "-i", str(tmp_path / "ct"), "-o", str(out)))
    assert rc == 2 and err == "cipherspec: error: authentication failed\n"
    assert out.read_bytes() == b"previous contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ct", "plain.out", "stdin"]  # no temporary file left


def test_wrong_tag_writes_nothing_to_stdout(run, monkeypatch):
    """Plaintext is held until the tag verifies, stdout included (seven chunks here)."""
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "32")
    ct = bytearray(AESGCM(KEY).encrypt(NONCE, bytes(200), b"a"))
    rc, out, err = run(gcm_args("decrypt", "--aad", "62"), bytes(ct))  # AAD "b", not "a"
    assert (rc, out) == (2, b"") and "authentication failed" in err
    rc, out, err = run(gcm_args("decrypt", "--aad", "61", "--hex"), bytes(ct).hex().encode())
    assert (rc, out) == (0, bytes(200).hex().encode() + b"\n"), err


@pytest.mark.parametrize("hexin", [False, True])
def test_ccm_round_trip(run, hexin):
    """From a regular file (its size) and from hex text (measured through a temporary file first)."""
    pt, aad = os.urandom(70), b"assoc"
    args = ["aes128", "--mode", "ccm", "--key", K, "--iv", NONCE[:11].hex(), "--tag-len", "8", "--aad", aad.hex()]
    want = AESCCM(KEY, tag_length=8).encrypt(NONCE[:11], pt, aad)
    rc, ct, err = run(["encrypt", *args, *(["--hex"] if hexin else [])], pt.hex().encode() if hexin else pt)
    assert rc == 0, err
    assert ct == (want.hex().encode() + b"\n" if hexin else want)
    rc, out, err = run(["decrypt", *args], want)
    assert (rc, out) == (0, pt), err
    rc, out, err = run(["decrypt", *args], want[:-1] + bytes([want[-1] ^ 0x80]))
    assert (rc, out) == (2, b"") and "authentication failed" in err


def test_ccm_from_a_pipe(run, monkeypatch):
    """Standard input is a pipe: CCM copies it to a temporary file to learn its length, then streams."""
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "512")
    pt = os.urandom(1500)
    r, w = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(w, pt), os.close(w)))
    writer.start()
    try:
        with on_fd0(r):
            rc, ct, err = run(["encrypt", "aes128", "--mode", "ccm", "--key", K, "--iv", NONCE.hex()], stdin=None)
    finally:
        os.close(r)
        writer.join()
    assert (rc, ct) == (0, AESCCM(KEY).encrypt(NONCE, pt, None)), err


def openssl_xts_sectors(key: bytes, first: int, data: bytes, sector: int) -> bytes:
    out = b""
    for i in range(0, len(data), sector):
        e = Cipher(algorithms.AES(key), modes.XTS((first + i // sector).to_bytes(16, "little"))).encryptor()
        out += e.update(data[i : i + sector]) + e.finalize()
    return out


@pytest.mark.parametrize("n,sector", [(1024, 512), (1000, 512), (530, 512), (112, 48), (96, 32)])
def test_xts_sectors_match_openssl(run, monkeypatch, n, sector):
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "64")
    data = os.urandom(n)
    first = 7
    args = [
        "aes128",
        "--mode",
        "xts",
        "--key",
        XKEY.hex(),
        "--iv",
        first.to_bytes(16, "little").hex(),
        "--sector-size",
        str(sector),
    ]
    rc, ct, err = run(["encrypt", *args], data)
    assert (rc, ct) == (0, openssl_xts_sectors(XKEY, first, data, sector)), err
    rc, out, err = run(["decrypt", *args], ct)
    assert (rc, out) == (0, data), err


def test_xts_refuses_a_short_last_sector_before_writing(run, tmp_path):
    (tmp_path / "in").write_bytes(bytes(520))
    out = tmp_path / "out"
    args = ["encrypt", "aes128", "--mode", "xts", "--key", XKEY.hex(), "--iv", "00" * 16]
    rc, stdout, err = run([*args, "-i", str(tmp_path / "in"), "-o", str(out)])
    assert rc == 2 and "its last sector would be 8 bytes, under the 16 XTS needs (--sector-size 512)" in err
    assert not out.exists() and stdout == b""


def test_mac(run):
    msg = bytes.fromhex("6bc1bee22e409f96e93d7e117393172a")  # SP 800-38B D.1, Example 2
    key = "2b7e151628aed2a6abf7158809cf4f3c"
    base = ["mac", "aes128", "--mode", "cmac", "--key", key]
    assert run(base, msg)[:2] == (0, b"070a16b46b4d4144f79bdd9dd04a287c\n")
    assert run([*base, "--tag-len", "4"], msg)[:2] == (0, b"070a16b4\n")
    assert run([*base, "--hex"], msg.hex().encode() + b"\n")[:2] == (0, b"070a16b46b4d4144f79bdd9dd04a287c\n")
    assert run([*base, "--verify", "070a16b46b4d4144f79bdd9dd04a287c"], msg)[:2] == (0, b"")
    assert run([*base, "--verify", "070a16b4"], msg)[:2] == (0, b"")  # a truncated tag
    rc, out, err = run([*base, "--verify", "070a16b46b4d4144f79bdd9dd04a287d"], msg)
    assert (rc, out, err) == (2, b"", "cipherspec: error: authentication failed\n")


def test_mac_over_a_64_bit_block(run, make_ref):
    c = make_ref("hight")
    rc, out, err = run(["mac", "hight", "--mode", "cmac", "--key", K], b"a 64-bit block cipher")
    assert (rc, out) == (0, aead.cmac(c, c.expand_key(KEY), b"a 64-bit block cipher").hex().encode() + b"\n"), err


def test_authentication_failure_as_a_process(tmp_path):
    """The exit status and the one line, from a real process (no traceback)."""
    ct = bytearray(AESGCM(KEY).encrypt(NONCE, b"attack at dawn", None))
    ct[0] ^= 1
    p = subprocess.run(
        [sys.executable, "-m", "driver", *gcm_args("decrypt"), "--target", "ref"],
        input=bytes(ct),
        capture_output=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
    )
    assert (p.returncode, p.stdout, p.stderr) == (2, b"", b"cipherspec: error: authentication failed\n")


# ---------------------------------------------------------------------------------------------- the C target
def test_c_target_matches_the_interpreter(run):
    """On --target c: natively once the C library has the modes, else the same definitions over its block
    function (either way the bytes of the oracle)."""
    pt = os.urandom(300)
    for args in (
        ["aes128", "--mode", "gcm", "--key", K, "--iv", NONCE.hex(), "--aad", "00ff"],
        ["aes128", "--mode", "ccm", "--key", K, "--iv", NONCE.hex()],
        ["aes128", "--mode", "xts", "--key", XKEY.hex(), "--iv", "00" * 16, "--sector-size", "128"],
    ):
        rc, want, err = run(["encrypt", *args], pt)
        assert rc == 0, err
        rc, got, err = run(["encrypt", *args], pt, target="c")
        assert (rc, got) == (0, want), err
        rc, back, err = run(["decrypt", *args], got, target="c")
        assert (rc, back) == (0, pt), err
    base = ["mac", "aes128", "--mode", "cmac", "--key", K]
    assert run(base, pt, target="c")[:2] == run(base, pt)[:2]


def test_the_quick_load_is_completed_when_the_mode_needs_the_block_function(monkeypatch):
    """The C fast start gives a ctypes-only library (no encrypt_blocks): a mode it lacks natively gets the
    full target object; one it has natively keeps the quick one."""
    import driver.targets

    made = []
    monkeypatch.setattr(driver.targets, "make_cipher", lambda *a: made.append(a) or "full")
    args = argparse.Namespace(spec=None, cipher="aes128", rounds=None, target="c", schedule=None)

    class Quick:
        pass

    class QuickWithGcm:
        def gcm_stream(self, rk, iv, direction):
            raise AssertionError("not called here")

    assert aeadcmd.load(args, "gcm", Quick()) == "full" and made[0][1:] == ("aes128", None, "c", None)
    quick = QuickWithGcm()
    assert aeadcmd.load(args, "gcm", quick) is quick and len(made) == 1


def _native_vs_oracle(method: str, c, ref) -> tuple:
    """(what the C method gives, what the oracle gives) for one method of the C target."""
    rk_c, rk_ref, pt = c.expand_key(KEY), ref.expand_key(KEY), bytes(range(100))
    ct, tag = aead.gcm_encrypt(ref, rk_ref, NONCE, b"aad", pt)
    cct, ctag = aead.ccm_encrypt(ref, rk_ref, NONCE, b"aad", pt, 8)
    xct = aead.xts_encrypt(ref, XKEY, bytes(16), pt[:37])
    cases = {
        "gcm_encrypt": lambda: (c.gcm_encrypt(rk_c, NONCE, b"aad", pt), (ct, tag)),
        "gcm_decrypt": lambda: (c.gcm_decrypt(rk_c, NONCE, b"aad", ct, tag), pt),
        "gmac": lambda: (c.gmac(rk_c, NONCE, pt, 12), aead.gmac(ref, rk_ref, NONCE, pt, 12)),
        "ccm_encrypt": lambda: (c.ccm_encrypt(rk_c, NONCE, b"aad", pt, 8), (cct, ctag)),
        "ccm_decrypt": lambda: (c.ccm_decrypt(rk_c, NONCE, b"aad", cct, ctag), pt),
        "xts_encrypt": lambda: (c.xts_encrypt(XKEY, bytes(16), pt[:37]), xct),
        "xts_decrypt": lambda: (c.xts_decrypt(XKEY, bytes(16), xct), pt[:37]),
        "cmac": lambda: (c.cmac(rk_c, pt, 16), aead.cmac(ref, rk_ref, pt)),
    }
    if method in cases:
        return cases[method]()
    if method == "gcm_stream":
        s = c.gcm_stream(rk_c, NONCE, "encrypt")
        s.aad(b"aad")
        return (s.update(pt[:33]) + s.update(pt[33:]), s.finish_encrypt(16)), (ct, tag)
    s = c.cmac_stream(rk_c)
    s.update(pt[:17])
    s.update(pt[17:])
    return s.finish(tag_len=16), aead.cmac(ref, rk_ref, pt)


@pytest.mark.parametrize(
    "method",
    [
        "gcm_encrypt",
        "gcm_decrypt",
        "gmac",
        "ccm_encrypt",
        "ccm_decrypt",
        "xts_encrypt",
        "xts_decrypt",
        "cmac",
        "gcm_stream",
        "cmac_stream",
    ],
)
def test_c_target_native_modes(make_ref, method):
    """The C library's own modes (issue 21's contract: the oracle's names, as methods), once it has them."""
    c = c_aes()
    if not aead.native(c, method):
        pytest.skip(
            f"the C library has no {method} yet (the command line runs the generic mode over its block function)"
        )
    got, want = _native_vs_oracle(method, c, make_ref("aes128"))
    assert got == want
