"""The Python API (cipherspec.load / build / kat): the C library equals the interpreter through it, and every
bad argument is an exception that names what was wrong."""

from __future__ import annotations

import pytest
from paths import VECTORS

import cipherspec
from cipherspec import AuthenticationError, KatError, UsageError

KEY = bytes(range(16))
IV = bytes(range(100, 116))
DATA = bytes(range(256)) * 3 + b"tail"


@pytest.fixture(scope="module")
def lea():
    return cipherspec.load("lea128"), cipherspec.load("lea128", target="ref")


def test_the_modes_equal_the_interpreter(lea):
    c, ref = lea
    assert c.ctr(KEY, IV, DATA) == ref.ctr(KEY, IV, DATA)
    block = DATA[:256]
    assert c.encrypt_ecb(KEY, block) == ref.encrypt_ecb(KEY, block)
    assert c.decrypt_cbc(KEY, IV, c.encrypt_cbc(KEY, IV, block)) == block
    ct, tag = c.gcm_encrypt(KEY, IV[:12], b"aad", DATA)
    assert (ct, tag) == ref.gcm_encrypt(KEY, IV[:12], b"aad", DATA)
    assert c.gcm_decrypt(KEY, IV[:12], b"aad", ct, tag) == DATA
    with pytest.raises(AuthenticationError):
        c.gcm_decrypt(KEY, IV[:12], b"aad", ct, bytes(16))
    assert c.ccm_encrypt(KEY, IV[:13], b"", DATA, 8) == ref.ccm_encrypt(KEY, IV[:13], b"", DATA, 8)
    assert c.xts_encrypt(KEY + IV, IV, DATA) == ref.xts_encrypt(KEY + IV, IV, DATA)
    assert c.cmac(KEY, DATA) == ref.cmac(KEY, DATA)
    assert (c.name, c.block_bytes, c.key_bytes, c.target) == ("lea128", 16, 16, "c")


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: cipherspec.load("nosuch128", target="ref"), "nosuch128"),
        (lambda: cipherspec.load("lea128", target="vax"), "vax"),
        (lambda: cipherspec.load("lea128", target="ref", rounds=0), "rounds must be at least 1, got 0"),
        (lambda: cipherspec.load("lea128", target="ref", spec="missing.cs"), "spec file missing.cs does not exist"),
        (lambda: cipherspec.load("lea128", target="ref").ctr(bytes(15), IV, b""), "key"),
        (lambda: cipherspec.load("lea128", target="ref").ctr(KEY, IV, "text"), "data must be bytes, got str"),
        (lambda: cipherspec.kat("missing.txt"), "KAT file missing.txt does not exist"),
    ],
)
def test_errors_name_what_was_wrong(call, message):
    with pytest.raises(UsageError, match=message):
        call()


def test_build_and_kat(tmp_path, lea):
    notes = cipherspec.build("lea128", target="c", output=tmp_path / "out")
    assert isinstance(notes, list)
    assert (tmp_path / "out/include/lea128.h").is_file() and (tmp_path / "out/lib/liblea128.a").is_file()
    result = cipherspec.kat([VECTORS / "lea.txt"], target="c")
    assert result.ok and result.passed > 0 and result.failed == 0
    bad = tmp_path / "bad.txt"
    bad.write_text((VECTORS / "lea.txt").read_text().replace("Ciphertext = ", "Ciphertext = 00", 1))
    with pytest.raises(KatError):
        cipherspec.kat(bad)


def test_a_spec_of_ones_own(tmp_path):
    spec = tmp_path / "toy.cs"
    spec.write_text(
        "family toy(r) {\n  block u8[2];\n  key u8[2];\n  key_schedule(K) -> rk: u8[2] { rk = K; }\n"
        "  encrypt(X, rk) { for i in 0..r { X = X ^ rk; } }\n  decrypt(X, rk) { for i in 0..r { X = X ^ rk; } }\n}\n"
        "cipher toy1 = toy(r = 1);\n"
    )
    toy = cipherspec.load("toy1", target="ref", spec=spec)
    assert toy.encrypt_ecb(b"\x0f\xf0", b"\x01\x02") == b"\x0e\xf2"
