"""Known-answer-test files: parsing (with line numbers) and running them against a target.

Format (../shared/vectors): OpenSSL-style blocks of ``Name = value`` lines,
separated by blank lines, ``#`` comments.  A block-cipher block has Cipher,
Mode (ECB/CBC/CTR), Key, IV (CBC/CTR), Plaintext, Ciphertext and optionally
Rounds.  A block with EntropyInput is a CTR_DRBG block (see drbg_kat.py); one whose Mode is GCM, CCM,
XTS or CMAC is an authenticated-mode block (see aead_kat.py).

    blocks = parse_kat_file("aes.txt")
    report = run_kat_file("aes.txt", make_cipher)     -> FileReport(passed, failed, failures)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import modes
from .errors import KatError
from .kat_records import FileReport, KatBlock

_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")
HEX_FIELDS = {"Key", "IV", "Plaintext", "Ciphertext"}
MODE_NAMES = {"ECB": "ecb", "CBC": "cbc", "CTR": "ctr"}

__all__ = ["FileReport", "KatBlock", "parse_kat_file", "parse_kat_text", "run_kat_file"]


def parse_kat_text(text: str, path: str) -> list[KatBlock]:
    blocks: list[KatBlock] = []
    cur: KatBlock | None = None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            cur = None
            continue
        if line.startswith("#"):
            continue
        m = _LINE.match(line)
        if m is None:
            raise KatError(f"{path}:{no}: expected 'Name = value', got {line[:60]!r}")
        if cur is None:
            cur = KatBlock(path, no)
            blocks.append(cur)
        name, value = m.group(1), m.group(2)
        if name in cur.fields:
            raise KatError(f"{path}:{no}: {name} appears twice in one block")
        cur.fields[name] = value
        cur.lines[name] = no
    return blocks


def parse_kat_file(path: str | Path) -> list[KatBlock]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise KatError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    return parse_kat_text(text, str(path))


@dataclass
class BlockCase:
    """A validated block-cipher KAT block."""

    block: KatBlock
    cipher: str
    rounds: int | None
    mode: str
    key: bytes
    iv: bytes | None
    plaintext: bytes
    ciphertext: bytes


def validate_block(b: KatBlock, known_ciphers: set[str]) -> BlockCase:
    b.require("Cipher", "Mode", "Key", "Plaintext", "Ciphertext")
    cipher = b.fields["Cipher"]
    if cipher not in known_ciphers:
        raise KatError(f"{b.where('Cipher')}: unknown cipher '{cipher}'")
    mode_text = b.fields["Mode"].upper()
    if mode_text not in MODE_NAMES:
        raise KatError(f"{b.where('Mode')}: unknown mode '{b.fields['Mode']}' (ECB, CBC, CTR, GCM, CCM, XTS or CMAC)")
    mode = MODE_NAMES[mode_text]
    rounds = None
    if "Rounds" in b.fields:
        text = b.fields["Rounds"]
        if not text.isdigit() or int(text) < 1:
            raise KatError(f"{b.where('Rounds')}: Rounds must be a positive integer, got {text!r}")
        rounds = int(text)
    iv = None
    if mode != "ecb":
        b.require("IV")
        iv = b.hex("IV")
    pt, ct = b.hex("Plaintext"), b.hex("Ciphertext")
    if len(pt) != len(ct):
        raise KatError(f"{b.where('Ciphertext')}: Ciphertext is {len(ct)} bytes but Plaintext is {len(pt)}")
    unknown = set(b.fields) - {"Cipher", "Mode", "Key", "IV", "Plaintext", "Ciphertext", "Rounds"}
    if unknown:
        raise KatError(f"{b.where(sorted(unknown)[0])}: unknown field {sorted(unknown)[0]}")
    return BlockCase(b, cipher, rounds, mode, b.hex("Key"), iv, pt, ct)


def _check_sizes(case: BlockCase, c) -> None:
    b = case.block
    if len(case.key) != c.key_bytes:
        raise KatError(f"{b.where('Key')}: {case.cipher} needs a {c.key_bytes}-byte key, got {len(case.key)}")
    if case.iv is not None and len(case.iv) != c.block_bytes:
        raise KatError(f"{b.where('IV')}: {case.cipher} needs a {c.block_bytes}-byte IV, got {len(case.iv)}")
    if case.mode != "ctr" and len(case.plaintext) % c.block_bytes:
        raise KatError(
            f"{b.where('Plaintext')}: {len(case.plaintext)} bytes is not a whole number of {c.block_bytes}-byte blocks"
        )


def run_block_cases(cases: list[BlockCase], make_cipher: Callable[[str, int | None], Any], report: FileReport):
    """Checks encryption AND decryption of every case; ECB cases of one cipher run as one batch."""
    groups: dict[tuple[str, int | None], list[BlockCase]] = {}
    for case in cases:
        groups.setdefault((case.cipher, case.rounds), []).append(case)
    for (name, rounds), group in groups.items():
        c = make_cipher(name, rounds)
        for case in group:
            _check_sizes(case, c)
        single_block_ecb = [k for k in group if k.mode == "ecb" and len(k.plaintext) == c.block_bytes]
        others = [k for k in group if k not in single_block_ecb]
        if single_block_ecb:
            _run_ecb_batch(c, single_block_ecb, report)
        for case in others:
            rk = c.expand_key(case.key)
            enc = modes.run_mode(c, rk, case.mode, "encrypt", case.plaintext, case.iv)
            dec = modes.run_mode(c, rk, case.mode, "decrypt", case.ciphertext, case.iv)
            _record(report, case, enc, dec)


def _run_ecb_batch(c, group: list[BlockCase], report: FileReport):
    """One key schedule and one block call for the whole group: lane i has key i and block i."""
    if getattr(c, "lane_keys", False):
        keys = np.frombuffer(b"".join(k.key for k in group), np.uint8).reshape(len(group), -1)
        rk = c.expand_key(keys)
        enc = c.encrypt_blocks(rk, np.frombuffer(b"".join(k.plaintext for k in group), np.uint8))
        dec = c.decrypt_blocks(rk, np.frombuffer(b"".join(k.ciphertext for k in group), np.uint8))
        for i, case in enumerate(group):
            _record(report, case, enc[i].tobytes(), dec[i].tobytes())
        return
    for case in group:
        rk = c.expand_key(case.key)
        _record(report, case, modes.ecb_encrypt(c, rk, case.plaintext), modes.ecb_decrypt(c, rk, case.ciphertext))


def _record(report: FileReport, case: BlockCase, enc: bytes, dec: bytes):
    ok = True
    if enc != case.ciphertext:
        ok = False
        report.failures.append(
            f"{case.block.where()}: {case.cipher} {case.mode} encrypt gave {enc.hex()[:64]}, "
            f"expected {case.ciphertext.hex()[:64]}"
        )
    if dec != case.plaintext:
        ok = False
        report.failures.append(
            f"{case.block.where()}: {case.cipher} {case.mode} decrypt gave {dec.hex()[:64]}, "
            f"expected {case.plaintext.hex()[:64]}"
        )
    if ok:
        report.passed += 1
    else:
        report.failed += 1


def run_kat_file(
    path: str,
    make_cipher: Callable[[str, int | None], Any],
    known_ciphers: set[str],
    run_drbg: Callable[[list[KatBlock], FileReport], None] | None = None,
) -> FileReport:
    """Validates the whole file first (a malformed file runs nothing), then runs it."""
    from .aead_kat import is_aead, run_aead_cases, validate_aead_block

    blocks = parse_kat_file(path)
    report = FileReport(path)
    drbg = [b for b in blocks if b.is_drbg]
    cases = [validate_block(b, known_ciphers) for b in blocks if not b.is_drbg and not is_aead(b)]
    aead_cases = [validate_aead_block(b, known_ciphers) for b in blocks if is_aead(b)]
    if not blocks:
        raise KatError(f"{path}: no test blocks")
    run_block_cases(cases, make_cipher, report)
    run_aead_cases(aead_cases, make_cipher, report)
    if drbg:
        if run_drbg is None:
            report.skipped += len(drbg)
            report.notes.append(f"{len(drbg)} CTR_DRBG blocks skipped: this target has no CTR_DRBG")
        else:
            run_drbg(drbg, report)
    return report
