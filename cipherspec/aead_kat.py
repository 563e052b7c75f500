"""Known-answer blocks for the authenticated modes, in the KAT files' format, run on any target through
cipherspec.aead's dispatch (a target's own GCM/CCM/XTS/CMAC when it has them, else the oracle over its
block function).  Fields: Cipher, Mode (GCM, CCM, XTS, CMAC), Key (XTS: key1 || key2), IV (the GCM/CCM
nonce, the XTS tweak), AAD (optional), Plaintext, Ciphertext (not CMAC), Tag (not XTS), Rounds (optional).

    Cipher = lea128          every case checks encryption, decryption, and that a tag with one bit
    Mode = GCM               flipped is refused (AuthenticationError); CMAC: the tag and its refusal
    Key = ...  IV = ...  AAD = ...  Plaintext = ...  Ciphertext = ...  Tag = ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from . import aead
from .errors import AuthenticationError, CipherspecError, KatError
from .kat_records import FileReport, KatBlock

AEAD_MODES = {"GCM": "gcm", "CCM": "ccm", "XTS": "xts", "CMAC": "cmac"}
FIELDS = {"Cipher", "Mode", "Key", "IV", "AAD", "Plaintext", "Ciphertext", "Tag", "Rounds"}
NEEDS = {
    "gcm": ("IV", "Ciphertext", "Tag"),
    "ccm": ("IV", "Ciphertext", "Tag"),
    "xts": ("IV", "Ciphertext"),
    "cmac": ("Tag",),
}


class AeadCase(NamedTuple):
    block: KatBlock
    cipher: str
    rounds: int | None
    mode: str
    key: bytes
    iv: bytes
    aad: bytes
    plaintext: bytes
    ciphertext: bytes
    tag: bytes


def is_aead(b: KatBlock) -> bool:
    return b.fields.get("Mode", "").upper() in AEAD_MODES


def validate_aead_block(b: KatBlock, known_ciphers: set[str]) -> AeadCase:
    b.require("Cipher", "Mode", "Key", "Plaintext")
    mode = AEAD_MODES[b.fields["Mode"].upper()]
    b.require(*NEEDS[mode])
    if b.fields["Cipher"] not in known_ciphers:
        raise KatError(f"{b.where('Cipher')}: unknown cipher '{b.fields['Cipher']}'")
    unknown = sorted(set(b.fields) - FIELDS)
    if unknown:
        raise KatError(f"{b.where(unknown[0])}: unknown field {unknown[0]}")
    rounds = None
    if "Rounds" in b.fields:
        if not b.fields["Rounds"].isdigit() or int(b.fields["Rounds"]) < 1:
            raise KatError(f"{b.where('Rounds')}: Rounds must be a positive integer, got {b.fields['Rounds']!r}")
        rounds = int(b.fields["Rounds"])

    def opt(name: str) -> bytes:
        return b.hex(name) if b.fields.get(name) else b""

    pt, ct = opt("Plaintext"), opt("Ciphertext")
    if mode != "cmac" and len(pt) != len(ct):
        raise KatError(f"{b.where('Ciphertext')}: Ciphertext is {len(ct)} bytes but Plaintext is {len(pt)}")
    return AeadCase(b, b.fields["Cipher"], rounds, mode, b.hex("Key"), opt("IV"), opt("AAD"), pt, ct, opt("Tag"))


def _flip(tag: bytes) -> bytes:
    return bytes([tag[0] ^ 0x80]) + tag[1:] if tag else tag


def _refused(run) -> bool:
    try:
        run()
    except AuthenticationError:
        return True
    return False


def check_case(c, k: AeadCase) -> list[str]:
    """What went wrong with one case on cipher object ``c`` (empty: it passed)."""
    wrong = []
    if k.mode == "xts":
        if aead.call(c, "xts_encrypt", k.key, k.iv, k.plaintext) != k.ciphertext:
            wrong.append("encrypt")
        if aead.call(c, "xts_decrypt", k.key, k.iv, k.ciphertext) != k.plaintext:
            wrong.append("decrypt")
        return wrong
    rk = c.expand_key(k.key)
    if k.mode == "cmac":
        if aead.call(c, "cmac", rk, k.plaintext, len(k.tag)) != k.tag:
            wrong.append("tag")
        return wrong
    enc, dec = f"{k.mode}_encrypt", f"{k.mode}_decrypt"
    if aead.call(c, enc, rk, k.iv, k.aad, k.plaintext, len(k.tag)) != (k.ciphertext, k.tag):
        wrong.append("encrypt")
    try:
        if aead.call(c, dec, rk, k.iv, k.aad, k.ciphertext, k.tag) != k.plaintext:
            wrong.append("decrypt")
    except AuthenticationError:
        wrong.append("decrypt (refused the right tag)")
    if not _refused(lambda: aead.call(c, dec, rk, k.iv, k.aad, k.ciphertext, _flip(k.tag))):
        wrong.append("decrypt accepted a wrong tag")
    return wrong


def run_aead_cases(cases: list[AeadCase], make_cipher: Callable[[str, int | None], Any], report: FileReport) -> None:
    for k in cases:
        c = make_cipher(k.cipher, k.rounds)
        try:
            wrong = check_case(c, k)
        except CipherspecError as e:  # a parameter the mode refuses: the file is wrong for this cipher
            raise KatError(f"{k.block.where()}: {e}") from None
        if wrong:
            report.failed += 1
            report.failures.append(f"{k.block.where()}: {k.cipher} {k.mode.upper()} {', '.join(wrong)}")
        else:
            report.passed += 1
