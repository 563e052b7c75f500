"""Build notes of a NEON library: what its bit-linear layers and 4-bit tables got (the IR analysis of
cipherspec/bitlinear.py; the instructions counted in the emitted kernels by their origin comments).

    notes(present80, emitted) ->
      ["present80 encrypt: 32 x bit permutation of 64 bits + 64 round-key XOR terms -> neon present80_neon_b16_il1:
        masked rotations as one shift each (mask_rotate), masked terms inserted with BIT where the bits they
        land on are known zero (1984 BIT, 0 SRI in the kernel)", "present80 table S (4-bit): TBL ..."]
"""

from __future__ import annotations

import re

from cipherspec.bitlinear import module_layers
from cipherspec.ir import Module

from .aesform import form as aes_form
from .dispatch import crypto_counts, with_flags

_MNEMONIC = re.compile(r"^\s+([a-z][a-z0-9.]*)\s")


def _counts(asm: str, origins: set[str]) -> dict[str, int]:
    """Mnemonics of the kernel lines whose origin comment is one of ``origins`` (file:line:col)."""
    out: dict[str, int] = {}
    for line in asm.splitlines():
        m = _MNEMONIC.match(line)
        if m and "//" in line:
            where = line.split("//", 1)[1].split()
            if where and where[0] in origins:
                out[m.group(1)] = out.get(m.group(1), 0) + 1
    return out


def notes(module: Module, emitted) -> list[str]:
    """``emitted``: the library's kernels (generator/neon/emit.py results), the first is its best variant."""
    if not emitted:
        return []
    e = emitted[0]
    out = []
    for fname, lays in module_layers(module).items():
        lays = [lay for lay in lays if lay.ops >= 4 and len(lay.rounds) <= 2]
        if fname != "encrypt" or not lays:
            continue  # the kernels are encryption (CTR and ECB); decryption's layers are the same kind
        kinds: dict[str, list] = {}
        for lay in lays:
            kinds.setdefault(lay.describe(), []).append(lay)
        for what, members in kinds.items():
            c = _counts(e.asm, {o for lay in members for o in lay.origins})
            how = (
                "the IR's ops: rotations as SHL + SRI (or one shift where a mask keeps one half: mask_rotate), "
                "lane/byte moves as the layout's permutations, a masked term inserted with one BIT where the bits "
                "it lands on are known zero, XORs as EOR"
            )
            counted = ", ".join(f"{c.get(m, 0)} {m.upper()}" for m in ("bit", "sri", "and", "orr", "eor"))
            out.append(
                f"{module.cipher} {fname}: {len(members)} x {what} -> neon {e.schedule.name}: {how} "
                f"({counted} at the layers' spec positions in the kernel)"
            )
    for name, table in module.tables.items():
        if table.in_width == 4 and any(
            op.code == "lut" and op.imm[0] == name
            for f, fn in module.functions.items()
            if f != "key_schedule"
            for op in fn.ops
        ):
            out.append(f"{module.cipher} table {name} (4-bit): one TBL per 16 nibbles (the table held in a register)")
    out += _aese_notes(module, e)
    return out


def _aese_notes(module: Module, e) -> list[str]:
    """8-bit tables with an affine map on both sides of AES's S-box: AESE or TBL, by instruction count."""
    two = [
        name
        for name, t in module.tables.items()
        if len(t.values) == 256
        and t.in_width == 8
        and aes_form(t.values, two_sided_forms=False) is None
        and aes_form(t.values) is not None
    ]
    if not two or e.schedule.get("crypto") is not None:
        return []
    base = e.schedule
    plain = base.__class__(
        base.cipher, base.target, base.layout, tuple(p for p in base.params if p[0] != "sha3"), base.rounds
    )
    tbl, aese = crypto_counts(module, plain)
    return [
        f"{module.cipher} table {name}: affine-equivalent to GF(2^8) inversion (cipherspec/sbox.py), an affine map "
        f"on each side of AES's S-box -> AESE + 4 nibble TBLs possible ({with_flags(plain, ('crypto',)).name}: "
        f"{aese} instructions per group vs {tbl} with TBL lookups in {plain.name}): TBL kept, fewer instructions"
        for name in two
    ]
