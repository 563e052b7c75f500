"""The AEAD oracle on ciphers no NIST file covers, against a second, independent definition of the modes.

tests/support/independent_modes.py defines GCM, CCM, XTS and CMAC again (whole messages, polynomial
GF(2^128) arithmetic) over the plain-Python ciphers of independent.py / independent_examples.py.  First
those modes are checked against the `cryptography` package on AES (and SM4-GCM), so they are a witness;
then the KAT file tests/data/aead/kat_aead.txt (LEA, ARIA, SM4, SPECK, CHAM, and CMAC over 64-bit
blocks) must be what both the oracle on the interpreter and the independent code compute.  The KAT file
is for the targets too (the C library, the provider).  CIPHERSPEC_UPDATE_GOLDEN=1 rewrites it from the
oracle, for a new cipher or case; the independent check then still has to pass.
"""

from __future__ import annotations

import os
import random

import independent
import independent_examples
import independent_modes as im
import pytest
from cavp import hexbytes, read_cases
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM
from cryptography.hazmat.primitives.cmac import CMAC
from paths import ROOT

from cipherspec import aead
from cipherspec.aead_kat import validate_aead_block
from cipherspec.kat import parse_kat_file, run_kat_file
from cipherspec.registry import Registry
from driver.targets import make_cipher

DATA = ROOT / "tests" / "data" / "aead"
KAT = DATA / "kat_aead.txt"
WIDE = ["aria128", "aria256", "lea128", "lea256", "cham128_128", "sm4", "speck128_128"]  # 128-bit blocks
NARROW = ["hight", "present80"]  # 64-bit blocks: CMAC only
INDEPENDENT = {**independent.CIPHERS, **independent_examples.CIPHERS}


@pytest.fixture(scope="module")
def ref():
    reg = Registry(extra=sorted((ROOT / "examples" / "ciphers").glob("*.cs")))
    cache: dict = {}

    def make(name):
        if name not in cache:
            cache[name] = make_cipher(reg, name, None, "ref")
        return cache[name]

    return make


# ------------------------------------------------------------------ the independent modes are right (AES, SM4)
def _ecb(algorithm):
    e = Cipher(algorithm, modes.ECB()).encryptor()
    return e.update


@pytest.mark.parametrize("seed", range(6))
def test_independent_modes_match_cryptography(seed):
    rnd = random.Random(seed)
    key, key2 = rnd.randbytes(16), rnd.randbytes(16)
    enc = _ecb(algorithms.AES(key))
    n = [0, 1, 16, 17, 40, 64][seed]
    pt, aad = rnd.randbytes(n), rnd.randbytes([0, 3, 16, 20, 33, 0][seed])
    for iv in (rnd.randbytes(12), rnd.randbytes(8 + seed * 7)):
        e = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
        e.authenticate_additional_data(aad)
        assert im.gcm(enc, iv, aad, pt) == (e.update(pt) + e.finalize(), e.tag)
    nonce, tlen = rnd.randbytes(7 + seed), 4 + 2 * seed
    ct, tag = im.ccm(enc, nonce, aad, pt, tlen)
    assert ct + tag == AESCCM(key, tag_length=tlen).encrypt(nonce, pt, aad)
    m = CMAC(algorithms.AES(key))
    m.update(pt)
    assert im.cmac(enc, pt) == m.finalize()
    if n >= 16:
        tweak = rnd.randbytes(16)
        e = Cipher(algorithms.AES(key + key2), modes.XTS(tweak)).encryptor()
        dec1 = Cipher(algorithms.AES(key), modes.ECB()).decryptor().update
        assert im.xts(enc, dec1, _ecb(algorithms.AES(key2)), tweak, pt) == e.update(pt) + e.finalize()


def test_sm4_gcm_matches_cryptography_and_rfc8998(ref):
    c = ref("sm4")
    (case,) = read_cases(DATA / "sm4_rfc8998.txt")
    key, iv, aad = hexbytes(case, "KEY"), hexbytes(case, "IV"), hexbytes(case, "AAD")
    want = (hexbytes(case, "CIPHERTEXT"), hexbytes(case, "TAG"))
    assert aead.gcm_encrypt(c, c.expand_key(key), iv, aad, hexbytes(case, "PLAINTEXT")) == want
    rnd = random.Random(8998)
    for n, ivlen in ((0, 12), (31, 12), (50, 20)):
        key, iv, aad, pt = rnd.randbytes(16), rnd.randbytes(ivlen), rnd.randbytes(n // 2), rnd.randbytes(n)
        e = Cipher(algorithms.SM4(key), modes.GCM(iv)).encryptor()
        e.authenticate_additional_data(aad)
        assert aead.gcm_encrypt(c, c.expand_key(key), iv, aad, pt) == (e.update(pt) + e.finalize(), e.tag)


def test_aria_rfc8269(make_ref):
    """RFC 8269's ARIA-GCM examples (and the ARIA-CCM ones of its draft), as typed from the RFC."""
    cases = read_cases(DATA / "aria_gcm_rfc8269.txt")
    assert [c["Mode"] for c in cases].count("GCM") == 2
    for case in cases:
        key, tag = hexbytes(case, "Key"), hexbytes(case, "Tag")
        c = make_ref({16: "aria128", 32: "aria256"}[len(key)])
        rk = c.expand_key(key)
        args = (c, rk, hexbytes(case, "IV"), hexbytes(case, "AAD"))
        if case["Mode"] == "GCM":
            assert aead.gcm_encrypt(*args, hexbytes(case, "PT"), len(tag)) == (hexbytes(case, "CT"), tag)
            assert aead.gcm_decrypt(*args, hexbytes(case, "CT"), tag) == hexbytes(case, "PT")
        else:
            assert aead.ccm_encrypt(*args, hexbytes(case, "PT"), len(tag)) == (hexbytes(case, "CT"), tag)


# ------------------------------------------------------------------ the KAT file: oracle == file == independent
FIELDS = ("Cipher", "Mode", "Key", "IV", "AAD", "Plaintext", "Ciphertext", "Tag")


def _cases_for(name: str, block: int, key_bytes: int) -> list[dict]:
    """Deterministic inputs per cipher (Ciphertext and Tag: filled in by the oracle; Tag: its length)."""
    rnd = random.Random(name)
    out = []

    def add(mode, **fields):
        out.append({"Cipher": name, "Mode": mode, **{k: v.hex() for k, v in fields.items()}})

    if block == 16:
        for iv_len, n, a, t in ((12, 40, 20, 16), (8, 17, 0, 12), (12, 0, 13, 16)):
            add(
                "GCM",
                Key=rnd.randbytes(key_bytes),
                IV=rnd.randbytes(iv_len),
                AAD=rnd.randbytes(a),
                Plaintext=rnd.randbytes(n),
                Tag=bytes(t),
            )
        add(
            "CCM",
            Key=rnd.randbytes(key_bytes),
            IV=rnd.randbytes(12),
            AAD=rnd.randbytes(9),
            Plaintext=rnd.randbytes(33),
            Tag=bytes(10),
        )
        for n in (32, 37):
            add("XTS", Key=rnd.randbytes(2 * key_bytes), IV=rnd.randbytes(16), Plaintext=rnd.randbytes(n))
    for n in (0, block, 2 * block + 5):
        add("CMAC", Key=rnd.randbytes(key_bytes), Plaintext=rnd.randbytes(n), Tag=bytes(block))
    return out


def _oracle(c, case: dict) -> dict:
    """The case with Ciphertext and Tag as the oracle computes them (Tag's length as given)."""
    key, pt = bytes.fromhex(case["Key"]), bytes.fromhex(case["Plaintext"])
    mode, out = case["Mode"], dict(case)
    if mode == "XTS":
        out["Ciphertext"] = aead.xts_encrypt(c, key, bytes.fromhex(case["IV"]), pt).hex()
        return out
    rk, tlen = c.expand_key(key), len(case["Tag"]) // 2
    if mode == "CMAC":
        out["Tag"] = aead.cmac(c, rk, pt, tlen).hex()
        return out
    run = aead.gcm_encrypt if mode == "GCM" else aead.ccm_encrypt
    ct, tag = run(c, rk, bytes.fromhex(case["IV"]), bytes.fromhex(case["AAD"]), pt, tlen)
    out["Ciphertext"], out["Tag"] = ct.hex(), tag.hex()
    return {k: out[k] for k in FIELDS if k in out}


def _independent(k) -> tuple[bytes, bytes]:
    """(ciphertext, tag) of an AeadCase by tests/support/independent_modes.py over the independent cipher."""
    ind = INDEPENDENT[k.cipher]
    enc = lambda key: lambda b: ind.encrypt(key, b)  # noqa: E731
    if k.mode == "xts":
        n = len(k.key) // 2
        dec1 = lambda b: ind.decrypt(k.key[:n], b)  # noqa: E731
        return im.xts(enc(k.key[:n]), dec1, enc(k.key[n:]), k.iv, k.plaintext), b""
    if k.mode == "cmac":
        return b"", im.cmac(enc(k.key), k.plaintext, ind.block_size, len(k.tag))
    run = im.gcm if k.mode == "gcm" else im.ccm
    return run(enc(k.key), k.iv, k.aad, k.plaintext, len(k.tag))


def _write_kat() -> None:
    reg = Registry(extra=sorted((ROOT / "examples" / "ciphers").glob("*.cs")))
    lines = [
        "# GCM, CCM, XTS (key = key1 || key2, IV = the tweak) and CMAC over ciphers without NIST files: run it",
        "# with `cipherspec kat tests/data/aead/kat_aead.txt --spec examples/ciphers/sm4.cs --spec",
        "# examples/ciphers/speck.cs --spec examples/ciphers/present.cs --target T`.  Written from the oracle by",
        "# tests/unit/test_aead_independent.py (CIPHERSPEC_UPDATE_GOLDEN=1), which checks every case against",
        "# tests/support/independent_modes.py over independent cipher implementations.",
    ]
    for name in WIDE + NARROW:
        c = make_cipher(reg, name, None, "ref")
        for case in _cases_for(name, c.block_bytes, c.key_bytes):
            lines.append("")
            lines += [f"{k} = {v}".rstrip() for k, v in _oracle(c, case).items()]
    KAT.write_text("\n".join(lines) + "\n")


def test_kat_file(ref):
    if os.environ.get("CIPHERSPEC_UPDATE_GOLDEN"):
        _write_kat()
    blocks = parse_kat_file(KAT)
    known = set(WIDE + NARROW)
    cases = [validate_aead_block(b, known) for b in blocks]
    assert {k.cipher for k in cases} == known and {k.mode for k in cases} == {"gcm", "ccm", "xts", "cmac"}
    report = run_kat_file(str(KAT), lambda name, rounds: ref(name), known)  # the oracle: encrypt, decrypt, tamper
    assert (report.failed, report.passed) == (0, len(cases)), report.failures
    for k in cases:
        assert _independent(k) == (k.ciphertext, k.tag), k.block.where()
