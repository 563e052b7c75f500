"""Run-time dispatch: one library per cipher carrying every applicable variant, picked by CPU features.

A variant is a schedule plus the CPU features it needs; the list is in preference order and always ends
with the portable default (Advanced SIMD only).  The dispatcher (<cipher>_neon.c) tests each variant's
features once, on Linux with getauxval(AT_HWCAP), and calls the first that fits; elsewhere it takes the
portable one.  Environment overrides, for testing: CIPHERSPEC_NEON_NO_CRYPTO=1 forces portable,
CIPHERSPEC_NEON_NO_SHA3=1 turns off the variants needing FEAT_SHA3.

    variants(aria128)   -> [Variant(aria128_neon_b16_crypto_il1_sha3, ("crypto", "sha3")),
                            Variant(aria128_neon_b16_crypto_il1, ("crypto",)), Variant(aria128_neon_b16_il1, ())]
    variants(lea128)    -> [Variant(lea128_neon_b4_il4, ())]
    files = render(module, [emit(module, v.schedule) for v in vs], vs)
          -> {"aria128_neon.h": ..., "aria128_neon.c": ...}   (API: aria128_neon_ecb_encrypt, ..., _variant())
Variants must agree on group size and key tables (the same il): the dispatched API is theirs.
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.errors import UsageError
from cipherspec.ir import Module
from cipherspec.schedule import Schedule

from ..common.templates import render as render_template
from . import sha3 as SHA3
from .aesform import form as aes_form
from .kernel import build_kernels
from .prepare import prepare
from .schedules import default, library_prefix

# schedule flag -> (architecture feature, Linux HWCAP name, its bit, env variables that turn it off)
FEATURES = {
    "crypto": ("FEAT_AES", "HWCAP_AES", 1 << 3, ("CIPHERSPEC_NEON_NO_CRYPTO",)),
    "sha3": ("FEAT_SHA3", "HWCAP_SHA3", 1 << 17, ("CIPHERSPEC_NEON_NO_CRYPTO", "CIPHERSPEC_NEON_NO_SHA3")),
}


@dataclass(frozen=True)
class Variant:
    schedule: Schedule
    features: tuple[str, ...]  # schedule flags needing CPU features (keys of FEATURES)


def _bytes_tables(module: Module) -> list:
    return [t for t in module.tables.values() if len(t.values) == 256 and t.in_width == 8 and t.out_width == 8]


def crypto_applies(module: Module, base: Schedule | None = None) -> bool:
    """Whether AESE/AESD compute some S-box of the cipher: one affine-equivalent to AES's with at most one
    affine map (AES, ARIA), or, for a map on both sides (SM4: aesform.py), where the kernels with AESE have
    fewer instructions than with TBL lookups (crypto_counts)."""
    if any(aes_form(t.values, two_sided_forms=False) is not None for t in _bytes_tables(module)):
        return True
    if base is None or not any(aes_form(t.values) is not None for t in _bytes_tables(module)):
        return False
    tbl, aese = crypto_counts(module, base)
    return aese < tbl


def crypto_counts(module: Module, base: Schedule) -> tuple[int, int]:
    """Instructions per group of the encryption kernel of ``base`` with TBL lookups and with AESE/AESD
    (cached per module object and schedule: the dispatcher and the build notes both ask)."""
    hit = _COUNTS.get((id(module), base.name))
    if hit is None or hit[0] is not module:
        counts = [len(build_kernels(module, s).kernels[0].body) for s in (base, with_flags(base, ("crypto",)))]
        hit = _COUNTS[(id(module), base.name)] = (module, (counts[0], counts[1]))
    return hit[1]


_COUNTS: dict[tuple[int, str], tuple[Module, tuple[int, int]]] = {}


def with_flags(s: Schedule, flags: tuple[str, ...]) -> Schedule:
    return Schedule(s.cipher, s.target, s.layout, s.params + tuple((f, "") for f in flags), s.rounds)


def sha3_applies(module: Module) -> bool:
    """Whether the EOR3/BCAX rules (sha3.py) fuse any op of the cipher's encryption."""
    return SHA3.savings(prepare(module).functions["encrypt"]) > 0


def variants(module: Module, rounds: int | None = None) -> list[Variant]:
    """The default library's variants, best first; the last is the portable default schedule.

    aria128 -> crypto+sha3, crypto, portable;  pipo64_128 -> sha3, portable;  lea128 -> portable
    (a CPU with SHA3 but no AES is rare: no sha3-only variant where crypto applies)."""
    base = default(module, rounds)
    flags = []
    if base.layout != "packed":
        flags = [f for f, ok in (("crypto", crypto_applies(module, base)), ("sha3", sha3_applies(module))) if ok]
    out = []
    if len(flags) == 2:
        out.append(Variant(with_flags(base, tuple(flags)), tuple(flags)))
    if flags:
        out.append(Variant(with_flags(base, tuple(flags[:1])), tuple(flags[:1])))
    return out + [Variant(base, ())]


def render(module: Module, emitted: list, vs: list[Variant]) -> dict[str, str]:
    """The dispatching header and C file over the variants' emitted kernels (emit.Emitted, same order)."""
    first = emitted[-1]
    for e in emitted:
        if e.group_blocks != first.group_blocks or [k.keys for k in e.kernels] != [k.keys for k in first.kernels]:
            raise UsageError(f"{e.schedule.name}: variants of one library need the same groups and key tables")
    base = first.schedule
    prefix = library_prefix(base.cipher, base.rounds)
    rows = []
    for v, e in zip(vs, emitted):
        conds = [FEATURES[f] for f in v.features]
        rows.append(
            dict(
                name=e.schedule.name,
                conds=conds,
                needs=" + ".join(c[0] for c in conds) or "Advanced SIMD only (portable)",
                off=sorted({env for c in conds for env in c[3]}),
            )
        )
    ctx = dict(
        cipher=module.cipher,
        prefix=prefix,
        rows=rows,
        modes=first.modes,
        header_name=f"{prefix}.h",
        guard=prefix.upper() + "_H",
    )
    # the header: the portable variant's, renamed to the dispatching prefix (same groups, keymaps, prepare)
    header = first.header.replace(base.name, prefix).replace(base.name.upper(), prefix.upper())
    header = header.replace(f"schedule {prefix}:", f"run-time dispatch (below); portable variant {base.name}:")
    body, end = header.rsplit("#endif\n", 1)
    header = body + render_template("neon/dispatch.h.j2", **ctx) + "#endif\n" + end
    return {f"{prefix}.h": header, f"{prefix}.c": render_template("neon/dispatch.c.j2", **ctx)}
