"""Build notes: which technique each bit-linear layer and each 4-bit table of a C library got, and why.

The layers come from the IR analysis (cipherspec/bitlinear.py), the tables from the module; what each
costs is the schedule's (its kernel layouts: the library's own, and an aesni library's fallback).

    notes(present80, bitsliced_v32) ->
      ["present80 encrypt: 32 x bit permutation of 64 bits + 64 round-key XOR terms (present.cs:33:11, ...)
        -> bitsliced: plane renaming, 0 instructions for the bit movement (64 plane XORs: ...); ...",
       "present80 table S (4-bit; lookups: 496 in encrypt): Boolean circuit of 20 gates, inlined at each lookup; ..."]
"""

from __future__ import annotations

from cipherspec.bitlinear import Layer, module_layers
from cipherspec.ir import Module
from cipherspec.schedule import Schedule

from .gfnilayers import Plan, plans

MAX_NOTES = 3  # layer notes per function: the most frequent shapes
MIN_OPS = 4  # smaller layers (a rotation and a key XOR between two additions) are not worth a note


def _layer_technique(lay: Layer, layout: str, plan: Plan | None = None) -> str:
    if layout == "bitsliced":
        perm = lay.kind in ("bit permutation", "bit selection")
        head = (
            "bitsliced: plane renaming, 0 instructions for the bit movement"
            if perm
            else f"bitsliced: {lay.xor_bits} plane XORs (its binary matrix as an XOR network; shifts/masks are renaming)"
        )
        if perm and lay.xor_bits:
            head += f" ({lay.xor_bits} plane XORs: the key/XOR terms)"
        return head + "; GFNI/byte shuffles not needed: a bit-plane layout has no bits to move"
    if layout == "aesni":
        return "aesni: the AES round instructions / byte shuffles where the layer is AES's, else the bitsliced fallback's renaming"
    if layout == "sliced" and plan is not None:
        tail = " (variants gfni_avx512, gfni_avx2; avx512, avx2, sse2: the shifts and masks)" if plan.chosen else ""
        return f"sliced: {plan.note()}{tail}"
    return (
        f"{layout}: shifts, masks and ORs as written ({lay.ops} word ops per layer); "
        "GFNI bit-matrix multiplies are implemented for sliced kernels on byte words only -- "
        "the constant-time default for a spec with tables is bitsliced, where the layer is free"
    )


def layer_notes(module: Module, schedule: Schedule, found: dict[str, list[Layer]] | None = None) -> list[str]:
    """One note per function and kind of layer (the same layer in every round counts once, with its count)."""
    out = []
    found = module_layers(module) if found is None else found
    gfni = _gfni_plans(module, schedule) if schedule.layout == "sliced" else {}
    for fname, lays in found.items():
        groups: dict[str, list[Layer]] = {}
        for lay in lays:
            if lay.ops >= MIN_OPS and len(lay.rounds) <= 2:  # a round's layer (not the affine web of a logic network)
                groups.setdefault(lay.describe(), []).append(lay)
        for what, members in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:MAX_NOTES]:
            origins = sorted({o for lay in members for o in lay.origins})
            where = ", ".join(origins[:4]) + (", ..." if len(origins) > 4 else "")
            lay = max(members, key=lambda x: x.ops)
            plan = gfni.get((fname, what, lay.origins)) or gfni.get((fname, what, ()))
            out.append(
                f"{module.cipher} {fname}: {len(members)} x {what} ({where}) -> "
                + _layer_technique(lay, schedule.layout, plan)
            )
    return out


def _gfni_plans(module: Module, schedule: Schedule) -> dict[tuple, Plan]:
    """(function, layer description, origins) -> the GFNI plan of that layer in the sliced kernel's prepared
    function (what the kernel emits); (function, description, ()) -> the costliest plan of that description."""
    from .prepare import prepare

    prep = prepare(module, schedule)
    keys = tuple(arr.name for arr in module.key_arrays)
    out: dict[tuple, Plan] = {}
    for fname in ("encrypt", "decrypt"):
        for p in plans(prep.functions[fname], prep.tables, keys):
            what = p.layer.describe()
            out.setdefault((fname, what, p.layer.origins), p)
            prev = out.get((fname, what, ()))
            if prev is None or p.layer.ops > prev.layer.ops:
                out[(fname, what, ())] = p
    return out


def table_notes(module: Module, schedule: Schedule) -> list[str]:
    """4-bit tables: circuit or lookup, and why."""
    from .bitslice import circuit_gates
    from .bitsliced import INLINE_GATES

    out = []
    for name, table in module.tables.items():
        if table.in_width != 4:
            continue
        uses = {
            fname: sum(1 for op in fn.ops if op.code == "lut" and op.imm[0] == name)
            for fname, fn in module.functions.items()
            if fname != "key_schedule"
        }
        used = ", ".join(f"{n} in {f}" for f, n in uses.items() if n)
        if not used:
            continue
        if schedule.layout in ("bitsliced", "aesni"):
            gates = circuit_gates(table)
            how = f"Boolean circuit of {gates} gates" + (", inlined at each lookup" if gates <= INLINE_GATES else "")
            why = (
                "PSHUFB/TBL/GFNI would need each nibble in a byte lane, which a bit-plane layout does not have "
                "(and a memory table indexed by secret data is not constant-time)"
            )
        else:
            how = "16-entry table lookup per nibble (indexed by secret data: NOT constant-time)"
            why = "the constant-time default (bitsliced) runs it as a circuit; PSHUFB/TBL lookups are not implemented"
        out.append(f"{module.cipher} table {name} (4-bit; lookups: {used}): {how}; {why}")
    return out


def notes(module: Module, schedule: Schedule) -> list[str]:
    """The technique notes of one library (its bit-linear layers, its 4-bit tables, its 8-bit S-boxes)."""
    from . import sbox_notes

    return layer_notes(module, schedule) + table_notes(module, schedule) + sbox_notes.notes(module, schedule)
