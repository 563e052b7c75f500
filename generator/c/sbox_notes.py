"""Build notes on 8-bit S-boxes: which technique each secret-indexed 8-bit table of a C library got, and why
not the others, from the IR's S-box facts (cipherspec/sbox.py) and the schedule (techniques.py adds them
to its notes on layers and 4-bit tables).

    notes(sm4, sm4_c_aesni) ->
      ["sm4 table S (u8, bijective, differential uniformity 4, ...): affine-equivalent to GF(2^8) inversion ->
        gfni (VGF2P8AFFINEQB + VGF2P8AFFINEINVQB; levels gfni_avx512, gfni_avx2), else AESENCLAST with
        PSHUFB nibble maps (vaes_avx512, vaes_avx2, aesni), else the inversion circuit with affine XOR
        networks (bitsliced fallback); this CPU: gfni"]
"""

from __future__ import annotations

from pathlib import Path

from cipherspec.ir import Module
from cipherspec.sbox import facts
from cipherspec.schedule import Schedule

from .prepare import prepare


def cpu_flags() -> set[str]:
    """The build host's CPU flags (Linux /proc/cpuinfo; empty elsewhere)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    return set(line.split(":", 1)[1].split()) if ":" in line else set()


def _host(word: bool) -> str:
    flags = cpu_flags()
    if not flags:
        return "this CPU: unknown"
    if word and "gfni" in flags and "avx2" in flags:
        return "this CPU: gfni"
    if "aes" in flags:
        return "this CPU: AES instructions" + ("; gfni not on this CPU" if word else "")
    return "this CPU: no AES-NI, the bitsliced fallback"


def notes(module: Module, schedule: Schedule) -> list[str]:
    """One note per 8-bit table the cipher indexes with data or key (encrypt, decrypt)."""
    prep = prepare(module, schedule)
    used = sorted({op.imm[0] for k in ("encrypt", "decrypt") for op in prep.functions[k].ops if op.code == "lut"})
    out = []
    for name in used:
        table = prep.tables[name]
        f = facts(table.values)
        if table.in_width != 8 or f is None:
            continue
        out.append(f"{module.cipher} table {name} ({f.describe()}): {_technique(module, schedule, name, f)}")
    return out


def _technique(module: Module, schedule: Schedule, name: str, f) -> str:
    from generator.common.bitslice import circuit_choice, two_sided

    from .bitslice import Planes
    from .schedules import aesni_support

    inv = f is not None and f.inversion is not None
    values = tuple(module.tables[name].values)
    circuit = (
        "the GF(2^8) inversion circuit with the affine maps as XOR networks, the smallest lowering of those "
        f"offered ({circuit_choice(values, Planes.SBOX_SHAPES)})"
        if inv and two_sided(values) is not None
        else "the GF(2^8) inversion circuit (Boyar-Peralta) with the affine maps as XOR networks"
        if inv
        else "a synthesized Boolean circuit (generator/common/sbox_synth.py)"
    )
    if schedule.layout == "aesni":
        from .aesni import has_gfni_sboxes

        if has_gfni_sboxes(module):
            return (
                "affine-equivalent to GF(2^8) inversion -> gfni (VGF2P8AFFINEQB for B·x ^ b, VGF2P8AFFINEINVQB "
                "for A·inv ^ a: levels gfni_avx512, gfni_avx2), else AESENCLAST with PSHUFB nibble maps for the "
                f"affine maps (vaes_avx512, vaes_avx2, aesni), else {circuit} (bitsliced fallback: avx2, sse2); "
                + _host(True)
            )
        return (
            "affine-equivalent to the AES S-box -> AESENC/AESENCLAST (AESDEC*) with PSHUFB nibble maps "
            f"(vaes_avx512, vaes_avx2, aesni), else {circuit} (bitsliced fallback); gfni: not used by the "
            "round kernels (the AES instructions already compute the whole S-box); " + _host(False)
        )
    if schedule.layout == "bitsliced":
        why = aesni_support(module)
        return f"{circuit}" + (f"; aesni/gfni not available: {why}" if why else "; aesni/gfni: --schedule aesni")
    why = aesni_support(module)
    alt = "--schedule aesni (AES/GFNI instructions)" if not why else "--schedule bitsliced_v32"
    return f"memory lookups (NOT constant-time); constant-time alternative: {alt}"
