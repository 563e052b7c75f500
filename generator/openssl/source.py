"""The provider's generated text: the EVP glue C file and the openssl.cnf snippet (deterministic).

Python decides the algorithm list (names, modes, identifiers, descriptions); the templates lay out
the C (templates/provider.c.j2) and the config (templates/openssl.cnf.j2).

    provider_files([(module, schedule), ...]) -> {"src/cipherspec_provider.c": ..., "openssl.cnf": ...}
"""

from __future__ import annotations

from cipherspec.errors import UsageError
from cipherspec.ir import Module
from cipherspec.schedule import Schedule
from cipherspec.version import __version__

from ..common.templates import render
from .names import AEAD_MODES, algorithm_name, check_unique, modes_of

GLUE = "src/cipherspec_provider.c"
CONFIG = "openssl.cnf"
EVP_MODES = {
    "ecb": "EVP_CIPH_ECB_MODE",
    "cbc": "EVP_CIPH_CBC_MODE",
    "ctr": "EVP_CIPH_CTR_MODE",
    "gcm": "EVP_CIPH_GCM_MODE",
    "ccm": "EVP_CIPH_CCM_MODE",
    "xts": "EVP_CIPH_XTS_MODE",
}
MODE_TEXT = {
    "ecb": "ECB",
    "cbc": "CBC with PKCS#7 padding",
    "ctr": "CTR (counter = IV + i, big-endian)",
    "gcm": "GCM (SP 800-38D; TLS 1.2 records)",
    "ccm": "CCM (SP 800-38C)",
    "xts": "XTS (IEEE 1619, two keys)",
}


def _cipher(module: Module, schedule: Schedule) -> dict:
    return {
        "library": module.cipher,
        "library_upper": module.cipher.upper(),
        "block": module.block.nbytes,
        "keylen": module.key.nbytes,
        "schedule": schedule.name,
    }


def _algorithm(module: Module, schedule: Schedule, mode: str) -> dict:
    name = algorithm_name(module, mode)
    return {
        "name": name,
        "ident": f"cs_{module.cipher}_{mode}",
        "library": module.cipher,
        "library_upper": module.cipher.upper(),
        "evp_mode": EVP_MODES[mode],
        "prefix": "aead_" if mode in AEAD_MODES else "",  # the glue family: cs_newctx or cs_aead_newctx, ...
        "mode_text": MODE_TEXT[mode],
        "schedule": schedule.name,
        "description": f"{module.cipher} in {mode.upper()} mode (cipherspec, schedule {schedule.name})",
    }


def _wrap(words: list[str], width: int) -> list[str]:
    """Comma-separated words in lines of at most ``width`` characters (a long C string, split)."""
    lines, cur = [], ""
    for i, w in enumerate(words):
        piece = w + ("," if i + 1 < len(words) else "")
        if cur and len(cur) + 1 + len(piece) > width:
            lines.append(cur)
            cur = piece
        else:
            cur = f"{cur} {piece}" if cur else piece
    return lines + ([cur] if cur else [])


def provider_files(entries: list[tuple[Module, Schedule]]) -> dict[str, str]:
    """One provider holding every (cipher, schedule) of ``entries``, in the order given."""
    if not entries:
        raise UsageError("the OpenSSL provider needs at least one cipher")
    libraries = [m.cipher for m, _ in entries]
    if len(set(libraries)) != len(libraries):
        raise UsageError(f"a cipher appears twice in one provider: {', '.join(libraries)}")
    check_unique([m for m, _ in entries])
    algorithms = [_algorithm(m, s, mode) for m, s in entries for mode in modes_of(m)]
    data = {
        "version": __version__,
        "cipher_list": ", ".join(libraries),
        "schedule_lines": _wrap([s.name for _, s in entries], 80),
        "ciphers": [_cipher(m, s) for m, s in entries],
        "aead_ciphers": [_cipher(m, s) for m, s in entries if AEAD_MODES[0] in modes_of(m)],
        "algorithms": algorithms,
        "name_width": max(len(a["name"]) for a in algorithms),
        "max_block": max(m.block.nbytes for m, _ in entries),
        "example": algorithms[-1]["name"].lower(),
    }
    return {GLUE: render("openssl/provider.c.j2", **data), CONFIG: render("openssl/openssl.cnf.j2", **data)}
