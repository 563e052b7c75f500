"""The C ``aesni`` schedule: x86-64 AES instructions derived from the IR, nothing written per cipher.

Per function (encrypt, decrypt) one of two lowerings, decided here:

    rounds      the function IS AES rounds (rounds.py recognises them by linear algebra between the S-box
                layers): AddRoundKey + AESENC... + AESENCLAST (AESDEC + AESIMC'd keys for the inverse
                cipher), one block per 16-byte lane, CS_IL = 8 registers in flight
    bytesliced  any u8 function whose tables are affine-equivalent to the AES S-box (bytesliced.py):
                register j = byte j of 16 blocks per 16-byte lane, S-boxes on AESENCLAST/AESDECLAST
                (on GF2P8AFFINEINVQB where the level has GFNI)
    wordsliced  a 16-byte block of u16/u32/u64 words whose every lookup substitutes the bytes of a word
                through S-boxes affine-equivalent to GF(2^8) inversion (wordsliced.py): register i =
                word i of CS_VBITS/w blocks, S-boxes on GFNI (gfni_* levels) or AESENCLAST + nibble maps

The same source serves three ISA levels (variants.py): CS_VBITS = 128 (AES-NI), 256 (VAES + AVX2) and
512 (VAES + AVX-512); a register holds CS_BPR = CS_VBITS / 128 AES states.  Constant-time: no table is
indexed by data or key, no branch depends on them.

    support(module) -> ''  or why not;  lanes(module, 256) -> blocks per run;  kernel_source(...) -> C text
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from cipherspec.errors import UsageError
from cipherspec.ir import Module
from cipherspec.schedule import Schedule
from cipherspec.version import __version__

from ...common.templates import render
from ..prepare import Prepared, prepare
from ..split import Stmt, split
from ..text import fragment, kernel_tag, key_slots, with_comment, word_index
from ..walk import entry_points
from . import wordsliced
from .bytesliced import Lowering, sr_power
from .bytesliced import support as bytesliced_support
from .rounds import Program, recognize

PIECE = 600  # statements per out-of-line piece of a byte-sliced core (split.py)
# rounds per piece of a byte-sliced core, per S-box form: each cut hands the live values (ARIA: 24 registers)
# through memory, a third of a GFNI round's instructions with one round per piece; two rounds per piece halve
# that and still re-roll (odd+even rounds are alike): ARIA-128-GCM, 16 KiB, gfni_avx512 +12%.  The AES form
# keeps one: it also compiles at the aesni level (16 xmm registers, two-operand SSE), where two rounds
# measured 5% slower (CTR, 16 KiB; +1-2% on vaes_avx2, +4% on vaes_avx512)
ROUNDS_PER_PIECE = {True: 2, False: 1}  # gfni -> rounds
IL = 8  # registers in flight in the round kernels (AESENC latency 4, two units: 8 independent states)
KINDS = ("encrypt", "decrypt")


@dataclass(frozen=True)
class Plan:
    """How each function is lowered: a recognised Program (rounds) or None (byte-sliced)."""

    programs: dict[str, Program | None]
    why_not_rounds: dict[str, str]
    word: bool = False  # word-sliced (wordsliced.py): a block of wider words


def plan(module: Module) -> Plan:
    """Rounds where the IR is AES's, byte-sliced elsewhere; UsageError when neither lowers a function.
    Remembered on the module, like prepare()."""
    memo = module.__dict__.setdefault("_c_aesni_plan", {})
    if "plan" not in memo:
        try:
            memo["plan"] = _plan(module)
        except UsageError as e:
            memo["plan"] = e
    if isinstance(memo["plan"], UsageError):
        raise memo["plan"]
    return memo["plan"]


def _plan(module: Module) -> Plan:
    prep = prepare(module, Schedule(module.cipher, "c", "aesni", (), module.rounds))
    if module.block.width != 8:
        word_why = {k: wordsliced.support(module, prep.functions[k], prep.tables) for k in KINDS}
        bad = [word_why[k] for k in KINDS if word_why[k]]
        if bad:
            raise UsageError(f"schedule aesni: {module.cipher} is not word-sliceable on AES/GFNI ({bad[0]})")
        return Plan({k: None for k in KINDS}, {k: f"a block of u{module.block.width} words" for k in KINDS}, True)
    slots = key_slots(module)
    programs: dict[str, Program | None] = {}
    why: dict[str, str] = {}
    for kind in KINDS:
        fn = prep.functions[kind]
        got = (
            recognize(fn, prep.tables, slots)
            if module.block.width == 8 and module.block.nbytes == 16
            else "AES rounds need a 16-byte state"
        )
        if isinstance(got, Program):
            programs[kind] = got
            continue
        if module.block.width != 8 or module.block.nbytes != 16:
            raise UsageError(
                f"schedule aesni: {module.cipher} {kind}: byte slicing needs a block of 16 bytes "
                f"(u8[16]), not {module.block}"
            )
        reason = bytesliced_support(fn, prep.tables)
        if reason:
            raise UsageError(
                f"schedule aesni: {module.cipher} {kind} is neither AES rounds ({got}) nor byte-sliceable ({reason})"
            )
        programs[kind], why[kind] = None, got
    return Plan(programs, why)


def support(module: Module) -> str:
    """'' when the aesni schedule lowers this cipher, else why not."""
    if not any(op.code == "lut" for kind in KINDS for op in module.functions[kind].ops):
        return "no S-box lookups (AES instructions compute S-boxes)"
    try:
        plan(module)
    except UsageError as e:
        return str(e).split(": ", 1)[1]
    return ""


def lanes(module: Module, vector_bits: int) -> int:
    """Blocks per run of the kernels: 8 registers of AES states, or 16 blocks per 16-byte lane byte-sliced."""
    p = plan(module)
    if p.word:
        return wordsliced.lanes(module, vector_bits)
    bpr = vector_bits // 128
    return max(IL * bpr if p.programs[k] is not None else 16 * bpr for k in KINDS)


def _round_functions(P: str, kind: str, prog: Program) -> list[str]:
    """cs_<kind>_keys (the round keys broadcast to every lane, AESIMC'd where the program says) and
    cs_<kind>_regs (the program over m registers: each step on all of them before the next)."""
    keys = [
        f"/* {kind}: {prog.describe()}; recognised in the IR (the maps between its S-box layers are "
        f"{'MixColumns' if prog.family == 'enc' else 'InvMixColumns'} with the instruction's lane order) */",
        f"#define CS_NK_{kind.upper()} {len(prog.steps)}",
        f"static void cs_{kind}_keys(const {P}_key *ks, cs_x *k)",
        "{",
    ]
    regs = [
        "#if defined(__GNUC__) || defined(__clang__)",
        "__attribute__((always_inline))",
        "#endif",
        f"static inline void cs_{kind}_regs(const cs_x *k, cs_x *b, const int m)",
        "{",
        "    int j;",
    ]
    for n, step in enumerate(prog.steps):
        if step.key is not None:
            load = "CS_X_KEY_IMC" if step.key.imc else "CS_X_KEY"
            keys.append(
                with_comment(
                    f"    k[{n}] = {load}(ks->{step.key.member} + {step.key.base});",
                    f"{step.key.member}[{step.key.base}..{step.key.base + 15}]"
                    + (" through AESIMC" if step.key.imc else ""),
                )
            )
        else:
            keys.append(f"    k[{n}] = CS_X_ZERO();")
        macro = {
            "xor": "CS_X_XOR",
            "aesenc": "CS_X_AESENC",
            "aesenclast": "CS_X_AESENCLAST",
            "aesdec": "CS_X_AESDEC",
            "aesdeclast": "CS_X_AESDECLAST",
        }[step.instr]
        regs.append(with_comment(f"    for (j = 0; j < m; j++) b[j] = {macro}(b[j], k[{n}]);", step.origin))
    return ["\n".join(keys + ["}"]), "\n".join(regs + ["}"])]


_VALUE = re.compile(r"\bx\d+\b")
_ROUND = re.compile(r"\br(\d+) \*/$")


def _stmt(line: str, rounds: int = 1) -> Stmt:
    """One statement of a byte-sliced core; its group (the piece it stays in): ``rounds`` rounds together
    (round 0 alone, then 1..rounds, ...), or the output."""
    code = line.split("/*", 1)[0]
    rnd = _ROUND.search(line)
    group = (int(rnd.group(1)) + rounds - 1) // rounds if rnd else ("out" if code.lstrip().startswith("o[") else None)
    lhs, rhs = code.split("=", 1)
    return Stmt(line, tuple(_VALUE.findall(lhs)), tuple(_VALUE.findall(rhs)), group)


def _sliced_core(module: Module, prep: Prepared, kind: str) -> tuple[dict, list[str]]:
    """cs_<kind>_n: CS_LANES blocks through the byte-sliced function, its rounds as out-of-line pieces
    (split.py: repeated rounds compile once); the sections to place before it (constants, pieces).  Two
    lowerings, chosen by the compiler's flags: S-boxes on GFNI (the gfni_* levels) or on AESENCLAST/AESDECLAST.

        before: static void cs_encrypt_n(...) { ... AESENCLAST ... }
        after:  #if defined(__GFNI__) ... GF2P8AFFINEINV ... #else ... AESENCLAST ... #endif"""
    g_core, g_sections = _sliced_form(module, prep, kind, gfni=True)
    a_core, a_sections = _sliced_form(module, prep, kind, gfni=False)
    lines = a_core["lines"]
    if g_core["lines"] != lines:
        lines = ["#if defined(__GFNI__)", *g_core["lines"], "#else", *lines, "#endif"]
    doc = f"{a_core['doc']}; with GFNI: {g_core['doc'].split('(', 1)[1].split(';')[0]}"
    core = {"name": a_core["name"], "doc": doc, "lines": lines}
    return core, ["#if defined(__GFNI__)", *g_sections, "#else", *a_sections, "#endif"]


def _sliced_form(module: Module, prep: Prepared, kind: str, gfni: bool) -> tuple[dict, list[str]]:
    """One lowering of _sliced_core (``gfni``: S-boxes on GF2P8AFFINEINVQB, else on AES instructions)."""
    fn = prep.functions[kind]
    low = Lowering(fn, prep.tables, key_slots(module), f"cs_{kind[0]}k", gfni=gfni)
    outs = low.lower(lambda name: f"s[{word_index(name)}]")
    powers = {p for _, p in outs.values() if p is not None}
    final = min(powers) if powers else 0
    lines = list(low.lines)
    for name, (var, p) in outs.items():  # every output at one lane power
        out = low._realign(var, p, final)
        lines.append(with_comment(f"    o[{word_index(name)}] = {out};", f"block byte {name}"))
    members = sorted({key_slots(module)[n][0] for n, _, _ in fn.inputs() if n in key_slots(module)})
    member = members[0] if len(members) == 1 else None
    key = re.compile(rf"ks->{member}\[(\d+)\]") if member else None
    pieces = split([_stmt(line, ROUNDS_PER_PIECE[gfni]) for line in lines], PIECE, "cs_x", "    ", key)
    name = f"cs_{kind}_n"
    ktype = f"uint{next(a.width for a in module.key_arrays if a.name == member)}_t" if member else "uint8_t"
    sections = [
        f"static const uint8_t {c}[16] = {{{', '.join(f'{b:#04x}' for b in pattern)}}};"
        for pattern, c in low.constants.items()
    ]
    for k, body in enumerate(pieces.functions):
        sections.append(
            "\n".join(
                [
                    f"/* {kind}: piece {k} (kb: its round keys) */",
                    "CS_NOINLINE",
                    f"static void {name}_{k}(const {module.cipher}_key *ks, const {ktype} *kb, "
                    "const cs_x *s, cs_x *o, cs_x *v)",
                    "{",
                    "    (void)ks; (void)kb; (void)s; (void)o; (void)v;",
                ]
                + body
                + ["}"]
            )
        )
    base = f"ks->{member}" if member else "(const uint8_t *)0"
    order = ", ".join(str(v) for v in sr_power(final))
    body = [
        "    cs_x s[16], o[16];  /* s[j], o[j]: byte j of every block */",
        f"    cs_x v[{pieces.slots}];  /* values handed from one piece to the next */",
        f"    static const uint8_t order[16] = {{{order}}};  /* the output lanes are at ShiftRows^{final} */",
        "    cs_slice_load(s, in);",
    ]
    calls = [f"    {name}_{c.function}(ks, {base} + {c.key_base}, s, o, v);" for c in pieces.calls]
    if kind == "encrypt":  # cs_encrypt_o/_s: from slices (CTR makes its counter blocks sliced: byte_slices_ctr.c)
        sections.append(
            "\n".join(
                [
                    f"static const uint8_t cs_{kind}_order[16] = {{{order}}};  /* the output lanes: ShiftRows^{final} */",
                    "#if CS_VBITS == 512  /* (the stitched GCM loop's: byte_slices_gcm.c) */",
                    f"/* {kind}: CS_LANES blocks given byte-sliced (s[j]: byte j of every block) -> o[j]: byte j of",
                    f"   every block, lane i of each 16 holding block cs_{kind}_order[i] of those 16 */",
                    f"static void cs_{kind}_o(const {module.cipher}_key *ks, const cs_x *s, cs_x *o)",
                    "{",
                    body[1],
                    *calls,
                    "}",
                    "#endif",
                    "",
                    f"/* {kind}: CS_LANES blocks given byte-sliced -> out (the calls of cs_{kind}_o, then the store: on",
                    "   128-bit registers one function is 3-4% faster than cs_encrypt_o + the store, CTR 16 KiB) */",
                    f"static void cs_{kind}_s(const {module.cipher}_key *ks, const cs_x *s, uint8_t *out)",
                    "{",
                    "    cs_x o[16];",
                    body[1],
                    *calls,
                    f"    cs_slice_store(out, o, cs_{kind}_order);",
                    "}",
                ]
            )
        )
        body = [body[0].replace(", o[16]", "").replace("s[j], o[j]", "s[j]"), body[3], f"    cs_{kind}_s(ks, s, out);"]
    else:
        body += calls
        body.append("    cs_slice_store(out, o, order);")
    doc = (
        f"{kind}: CS_LANES blocks at once, byte-sliced ({len(low.lines)} vector ops; {len(pieces.calls)} pieces, "
        f"{len(pieces.functions)} distinct)"
    )
    return {"name": name, "doc": doc, "lines": body}, sections


def byte_sliced_ops(module: Module, gfni: bool) -> int | None:
    """Vector ops of one run of the byte-sliced encryption core in one S-box form (GFNI or AES instructions);
    None where encryption is not byte-sliced (AES rounds, word-sliced).  Remembered on the module."""
    p = plan(module)
    if p.word or p.programs["encrypt"] is not None:
        return None
    memo = module.__dict__.setdefault("_c_aesni_ops", {})
    if gfni not in memo:
        prep = prepare(module, Schedule(module.cipher, "c", "aesni", (), module.rounds))
        low = Lowering(prep.functions["encrypt"], prep.tables, key_slots(module), "cs_ek", gfni=gfni)
        low.lower(lambda name: f"s[{word_index(name)}]")
        memo[gfni] = len(low.lines)
    return memo[gfni]


def has_fused_gcm(p) -> bool:
    """Whether the kernels carry GCM's stitched CTR+GHASH, on 512-bit registers: aes_rounds_ctr.c (AES
    rounds) or byte_slices_gcm.c (a byte-sliced encryption core; not the word-sliced layout)."""
    return p.programs["encrypt"] is not None or not p.word


def has_fused_ccm(p) -> bool:
    """Whether the kernels carry CCM's one-pass CBC-MAC+CTR (aes_rounds_ccm.c, any register width)."""
    return p.programs["encrypt"] is not None


def has_fused_xts(p) -> bool:
    """Whether the kernels carry their own XTS loop (aes_rounds_xts.c, on 512-bit registers)."""
    return p.programs["encrypt"] is not None and p.programs["decrypt"] is not None


def has_gfni_sboxes(module: Module) -> bool:
    """Whether some aesni kernel of this cipher computes S-boxes on GFNI where the level has it: the
    word-sliced ones, and the byte-sliced ones (a function that is not AES rounds)."""
    p = plan(module)
    return p.word or any(prog is None for prog in p.programs.values())


def is_word_sliced(module: Module) -> bool:
    """Whether the aesni kernels of this cipher are word-sliced (GFNI levels apply to them)."""
    return plan(module).word


def _render(module: Module, schedule: Schedule, ct_note: str, layout_doc: str, support, cores, after) -> str:
    """The kernel file around the cores (both layouts, word- and byte-sliced, fill the same skeleton)."""
    P = module.cipher
    return render(
        "c/kernel.c.j2",
        P=P,
        cipher=P,
        tag=kernel_tag(schedule),
        version=__version__,
        spec_file=os.path.basename(module.source) if module.source else "?",
        schedule=schedule.name,
        ct_note=ct_note,
        layout_doc=layout_doc,
        block_bytes=module.block.nbytes,
        words=fragment("words.c"),
        support=support,
        cores=cores,
        after_cores=after,
    )


def _word_source(module: Module, schedule: Schedule, ct_note: str) -> str:
    prep = prepare(module, schedule)
    P = module.cipher
    fns = [prep.functions[k] for k in KINDS]
    support, subs, rots = wordsliced.support_sections(module, fns, prep.tables)
    support.append(fragment("noinline.c"))
    cores = [wordsliced.core(module, prep.functions[k], k, subs, rots) for k in KINDS]
    after = [fragment("kernel_names.c", P=P)]
    after += [fragment("padded_run.c", P=P, kind=kind) for kind in KINDS]
    after += [fragment("mode_helpers.c"), fragment("ctr_fill.c")]
    after += entry_points(P, 1, True)
    w = module.block.width
    layout_doc = "\n".join(
        [
            f" * Word-sliced: register x_i holds word i of CS_VBITS/{w} blocks, {wordsliced.IL} copies in flight;",
            " * every byte substitution of a word is one S-box routine on the whole register: GFNI",
            " * (VGF2P8AFFINEQB + VGF2P8AFFINEINVQB) where compiled with -mgfni, else PSHUFB nibble maps around",
            " * AESENCLAST.  CS_VBITS (128, 256, 512: the variant's -DCS_VBITS) sets the register width.",
        ]
    )
    return _render(module, schedule, ct_note, layout_doc, support, cores, after)


def kernel_source(module: Module, schedule: Schedule, ct_note: str) -> str:
    p = plan(module)
    if p.word:
        return _word_source(module, schedule, ct_note)
    prep = prepare(module, schedule)
    P = module.cipher
    support = [fragment("x86_vectors.c")]
    cores, after = [], [fragment("kernel_names.c", P=P)]
    sliced = [k for k in KINDS if p.programs[k] is None]
    docs = []
    if len(sliced) < len(KINDS):
        support.append(f"#define CS_IL {IL}  /* registers in flight */")
    if sliced:
        support += [fragment("x86_gfni.c"), "#define CS_LANES (16 * CS_BPR)", fragment("byte_slices.c")]
        support.append(fragment("noinline.c"))
    for kind in KINDS:
        prog = p.programs[kind]
        if prog is not None:
            support += _round_functions(P, kind, prog)
            docs.append(f" * {kind}: {prog.describe()} (recognised AES rounds), {IL} registers in flight.")
        else:
            core, consts = _sliced_core(module, prep, kind)
            support += consts
            cores.append(core)
            docs.append(
                f" * {kind}: byte-sliced, 16 blocks per 16-byte lane, S-boxes on AESENCLAST/AESDECLAST (GFNI levels: "
                f"VGF2P8AFFINEINVQB) "
                f"(not AES rounds: {p.why_not_rounds[kind]})."
            )
    if sliced:
        after += [fragment("padded_run.c", P=P, kind=kind) for kind in sliced]
        after += [fragment("mode_helpers.c"), fragment("ctr_fill.c")]
        sliced_ctr = p.programs["encrypt"] is None
        if sliced_ctr:
            after.append(fragment("byte_slices_ctr.c", P=P))
        after += entry_points(P, 1, True, kinds=tuple(sliced), ctr=sliced_ctr, counter_core=sliced_ctr)
        if sliced_ctr:  # after the entry points: it runs cs_ctr_run (walk.py places it with them)
            after.append(fragment("byte_slices_gcm.c", P=P))
    for kind in KINDS:
        if p.programs[kind] is not None:
            after.append(fragment("aes_rounds_ecb.c", P=P, kind=kind))
    if p.programs["encrypt"] is not None:
        after.append(fragment("aes_rounds_ctr.c", P=P))
    if has_fused_ccm(p):
        after.append(fragment("aes_rounds_ccm.c", P=P))
    if has_fused_xts(p):
        after.append(fragment("aes_rounds_xts.c", P=P))
    layout_doc = "\n".join(docs + [" * CS_VBITS (128, 256, 512: the variant's -DCS_VBITS) sets the register width."])
    return _render(module, schedule, ct_note, layout_doc, support, cores, after)
