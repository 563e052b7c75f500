"""NEON schedules: layout and interleave, as named values.

    sliced:  <cipher>_neon_b<L>_il<k>     L = blocks per register (128 / word width), k block groups in flight
    e.g.     lea128_neon_b4_il4, aria128_neon_b16_il1, pipo64_128_neon_b16_il2, cham64_128_neon_b8_il2,
             speck128_128_neon_b2_il4 (64-bit words: two blocks per register)
    packed:  <cipher>_neon_packed_il<k>   each block in contiguous lanes, 64·k bytes per group (packed.py)
    e.g.     aria128_neon_packed_il1 (4 blocks), pipo64_128_neon_packed_il2 (16 blocks)
    _crypto (sliced): S-boxes affine-equivalent to AES's via AESE/AESD (-march=armv8-a+crypto), e.g.
             aria128_neon_b16_crypto_il1   (parameters in name order; a valueless flag)
    _sha3 (sliced): EOR3/BCAX three-input logic (FEAT_SHA3, -march=armv8.2-a+sha3), e.g.
             pipo64_128_neon_b16_il2_sha3

The default interleave fills about half the register file with state: k = clamp(16 // words, 1, 4), or a
quarter when the cipher looks up 256-byte tables (their 64-byte slices take 16 registers): clamp(8 // words).
"""

from __future__ import annotations

import re

from cipherspec.errors import UsageError
from cipherspec.ir import Module
from cipherspec.schedule import Schedule

from .arrangement import ARR

_LAYOUT = re.compile(r"^b(\d+)$")
FLAGS = ("crypto", "sha3")  # valueless schedule flags, each needing a CPU feature (dispatch.FEATURES)


def default(module: Module, rounds: int | None = None) -> Schedule:
    lanes = 128 // module.block.width if module.block.width in ARR else 1
    lookups = any(op.code == "lut" for op in module.functions["encrypt"].ops)
    il = max(1, min(4, (8 if lookups else 16) // max(1, module.block.count)))  # a table's slices take 16
    return Schedule(module.cipher, "neon", f"b{lanes}", (("il", il),), rounds)


def parse(name: str, cipher: str, rounds: int | None) -> Schedule:
    """A schedule name (or None-safe full name) -> Schedule; the cipher part must match."""
    prefix = cipher + (f"r{rounds}" if rounds is not None else "") + "_neon_"
    if not name.startswith(prefix):
        raise UsageError(f"schedule '{name}' is not a neon schedule of {cipher} (expected '{prefix}b<L>_il<k>')")
    parts = name[len(prefix) :].split("_")
    m = _LAYOUT.match(parts[0])
    params: dict[str, str | int] = {}  # flags: "", il: an int
    for p in parts[1:]:
        if p in FLAGS:
            params[p] = ""
            continue
        pm = re.match(r"^il(\d+)$", p)
        if not pm:
            raise UsageError(f"schedule '{name}': unknown part '{p}' (known: crypto, sha3, il<k>)")
        params["il"] = int(pm.group(1))
    if not m and parts[0] != "packed":
        raise UsageError(f"schedule '{name}': unknown layout '{parts[0]}' (known: b<L>, the sliced layout; packed)")
    il = int(params.get("il", 1))
    if not 1 <= il <= 8:
        raise UsageError(f"schedule '{name}': interleave must be 1..8")
    for f in FLAGS:
        if f in params and parts[0] == "packed":
            raise UsageError(f"schedule '{name}': {f} is a sliced-layout option")
    return Schedule(cipher, "neon", parts[0], tuple(params.items()) + (("il", il),) * ("il" not in params), rounds)


def library_prefix(cipher: str, rounds: int | None) -> str:
    """The prefix of a cipher's NEON library API (the dispatcher's, the key schedule's): aes128_neon,
    cham128_128r80_neon (rounds given)."""
    return f"{cipher}{'' if rounds is None else f'r{rounds}'}_neon"


def crypto(s: Schedule) -> bool:
    """Whether the schedule selects the AES instructions (FEAT_AES, -march=armv8-a+crypto)."""
    return "crypto" in dict(s.params)


def sha3(s: Schedule) -> bool:
    """Whether the schedule selects EOR3/BCAX (FEAT_SHA3, -march=armv8.2-a+sha3; sha3.py)."""
    return "sha3" in dict(s.params)


def arch(s: Schedule) -> str:
    """The .arch directive the schedule's instructions need ("" for base Armv8-A)."""
    if sha3(s):
        return "armv8.2-a+sha3" + "+crypto" * crypto(s)
    return "armv8-a+crypto" if crypto(s) else ""


def check(s: Schedule, module: Module) -> tuple[int, int]:
    """(lanes, il) after checking that a sliced layout fits the cipher's words (packed: lanes = block bytes;
    packed.check_packed checks the block when the driver makes the layout object)."""
    if s.layout == "packed":
        return module.block.nbytes, s.get("il", 1)
    layout = _LAYOUT.match(s.layout)
    assert layout is not None  # parse() takes b<L> or packed
    lanes = int(layout.group(1))
    want = 128 // module.block.width if module.block.width in ARR else None
    if lanes != want:
        raise UsageError(
            f"schedule {s.name}: {module.cipher} has {module.block} blocks; the sliced layout puts "
            f"{want} blocks in a register (b{want})"
            if want
            else f"not supported by neon: {module.block} words; use --target c"
        )
    return lanes, s.get("il", 1)
