"""The library's own source, src/<cipher>.c: set_key, ECB/CBC/CTR over the kernels, run-time dispatch.

Compiled once (no ISA flags).  What it holds:

    cs_key_schedule     the IR key schedule as scalar C (keysched.py); with enc_only, its first part alone (the
                        encryption round keys where encrypt reads fewer arrays: P_cs_set_key_encrypt, hidden, the
                        DRBG).  In a constant-time library (aesni, bitsliced) its S-box lookups are circuits on
                        masks (cs_ctn_<T>, no secret-indexed memory); a bitsliced kernel's round-key planes (ks->bs) are derived
                        from the bytes
    the kernel table    every variant (variants.py), best first, with the CPU features it needs
    dispatch            CPUID + XGETBV once at first use (thread-safe), CIPHERSPEC_X86_ISA as a ceiling,
                        <cipher>_variant(), _variant_for(isa), _variant_name(i), _dispatch_error()
    the API             set_key / set_key_isa (the key remembers its variant), the modes' argument checks,
                        CBC chaining and partial CTR blocks; whole blocks go to the variant's kernels
    GHASH               (128-bit blocks) portable, PCLMULQDQ, VPCLMULQDQ ymm/zmm (fragments/ghash.c),
                        chosen with the kernels under the same ISA ceiling (the key remembers it)
    the AEAD modes      GCM/GMAC, CCM, XTS (128-bit blocks) and CMAC (any block) over the kernels
                        (fragments/aead.c)

    library_source(module, schedule, ct_note) -> "/* aes128.c ... */"
"""

from __future__ import annotations

import os

from cipherspec.ir import Module
from cipherspec.schedule import Schedule
from cipherspec.version import __version__

from ..common.templates import render
from .keysched import (
    aesni_lookup_support,
    aesni_tables,
    encryption_arrays,
    key_prep,
    key_schedule_parts,
    lookup_support,
    lookup_tables,
)
from .prepare import Prepared
from .schedules import CONSTANT_TIME, lanes
from .text import fragment, kernel_tag
from .variants import LEVELS, Variant, compiled_kernels, portable, variants

FEATURE_MACROS = {
    "SSE2": "CS_F_SSE2",
    "V2": "CS_F_V2",
    "AES": "CS_F_AES",
    "V3": "CS_F_V3",
    "VAES": "CS_F_VAES",
    "V4": "CS_F_V4",
    "CLMUL": "CS_F_CLMUL",
    "VCLMUL": "CS_F_VCLMUL",
    "GFNI": "CS_F_GFNI",
}


# CMAC's R_b (SP 800-38B): the low bits of the field polynomial for the block size
CMAC_RB = {8: "0x1b", 16: "0x87"}


def _features(names) -> str:
    return " | ".join(FEATURE_MACROS[f] for f in names) or "0"


def _variant_rows(module: Module, vs: list[Variant], port: Variant) -> str:
    """The kernel table: x86-64 variants (each droppable with -DCS_NO_<NAME>), else the portable one.
    (Serial chains such as CBC-MAC run on cs_kernels_short(ks, k, 1): the key's cheapest run.)"""
    _check_cost_units(module, vs)
    lines = ["#ifdef CS_X86"]
    P = module.cipher
    for v in vs:
        gh, xts, ccm = _fused(module, v)
        decls = [f"CS_DECLARE_CTR_GHASH({P}_{v.name}_ctr_ghash)"] if gh else []
        decls += [f"CS_DECLARE_XTS({P}_{v.name}_xts)"] if xts else []
        decls += [f"CS_DECLARE_CCM({P}_{v.name}_ccm)"] if ccm else []
        lines += [f"#ifndef CS_NO_{v.name.upper()}", f"CS_DECLARE({v.name})", *decls, "#endif"]
    lines.append("static const cs_kernels cs_variants[] = {")
    for v in vs:
        assert v.level is not None  # x86-64 variants have levels; the portable one is below
        gh, xts, ccm = _fused(module, v)
        head = f"{v.name}, {_features(v.level.features)}, {lanes_of_variant(module, v)}, {run_cost(module, v)}"
        if gh or xts or ccm:
            fused = [f"{P}_{v.name}_{f}" if on else "NULL" for f, on in (("ctr_ghash", gh), ("xts", xts), ("ccm", ccm))]
            row = f"CS_ROW_FUSED({head}, {', '.join(fused)})"
        else:
            row = f"CS_ROW({head})"
        lines += [
            f"#ifndef CS_NO_{v.name.upper()}",
            f"    {row},  /* {kernel_tag(v.kernel)}: {v.needs} */",
            "#endif",
        ]
    lines += [
        "};",
        "#else",
        f"CS_DECLARE({port.name})",
        "static const cs_kernels cs_variants[] = {",
        f"    CS_ROW({port.name}, 0, {lanes_of_variant(module, port)}, {run_cost(module, port)}),"
        f"  /* {kernel_tag(port.kernel)} */",
        "};",
        "#endif",
    ]
    return "\n".join(lines)


def run_cost(module: Module, v: Variant) -> int:
    """An estimate of one run of a variant's encryption core, for cs_kernels_short (a short call, and the
    modes' one-block chains, on the variant with the cheapest padded runs): a byte-sliced aesni core's vector
    ops times the 256-bit halves of its registers (x86 cores issue 128- and 256-bit vector ops alike, 512-bit
    ones as two halves or on fewer ports); else the blocks per run (one more lane costs about the same
    everywhere else).  The two units never meet in one comparison (_check_cost_units).

        ARIA-128: aesni 1636 (AES-instruction form, 128-bit), gfni_avx2 1276, gfni_avx512 2552"""
    ops = _byte_sliced_ops(module, v)
    if ops is not None:
        assert v.level is not None  # byte-sliced aesni kernels exist only in x86-64 variants
        return ops * max(1, v.level.vector_bits // 256)
    return lanes_of_variant(module, v)


def _byte_sliced_ops(module: Module, v: Variant) -> int | None:
    if v.kernel.layout != "aesni" or v.level is None:
        return None
    from .aesni import byte_sliced_ops

    return byte_sliced_ops(module, "GFNI" in v.level.features)


def _check_cost_units(module: Module, vs: list[Variant]) -> None:
    """cs_kernels_short compares the chosen variant i with the ones after it whose key format the key has
    (a bitsliced one only after a bitsliced one): their run_cost must be in one unit (vector ops or blocks).
    A new layout that breaks this fails the build here rather than choosing badly at run time."""
    for i, a in enumerate(vs):
        for b in vs[i + 1 :]:
            if b.kernel.layout == "bitsliced" and a.kernel.layout != "bitsliced":
                continue
            if (_byte_sliced_ops(module, a) is None) != (_byte_sliced_ops(module, b) is None):
                raise AssertionError(f"{module.cipher}: run_cost of {a.name} and {b.name} in different units")


def _key_finish(module: Module, vs: list[Variant]) -> str:
    """cs_variant_planes(i): whether variant i's kernels read the round keys as bit planes (bitsliced);
    cs_key_finish(ks, v): what set_key adds for the chosen variant v -- the planes only when it reads them;
    cs_kernels_short(ks, k, blocks): for a call shorter than k's run, the variant the key also serves (a
    subset of k's CPU features; planes only if the key has them) whose padded runs cost least (runs x
    run_cost: padded blocks, or a byte-sliced core's vector ops), else k.  The modes' serial chains (CBC-MAC,
    E_K(0), E_K(J0), a partial block's keystream) call it with 1 block.

        before: cs_key_schedule(ks, key) always ended in cs_key_planes(ks)   (AES-128: ~1 us of ~1.2)
                P_ctr of 2 blocks padded to one 64-block run of the widest byte-sliced kernel (ARIA)
        after:  cs_key_finish(ks, v): cs_key_planes(ks) only for "bitsliced_v16", "bitsliced_v32", ...
                P_ctr of 2 blocks on the 16-block run of the 128-bit variant
                ARIA's E(J0) on gfni_avx2 (a 32-block run, 1276 ops) rather than aesni (16 blocks, 1636)"""
    P = module.cipher
    names = sorted({v.name for v in vs if v.kernel.layout == "bitsliced"})
    test = " || ".join(f'strcmp(name, "{n}") == 0' for n in names) or "0"
    planes = "(void)name;\n    return 0;" if not names else f"return {test};"
    finish = "    if (cs_variant_planes(v)) cs_key_planes(ks);" if names else "    (void)ks;\n    (void)v;"
    return f"""\
/* 1 when variant i's kernels read the round keys as bit planes (ks->bs); no other variant reads them */
static int cs_variant_planes_by_name(int i)
{{
    const char *name = cs_variants[i].name;
    {planes}
}}

/* the same from a mask made once (bit 0: made; bit i + 1: variant i): no string compares per call (every short
   CTR call asks); threads racing at first use store the same value */
static int cs_variant_planes(int i)
{{
#if defined(__GNUC__) || defined(__clang__)
    static unsigned made;
    unsigned m = __atomic_load_n(&made, __ATOMIC_RELAXED);
    if (m == 0) {{
        int j;
        for (m = 1u, j = 0; j < CS_NVARIANTS && j < 31; j++) m |= (unsigned)cs_variant_planes_by_name(j) << (j + 1);
        __atomic_store_n(&made, m, __ATOMIC_RELAXED);
    }}
    return i < 31 ? (int)(m >> (i + 1) & 1u) : cs_variant_planes_by_name(i);
#else
    return cs_variant_planes_by_name(i);
#endif
}}

static void cs_key_finish({P}_key *ks, int v)
{{
{finish}
}}

/* a call of `blocks` blocks, fewer than k's run: the variant whose padded runs cost least for it (runs x
   cost), among those after k (best first) whose features k's include and whose key format the key has; k
   itself when none costs less */
static const cs_kernels *cs_kernels_short(const {P}_key *ks, const cs_kernels *k, size_t blocks)
{{
    const cs_kernels *best = k;
    size_t work = k->cost;  /* one padded run of the chosen variant */
    int i;
    if (blocks >= k->lanes) return k;
    for (i = (int)ks->variant; i < CS_NVARIANTS; i++) {{
        const cs_kernels *c = &cs_variants[i];
        const size_t w = (blocks + c->lanes - 1) / c->lanes * c->cost;
        if ((c->features & k->features) != c->features || w >= work) continue;
        if (cs_variant_planes(i) && !cs_variant_planes((int)ks->variant - 1)) continue;
        best = c;
        work = w;
    }}
    return best;
}}
"""


def _fused(module: Module, v: Variant) -> tuple[bool, bool, bool]:
    """Whether a variant's kernels carry GCM's stitched CTR+GHASH and their own XTS loop
    (fragments/aes_rounds_ctr.c, aes_rounds_xts.c: AES-round kernels, recognised in the IR, on 512-bit
    registers), and CCM's one-pass CBC-MAC+CTR (aes_rounds_ccm.c: AES-round kernels at any width)."""
    if v.kernel.layout != "aesni" or v.level is None:
        return False, False, False
    from .aesni import has_fused_ccm, has_fused_gcm, has_fused_xts, plan

    p = plan(module)
    wide = v.level.vector_bits == 512
    return wide and has_fused_gcm(p), wide and has_fused_xts(p), has_fused_ccm(p)


def lanes_of_variant(module: Module, v: Variant) -> int:
    """Blocks per run of a variant's core (AES-NI kernels: more per wider register)."""
    if v.kernel.layout == "aesni":
        from .aesni import lanes as aesni_lanes

        assert v.level is not None  # aesni kernels exist only in x86-64 variants
        return aesni_lanes(module, v.level.vector_bits)
    return max(lanes(module, v.kernel), 1)


def variant_doc(module: Module, schedule: Schedule) -> str:
    """The banner's table: variant, kernel file, what it needs, how it is compiled."""
    rows = []
    for v in variants(module, schedule) + [portable(module, schedule)]:
        flags = " ".join(v.flags + (f"-DCS_VARIANT={v.name}",))
        rows.append(f" *     {v.name:<12} {module.cipher}_{kernel_tag(v.kernel)}.c  {v.needs}: {flags}")
    return "\n".join(rows)


def chunk(module: Module, schedule: Schedule) -> int:
    """Blocks CBC decryption buffers per kernel call: a multiple of every variant's run, at least 16."""
    return max([16] + [lanes_of_variant(module, v) for v in variants(module, schedule) + [portable(module, schedule)]])


def library_source(module: Module, schedule: Schedule, ct_note: str) -> str:
    P = module.cipher
    prep = key_prep(module, schedule)
    ct = schedule.layout in CONSTANT_TIME
    port = portable(module, schedule)
    kernels = set(compiled_kernels(module, schedule))
    one_block = any(k.layout in ("scalar", "sliced") for k in kernels)  # kernels that run single blocks here
    fns = ["key_schedule"] + (["encrypt", "decrypt"] if one_block else [])
    support = lookup_support(lookup_tables(prep, fns), ct)
    # the encrypt-only key (P_cs_set_key_encrypt: the DRBG's update) where encrypt reads fewer arrays: the
    # schedule's first part (those arrays), emitted once with the rest after it
    enc = encryption_arrays(module)
    zero = [a.name for a in module.key_arrays if enc is not None and a.name not in enc]
    key_lines, key_rest = key_schedule_parts(module, prep, ct, enc)
    # set_key's AES-NI route: the same statements, the inversion-equivalent S-boxes through AESENCLAST
    ks_tables = lookup_tables(prep, ["key_schedule"])
    fast = aesni_tables(ks_tables) if ct else frozenset()
    key_lines_aesni, key_rest_aesni = key_schedule_parts(module, prep, ct, enc, aesni=fast) if fast else ([], [])
    support += aesni_lookup_support({n: ks_tables[n] for n in fast})
    if one_block:
        support += [_one_block_core(module, prep, kind) for kind in ("encrypt", "decrypt")]
    if any(k.layout == "bitsliced" for k in kernels):
        support.append(fragment("key_planes.c", P=P, loops=_plane_loops(module)))
    levels = ",\n".join(
        f'    {{"{lv.name}", {_features(lv.features)}, {_features(lv.features + lv.allows)}}}' for lv in LEVELS
    )
    dispatch = "\n\n".join(
        [
            fragment("kernel_table.c", P=P),
            _variant_rows(module, variants(module, schedule), port),
            fragment("dispatch.c", P=P, levels=levels, level_names=" ".join(lv.name for lv in LEVELS)),
            _key_finish(module, variants(module, schedule) + [port]),
        ]
        + ([fragment("ghash.c")] if module.block.nbytes == 16 else [])
    )
    modes = dict(P=P, P_UP=P.upper(), block_bytes=module.block.nbytes)
    return render(
        "c/library.c.j2",
        P=P,
        cipher=P,
        version=__version__,
        schedule=schedule.name,
        spec_file=os.path.basename(module.source) if module.source else "?",
        ct_note=ct_note,
        variant_doc=variant_doc(module, schedule),
        block_bytes=module.block.nbytes,
        chunk=chunk(module, schedule),
        words=fragment("words.c"),
        support=support,
        key_schedule=key_lines,
        key_schedule_aesni=key_lines_aesni,
        key_schedule_rest=key_rest,
        key_schedule_rest_aesni=key_rest_aesni,
        enc_arrays=", ".join(sorted(enc or ())),
        zero_arrays=zero,
        dispatch=dispatch,
        api=fragment("api.c", **modes)
        + "\n\n"
        + fragment("aead.c", **modes, cmac_rb=CMAC_RB.get(module.block.nbytes, "")),
    )


def _one_block_core(module: Module, prep: Prepared, kind: str) -> str:
    """The scalar core of ``kind`` as the kernels' one-block path: {P}_cs_<kind>_1 (hidden)."""
    from .portable import scalar_core

    core = scalar_core(module, prep, kind)
    P = module.cipher
    return "\n".join(
        [
            f"/* {core['doc']}: the kernels' one-block path (tails, CBC encryption) */",
            "#if defined(__GNUC__) || defined(__clang__)",
            '__attribute__((visibility("hidden")))',
            "#endif",
            f"void {P}_cs_{kind}_1(const {P}_key *ks, const uint8_t *in, uint8_t *out);",
            f"void {P}_cs_{kind}_1(const {P}_key *ks, const uint8_t *in, uint8_t *out)",
            "{",
        ]
        + core["lines"]
        + ["}"]
    )


def _plane_loops(module: Module) -> str:
    lines, off = [], 0
    for arr in module.key_arrays:
        n, w = len(arr.flat_names()), arr.width
        lines.append(f"    for (k = 0; k < {n}; k++)")
        lines.append(
            f"        for (b = 0; b < {w}; b++) ks->bs[{off} + k * {w} + b] = (uint64_t)0 - (uint64_t)((ks->{arr.name}[k] >> b) & 1u);"
        )
        off += n * w
    return "\n".join(lines)
