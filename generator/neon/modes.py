"""The NEON library's modes: GCM/GMAC, CCM and XTS (128-bit blocks) and CMAC (64- and 128-bit blocks) over
its kernels, from the C library's one definition of each mode (generator/c/templates/fragments/aead.c,
ghash.c) compiled for AArch64, with GHASH on PMULL/PMULL2 (fragments/ghash_pmull.c) where the CPU has it.

    before: aes128_neon.h/.c        kernels over groups of 16 blocks, key tables, run-time dispatch
    after:  + aes128_neon_modes.h   aes128_neon_key, _set_key(_isa), _gcm_encrypt ... _cmac (aead.h's API)
            + aes128_neon_modes.c   each variant's kernels behind the C library's kernel interface (whole
                                    blocks, tails padded to a group), HWCAP dispatch per key, GHASH, aead.c

    mode_files(module, emitted, [("aes128_neon_b16_crypto_il1", ("crypto",)), ...], "aes128_neon", ...)
      -> {"aes128_neon_modes.h": ..., "aes128_neon_modes.c": ...}   ({} for other block sizes)

The key struct holds every kernel's prepared key table, so one key serves whichever variant runs; the
variant (and the GHASH variant) is chosen when the key is set, under an optional feature ceiling
("neon", "crypto+pmull", ...), as the C library's set_key_isa does with ISA levels.
"""

from __future__ import annotations

import os

from cipherspec.ir import Module
from runtime.c_abi import CIPHER_CODES, define_lines

from ..c.library import CMAC_RB
from ..c.text import fragment
from ..common.templates import render
from .dispatch import FEATURES
from .keysched import key_word_bits

# GHASH's feature beside the kernels' (dispatch.FEATURES): (architecture feature, HWCAP name, bit, off by)
PMULL = ("FEAT_PMULL", "HWCAP_PMULL", 1 << 4, ("CIPHERSPEC_NEON_NO_CRYPTO", "CIPHERSPEC_NEON_NO_PMULL"))
MODE_KERNELS = ("ecb_encrypt", "ecb_decrypt", "ctr")  # what the C library's mode layer calls


def applies(module: Module) -> bool:
    """Block sizes with modes: 16 bytes (GCM, CCM, XTS, CMAC) and 8 (CMAC)."""
    return module.block.nbytes in CMAC_RB


def _features() -> list[dict]:
    rows = [(name, *spec) for name, spec in FEATURES.items()] + [("pmull", *PMULL)]
    return [
        dict(name=n, arch=arch, hwcap=hw, mask=f"{bit:#x}", macro=f"CS_F_{n.upper()}", off=list(off))
        for n, arch, hw, bit, off in rows
    ]


def mode_files(
    module: Module, emitted, variants: list[tuple[str, tuple[str, ...]]], prefix: str, header_name: str, key_prefix: str
) -> dict[str, str]:
    """``emitted``: one variant's emit.Emitted (modes, groups; every variant shares them); ``variants``:
    (kernel symbol prefix, schedule flags needing CPU features), best first; ``prefix``: the API's prefix
    (the header's); ``header_name``: the kernels' (dispatching) header; ``key_prefix``: <key_prefix>_key_schedule."""
    if not applies(module):
        return {}
    missing = [m for m in MODE_KERNELS if m not in emitted.modes]
    if missing:
        raise ValueError(f"{prefix}: the modes need the {', '.join(missing)} kernels")
    bb = module.block.nbytes
    up = prefix.upper()
    tables = [
        dict(
            mode=m,
            field=f"kt_{m}",
            kernel=f"{prefix}_{m}",
            keymap=f"{prefix}_{m}_keymap",
            vectors=f"{up}_{m.upper()}_KEY_VECTORS",
        )
        for m in MODE_KERNELS
    ]
    features = _features()
    bits = {f["name"]: f["macro"] for f in features}
    rows = [
        dict(
            name=name,
            mask=" | ".join(bits[f] for f in flags) or "0",
            needs=" + ".join(FEATURES[f][0] for f in flags) or "Advanced SIMD only",
        )
        for name, flags in variants
    ]
    names = ["GCM/GMAC", "CCM", "XTS", "CMAC"] if bb == 16 else ["CMAC"]
    env = sorted({e for f in features for e in f["off"]})
    ghash_doc = (
        '/* The GHASH variant keys get by default ("pmull" where the CPU has FEAT_PMULL, else "portable"), or\n'
        " * under a feature ceiling (set_key_isa's isa; NULL where this CPU lacks it). */"
    )
    common = dict(
        P=prefix,
        P_UP=up,
        cipher=module.cipher,
        block_bytes=bb,
        key_bytes=module.key.nbytes,
        header_name=header_name,
        mode_list=", ".join(names),
    )
    header = render(
        "neon/modes.h.j2",
        **common,
        guard=f"{up}_MODES_H",
        error_defines="\n".join(define_lines(CIPHER_CODES)),
        tables=tables,
        feature_names=", ".join(f["name"] for f in features),
        env_names=", ".join(env),
        cmac=True,
        ghash_doc=ghash_doc,
    )
    ghash = [fragment("ghash.c", pmull=True)] if bb == 16 else []  # it includes ghash_pmull.c
    modes = fragment("aead.c", P=prefix, P_UP=up, block_bytes=bb, cmac_rb=CMAC_RB[bb], default_isa="NULL")
    source = render(
        "neon/modes.c.j2",
        **common,
        source=os.path.basename(module.source) if module.source else module.cipher,
        group=emitted.group_blocks,
        words=fragment("words.c"),
        variants=rows,
        tables=tables,
        features=features,
        feature_names=", ".join(f["name"] for f in features),
        ghash=ghash,
        key_type=f"uint{key_word_bits(module)}_t",
        key_words_macro=f"{up}_KEY_WORDS",
        key_prefix=key_prefix,
        prepare=f"{prefix}_prepare_keys",
        modes=modes,
    )
    return {f"{prefix}_modes.h": header, f"{prefix}_modes.c": source}
