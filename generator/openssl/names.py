"""OpenSSL algorithm names for generated ciphers: ``<CIPHER>-<MODE>`` in OpenSSL's style.

The rule, for every shipped cipher and for a researcher's ``--spec`` cipher alike: the cipher part is
the variant's name with its family name split off, upper-cased, every ``_`` a ``-``:

    family aes,   variant aes128       -> AES-128-ECB, AES-128-CBC, AES-128-CTR   (as OpenSSL names AES)
    family lea,   variant lea192       -> LEA-192-CTR, LEA-192-GCM, LEA-192-CCM, LEA-192-XTS (128-bit blocks)
    family cham,  variant cham128_256  -> CHAM-128-256-CTR      (block-key: the family has two block sizes)
    family pipo,  variant pipo64_128   -> PIPO-64-128-CBC
    family hight, variant hight        -> HIGHT-ECB             (a variant named as its family: no numbers)
    family toy,   variant toy4         -> TOY-4-CTR             (a --spec cipher: tests/data/toy.cs)
    a variant not named after its family (family spn, variant mini) -> MINI-CTR

So the numbers are exactly what the spec author put in the variant's name (the cipher's parameters
as its paper writes them), and ``openssl enc -lea-128-ctr`` / ``EVP_CIPHER_fetch(NULL, "LEA-128-CTR",
"provider=cipherspec")`` find it.  OpenSSL compares names case-insensitively; two ciphers of one
build that map to the same name are refused.

    algorithm_name(module, "ctr") -> "LEA-128-CTR"
    check_unique(modules)          -> None, or UsageError naming both ciphers
"""

from __future__ import annotations

import re

from cipherspec.errors import UsageError
from cipherspec.ir import Module

MODES = ("ecb", "cbc", "ctr")
AEAD_MODES = ("gcm", "ccm", "xts")  # 128-bit blocks only (the C libraries have them only there)
_OK = re.compile(r"^[A-Z0-9][A-Z0-9-]*$")


def cipher_part(module: Module) -> str:
    """The name without the mode: LEA-128, CHAM-128-128, HIGHT."""
    name, family = module.cipher, module.family
    if name == family:
        parts = [name]
    elif name.startswith(family):
        parts = [family, name[len(family) :].strip("_")]
    else:
        parts = [name]
    text = "-".join(p.replace("_", "-") for p in parts).upper()
    text = re.sub("-+", "-", text)
    if not _OK.match(text):
        raise UsageError(f"cipher {name} gives no usable OpenSSL name ({text!r}: letters, digits and '-' only)")
    return text


def modes_of(module: Module) -> tuple[str, ...]:
    """The EVP modes a cipher gets: ECB, CBC, CTR; and GCM, CCM, XTS for a 128-bit block."""
    return MODES + AEAD_MODES if module.block.nbytes == 16 else MODES


def algorithm_name(module: Module, mode: str) -> str:
    if mode not in modes_of(module):
        raise UsageError(f"unknown mode '{mode}' for {module.cipher} (modes: {', '.join(modes_of(module))})")
    return f"{cipher_part(module)}-{mode.upper()}"


def check_unique(modules: list[Module]) -> None:
    seen: dict[str, str] = {}
    for m in modules:
        key = cipher_part(m)
        if key in seen and seen[key] != m.cipher:
            raise UsageError(
                f"ciphers {seen[key]} and {m.cipher} both become OpenSSL's {key}-*: build them into separate providers"
            )
        seen[key] = m.cipher
