"""The AEAD oracle (cipherspec.aead) over the interpreter's AES against NIST's CAVP files and Wycheproof:
GCM (96-bit and other IVs, every tag length, FAIL cases), CCM (DVPT/VADT/VNT/VPT/VTT), XTS (whole-byte
data units, with ciphertext stealing), CMAC (SP 800-38B's examples, Wycheproof's tag checks).  The
files are trimmed subsets (tests/data/aead/README.md says of what and how); each test runs one file."""

from __future__ import annotations

import json

import pytest
from cavp import hexbytes, read_cases
from paths import ROOT

from cipherspec import aead
from cipherspec.errors import AuthenticationError, UsageError

DATA = ROOT / "tests" / "data" / "aead"


def aes(make_ref, key: bytes):
    return make_ref({16: "aes128", 24: "aes192", 32: "aes256"}[len(key)])


@pytest.mark.parametrize("bits", [128, 256])
def test_gcm_encrypt(make_ref, bits):
    cases = read_cases(DATA / f"gcmEncryptExtIV{bits}.rsp")
    assert len({c["IVlen"] for c in cases}) == 3  # 8, 96 and 1024-bit IVs
    for case in cases:
        key = hexbytes(case, "Key")
        c = aes(make_ref, key)
        tag = hexbytes(case, "Tag")
        ct, got = aead.gcm_encrypt(
            c, c.expand_key(key), hexbytes(case, "IV"), hexbytes(case, "AAD"), hexbytes(case, "PT"), len(tag)
        )
        assert (ct, got) == (hexbytes(case, "CT"), tag), f"Count {case['Count']} {case['IVlen']}-bit IV"


@pytest.mark.parametrize("bits", [128, 256])
def test_gcm_decrypt_and_fail_cases(make_ref, bits):
    cases = read_cases(DATA / f"gcmDecrypt{bits}.rsp")
    fails = 0
    for case in cases:
        key = hexbytes(case, "Key")
        c = aes(make_ref, key)
        args = (c, c.expand_key(key), hexbytes(case, "IV"), hexbytes(case, "AAD"), hexbytes(case, "CT"))
        if case.get("FAIL"):
            fails += 1
            with pytest.raises(AuthenticationError, match="^authentication failed$"):
                aead.gcm_decrypt(*args, hexbytes(case, "Tag"))
        else:
            assert aead.gcm_decrypt(*args, hexbytes(case, "Tag")) == hexbytes(case, "PT"), f"Count {case['Count']}"
    assert fails >= len(cases) // 3


def test_gcm_wycheproof(make_ref):
    """Non-96-bit IVs (hashed J0, counters that wrap at 2^32: inc32), flipped tag bits, the empty IV."""
    data = json.loads((DATA / "wycheproof_aes_gcm.json").read_text())
    n = 0
    for g in data["testGroups"]:
        for t in g["tests"]:
            key, iv = bytes.fromhex(t["key"]), bytes.fromhex(t["iv"])
            c = aes(make_ref, key)
            rk = c.expand_key(key)
            aad, msg, ct, tag = (bytes.fromhex(t[k]) for k in ("aad", "msg", "ct", "tag"))
            n += 1
            if not iv:
                with pytest.raises(UsageError, match="GCM: the IV is empty"):
                    aead.gcm_encrypt(c, rk, iv, aad, msg)
            elif t["result"] == "valid":
                assert aead.gcm_encrypt(c, rk, iv, aad, msg) == (ct, tag), t["tcId"]
                assert aead.gcm_decrypt(c, rk, iv, aad, ct, tag) == msg
            else:
                with pytest.raises(AuthenticationError):
                    aead.gcm_decrypt(c, rk, iv, aad, ct, tag)
    assert n > 60


CCM_FILES = ["VADT128", "VNT128", "VPT128", "VTT128", "VTT256"]


@pytest.mark.parametrize("name", CCM_FILES)
def test_ccm_generation(make_ref, name):
    for case in read_cases(DATA / f"ccm{name}.rsp"):
        key = hexbytes(case, "Key")
        c = aes(make_ref, key)
        tlen, plen = int(case["Tlen"]), int(case["Plen"])
        ct = hexbytes(case, "CT")
        got = aead.ccm_encrypt(
            c,
            c.expand_key(key),
            hexbytes(case, "Nonce"),
            hexbytes(case, "Adata", int(case["Alen"])),
            hexbytes(case, "Payload", plen),
            tlen,
        )
        assert got == (ct[:plen], ct[plen:]), f"{name} Count {case['Count']}"


@pytest.mark.parametrize("name", ["DVPT128", "DVPT256"])
def test_ccm_decryption_verification(make_ref, name):
    cases = read_cases(DATA / f"ccm{name}.rsp")
    assert {c["Result"] for c in cases} == {"Pass", "Fail"}
    for case in cases:
        key = hexbytes(case, "Key")
        c = aes(make_ref, key)
        plen = int(case["Plen"])
        ct = hexbytes(case, "CT")
        args = (c, c.expand_key(key), hexbytes(case, "Nonce"), hexbytes(case, "Adata", int(case["Alen"])))
        if case["Result"] == "Pass":
            assert aead.ccm_decrypt(*args, ct[:plen], ct[plen:]) == hexbytes(case, "Payload", plen)
        else:
            with pytest.raises(AuthenticationError):
                aead.ccm_decrypt(*args, ct[:plen], ct[plen:])


@pytest.mark.parametrize("bits", [128, 256])
def test_xts(make_ref, bits):
    cases = read_cases(DATA / f"XTSGenAES{bits}.rsp")
    # AES-128's file has 200-bit data units (ciphertext stealing); AES-256's partial ones are not whole bytes
    assert {c["DataUnitLen"] for c in cases} == ({"128", "200", "256"} if bits == 128 else {"256", "384"})
    for case in cases:
        key = hexbytes(case, "Key")
        c = aes(make_ref, key[: len(key) // 2])
        pt, ct, tweak = hexbytes(case, "PT"), hexbytes(case, "CT"), hexbytes(case, "i")
        if case["section"] == "ENCRYPT":
            assert aead.xts_encrypt(c, key, tweak, pt) == ct, f"COUNT {case['COUNT']}"
        else:
            assert aead.xts_decrypt(c, key, tweak, ct) == pt, f"COUNT {case['COUNT']}"


def test_cmac_sp800_38b_examples(make_ref):
    cases = read_cases(DATA / "cmacAES.txt")
    assert len(cases) == 12
    for case in cases:
        key = hexbytes(case, "KEY")
        c = aes(make_ref, key)
        assert aead.cmac(c, c.expand_key(key), hexbytes(case, "MESSAGE")) == hexbytes(case, "OUTPUT")


def test_cmac_wycheproof(make_ref):
    data = json.loads((DATA / "wycheproof_aes_cmac.json").read_text())
    for g in data["testGroups"]:
        for t in g["tests"]:
            key = bytes.fromhex(t["key"])
            c = aes(make_ref, key)
            tag = bytes.fromhex(t["tag"])
            got = aead.cmac(c, c.expand_key(key), bytes.fromhex(t["msg"]), len(tag))
            assert (got == tag) == (t["result"] == "valid"), t["tcId"]
