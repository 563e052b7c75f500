"""The key schedule as scalar C, shared by every library that sets keys on the CPU: the C library's set_key
(library.py) and the NEON library's <cipher>_neon_key_schedule (generator/neon/keysched.py).

    prep = key_prep(module, schedule)                      # gmul lowered to shifts and XORs
    lines = key_schedule_lines(module, prep, ct=True)      # statements: key words in, round keys out
    support = ct_lookups(tables)                           # the circuits those lines call (ct=True)

With ``ct`` a table lookup is its Boolean circuit on masks (cs_ctn_<T>: no memory access depends on the
key); without it, an index into the table (the C table schedules, which say they are not constant-time).
Independent lookups of one table share a circuit run (lutbatch.py: lookup i in bit i of every mask):

    before: %5 = lut.u8 S %1   %6 = lut.u8 S %2   %7 = lut.u8 S %3   %8 = lut.u8 S %4      (AES SubWord)
    after:  uint8_t b5_in[4] = {(uint8_t)v1, ...};  uint8_t b5_out[4];  cs_ctn_S(b5_in, b5_out, 4);
            const uint8_t v5 = b5_out[0];  ...                    /* aes.cs:... key_schedule r1 */
            cs_ctn_S: index bits -> masks (lane i: lookup i) -> cs_ksbox_S (Boyar-Peralta, 113 gates) -> bytes
"""

from __future__ import annotations

from collections.abc import Callable

from cipherspec.ir import Function, Module, Table
from cipherspec.passes.split_u64 import interface_word
from cipherspec.sbox import facts
from cipherspec.schedule import Schedule

from ..common.bitslice import live_bits
from . import bitsliced as bs
from .aesni.sboxes import INV_SHIFT_ROWS, bytes16, nibbles
from .body import emit_body
from .dialects import Scalar, narrowest
from .lutbatch import LookupBatch, batched_order
from .prepare import Prepared, prepare
from .text import fragment, key_slots, load, table_section, with_comment


def key_prep(module: Module, schedule: Schedule) -> Prepared:
    """The key schedule as the scalar layout prepares it (GF multiplies lowered to shifts and XORs)."""
    t = schedule.get("t")
    return prepare(module, Schedule(module.cipher, "c", "scalar", (("t", t),) if t else (), schedule.rounds))


def key_schedule_lines(
    module: Module,
    prep: Prepared,
    ct: bool,
    store: Callable[[str], str] | None = None,
    aesni: frozenset[str] = frozenset(),
) -> list[str]:
    """The key schedule's statements: key words read from ``key`` (a byte pointer), each round key
    assigned to ``store(flat name)`` (default: the C library's ``ks-><array>[i]``); constant-time lookups
    if ``ct``, those of the tables in ``aesni`` through AESENCLAST (cs_ctn_aesni_<T>, aesni_tables).
    A key split into 32-bit halves (split_u64, the CUDA library) reads each half as its word."""
    first, _ = key_schedule_parts(module, prep, ct, None, store, aesni)
    return first


def key_schedule_parts(
    module: Module,
    prep: Prepared,
    ct: bool,
    first: frozenset[str] | None,
    store: Callable[[str], str] | None = None,
    aesni: frozenset[str] = frozenset(),
) -> tuple[list[str], list[str]]:
    """key_schedule_lines, emitted once in two parts: the statements ``first``'s key arrays need (their
    round keys and every op they depend on, stored), then the rest of the schedule (the other arrays).  The
    first part never reads the second, so a caller may stop after it: an encrypt-only key (encryption_arrays)
    is the first part alone, the full key both -- one body, not a second copy of the schedule.  ``first``
    None: every statement in the first part.

        before: cs_key_schedule { all ops }   cs_key_schedule_enc { the ops ek needs, again }
        after:  { the ops ek needs; ek stores }  if (enc_only) return;  { the other ops; dk stores }"""
    fn = prep.functions["key_schedule"]
    live = _needed(fn, first)
    ind = "    "
    head = []
    for name, _, _ in fn.inputs():
        i = interface_word(name, module.key.endian)
        ptr = f"key + {i * module.key.width // 8}"
        head.append(
            with_comment(f"{ind}const uint{module.key.width}_t k{i} = {load(module.key, ptr)};", f"key word {name}")
        )
    order: list[int | LookupBatch] = batched_order(fn) if ct else list(range(len(fn.ops)))
    parts: tuple[list[int | LookupBatch], list[int | LookupBatch]] = ([], [])
    for item in order:  # independent lookups share one circuit run (batched_order), a batch cut at the split
        if isinstance(item, LookupBatch):
            for part, want in zip(parts, (True, False)):
                ops = tuple(i for i in item.ops if live[i] == want)
                if ops:
                    part.append(LookupBatch(item.table, ops))
        else:
            parts[0 if live[item] else 1].append(item)
    if store is None:
        slots = key_slots(module)

        def store(name: str) -> str:
            member, idx = slots[name]
            return f"ks->{member}[{idx}]"

    out: tuple[list[str], list[str]] = (head, [])
    for k, (lines, part) in enumerate(zip(out, parts)):
        body = emit_body(
            fn,
            Scalar(ct_lookups=ct, aesni=aesni),
            prep.tables,
            lambda name, w: f"k{interface_word(name, module.key.endian)}",
            ind,
            order=part,
        )
        lines += body.lines
        for name, _ in fn.outputs:
            if (first is None or name.split("[", 1)[0] in first) == (k == 0):
                lines.append(with_comment(f"{ind}{store(name)} = {body.outputs[name]};", f"round key {name}"))
    return out


def _needed(fn: Function, arrays: frozenset[str] | None) -> list[bool]:
    """Per op: do the round keys of ``arrays`` (None: every array) depend on it?  Inputs always do."""
    live = [op.code == "input" for op in fn.ops]
    for name, v in fn.outputs:
        if arrays is None or name.split("[", 1)[0] in arrays:
            live[v] = True
    for i in range(len(fn.ops) - 1, -1, -1):
        if live[i]:
            for a in fn.ops[i].args:
                live[a] = True
    return live


def encryption_arrays(module: Module) -> frozenset[str] | None:
    """The key arrays the encrypt function reads, when they are fewer than the key schedule makes (ARIA: ek
    without dk; AES, LEA: None, the one array serves both directions).  An encrypt-only key (the DRBG's
    update, CTR) needs only these: the rest of the schedule is dead code for it.

        before: key_schedule(K) -> ek, dk     every set_key makes both (ARIA-128: 11 diffusion layers for dk)
        after:  encryption_arrays -> {"ek"}   cs_key_schedule_enc makes ek, zeroes dk"""
    used = frozenset(module.uses_keys.get("encrypt", ()))
    made = frozenset(a.name for a in module.key_arrays)
    return used if used and used < made else None


def lookup_tables(prep: Prepared, functions: list[str]) -> dict[str, Table]:
    """The tables ``functions`` of the prepared module look up, in table order."""
    used = {op.imm[0] for f in functions for op in prep.functions[f].ops if op.code == "lut"}
    return {name: t for name, t in prep.tables.items() if name in used}


def lookup_support(tables: dict[str, Table], ct: bool) -> list[str]:
    """C sections the lookups of key_schedule_lines need: the circuits and cs_ctn_<T> (``ct``), else the
    tables as arrays; nothing without tables."""
    if not tables:
        return []
    if not ct:
        return [table_section(list(tables.values()))]
    circuits = "\n".join([fragment("masks.c"), fragment("noinline.c")] + bs.sbox_functions(tables, masks=True))
    return [circuits] + [_ct_lookup(t) for t in tables.values()]


def aesni_tables(tables: dict[str, Table]) -> frozenset[str]:
    """The tables an AESENCLAST can evaluate: 8 bits in and out, affine-equivalent to GF(2^8) inversion
    (cipherspec/sbox.py's facts; the AES S-box and its inverse, ARIA's, SM4's, Camellia's ...)."""
    return frozenset(
        name
        for name, t in tables.items()
        if t.in_width == 8 and t.out_width == 8 and (f := facts(t.values)) is not None and f.inversion is not None
    )


def aesni_lookup_support(tables: dict[str, Table]) -> list[str]:
    """The C section for set_key's AES-NI route: cs_ctn_aesni_<T> of every table in aesni_tables, under
    CS_KS_AESNI (x86-64 with GCC/Clang; the functions carry a target attribute).  Nothing when none fits.

        before: cs_ctn_S(b5_in, b5_out, 4)          the S-box circuit on masks (113 gates, bits transposed)
        after:  cs_ctn_aesni_S(b5_in, b5_out, 4)    PSHUFB (InvShiftRows) + AESENCLAST with a zero key"""
    names = aesni_tables(tables)
    if not names:
        return []
    parts = [fragment("ks_aesni_head.c"), "#ifdef CS_KS_AESNI"]
    for name in sorted(names):
        out_aes, in_aes = facts(tables[name].values).inversion.via_aes()  # type: ignore[union-attr]
        maps = [
            (tag, bytes16(lo), bytes16(hi))
            for tag, mp in (("in", in_aes), ("out", out_aes))
            if not mp.identity
            for lo, hi in [nibbles(mp)]
        ]
        parts.append(
            fragment(
                "ct_lookup_aesni.c",
                table=name,
                isr=bytes16(INV_SHIFT_ROWS),
                maps=maps,
                has_in=not in_aes.identity,
                has_out=not out_aes.identity,
            )
        )
    parts.append("#endif")
    return ["\n".join(parts)]


def _ct_lookup(table: Table) -> str:
    """cs_ctn_T(v, r, n): table T read through its circuit on masks (set_key's constant-time lookups); the circuit
    returns only the live output bits (live_bits), the others are constants of the table."""
    live = live_bits(table)
    const = sum(table.values[0] & (1 << j) for j in range(table.out_width) if j not in live)
    gather_lane = "\n".join(f"        o |= (uint32_t)((y[{k}] >> i) & 1u) << {j};" for k, j in enumerate(live))
    return fragment(
        "ct_lookup.c",
        table=table.name,
        nin=table.in_width,
        nlive=max(len(live), 1),
        const=const,
        gather_lane=gather_lane,
        in_bits=narrowest(table.in_width),
        out_bits=narrowest(table.out_width),
    )
