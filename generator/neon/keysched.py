"""The NEON library's key schedule, <prefix>_key_schedule(key, key_len, rk): the round keys as the flat
words the header's <prefix>_prepare_keys broadcasts into a kernel's key table, computed on the CPU in C.

It is the C backend's scalar key schedule (generator/c/keysched.py: one code path for both libraries),
with S-box lookups as Boolean circuits on masks (one lookup per bit), so no memory address depends on the key:

    before: %5 = lut.u8 S %4                       (a key byte through the AES S-box)
    after:  cs_ctn_S(b5_in, b5_out, 4); v5 = b5_out[0]   (the circuit; no cs_tab_S[v4])

    key_files(module, rounds) -> {"aes128_neon_key.c": ...}   (aes128_neon_key_schedule, for every schedule)

``ct=False`` writes the same function with table lookups: only the tests use it, to show that the
constant-time check (tests/differential/test_neon_constant_time.py) catches a secret-indexed lookup.
"""

from __future__ import annotations

import os

from cipherspec.ir import Module
from cipherspec.schedule import Schedule

from ..c.keysched import key_prep, key_schedule_lines, lookup_support, lookup_tables
from ..c.text import fragment
from ..common.templates import render
from .schedules import library_prefix


def ct_note(module: Module) -> str:
    """One line on timing side channels for every NEON schedule of the cipher (build notes, key.c banner)."""
    if not any(op.code == "lut" for fn in module.functions.values() for op in fn.ops):
        return "Constant-time: no table lookups, no secret-dependent branches, in the kernels and the key schedule."
    return (
        "Constant-time: the kernels look tables up in registers (TBL/TBX on whole 64-byte slices loaded at "
        "fixed addresses, AESE/AESD), the key schedule evaluates S-boxes as Boolean circuits: no memory "
        "address or branch depends on the key or the data."
    )


def key_word_bits(module: Module) -> int:
    """Bits of one flat round-key word as the host passes them: 64 where keys or block words are 64-bit."""
    return 64 if max([module.block.width] + [ka.width for ka in module.key_arrays]) == 64 else 32


def flat_index(module: Module) -> dict[str, int]:
    """Round-key name -> its word in the flat array (key arrays in declaration order)."""
    flat = [n for ka in module.key_arrays for n in ka.flat_names()]
    return {n: i for i, n in enumerate(flat)}


def key_files(module: Module, rounds: int | None) -> dict[str, str]:
    """The key schedule's file: one per cipher (and round count), named by the library prefix, the same
    for every schedule (so a build cache compiles it once)."""
    prefix = library_prefix(module.cipher, rounds)
    return {f"{prefix}_key.c": key_source(module, prefix)}


def key_source(module: Module, prefix: str, ct: bool = True) -> str:
    prep = key_prep(module, Schedule(module.cipher, "c", "scalar", (), None))
    index = flat_index(module)
    lines = key_schedule_lines(module, prep, ct, store=lambda name: f"rk[{index[name]}]")
    return render(
        "neon/key.c.j2",
        source=os.path.basename(module.source) if module.source else module.cipher,
        cipher=module.cipher,
        prefix=prefix,
        ct_note=ct_note(module) if ct else "NOT constant-time: S-boxes as tables indexed by key bytes.",
        key_type=f"uint{key_word_bits(module)}_t",
        key_bytes=module.key.nbytes,
        key_words=len(index),
        words=fragment("words.c"),
        support=lookup_support(lookup_tables(prep, ["key_schedule"]), ct),
        lines=lines,
    )
