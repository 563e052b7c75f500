"""The bitsliced CTR core's launch-uniform part, computed on the host once per segment ("counter-mode caching").

Within a CTR segment only the block words holding the counter's low 32 bits vary (ctr.py; the host cuts a
call where those bits wrap).  In the bitsliced core (32 blocks a thread, bitsliced.py) every plane of the
other block words is then all-0 or all-1 and the same in every thread of the launch, and so is every op that
depends only on those planes and the round keys' derived planes D[k] (hoist_uniform.split): AES's first
round computes 12 of its 16 S-boxes on them.  Holding those values per thread would need more live planes
than the 255-register cores have; instead the host computes them for each segment -- the split's ``pre``, a
Boolean circuit on u32 words (xor/and/or/not: no table, no branch, so constant-time for any spec) -- into
the segment parameter's ``h[]`` words, and the CTR kernels' core (``cs_main``) reads them as constant-bank
operands (``hs.h[k]``), exactly as it reads the round-key planes: no register, no load instruction.

    before: cs_enc_ptx(x, y, rkp)                       every plane op, 32 blocks a call
    after:  host:   P_seg_pre(rk->w, &seg)              the uniform ops, once per segment -> seg.h[k]
            device: cs_main_ptx(x, y, rkp, seg)         the rest; x's uniform planes go unread

The uniform block planes that ``main`` reads as they are pass through ``pre`` too (``pass_inputs``): read
from the parameter, not made from seg.u by 3 ops each.  Multi-key kernels (ctr_multi, GCM batch, DRBG) keep
the plain core: their counters' uniform words differ per request.
"""

from __future__ import annotations

import re

from cipherspec.ir import Function, Module
from cipherspec.passes import hoist_uniform

from ..c import split as c_split
from ..c.bitsliced import PIECE
from ..c.body import emit_body
from ..c.dialects import Scalar
from . import bitsliced, ctr

HOST_PIECE = PIECE  # statements per out-of-line piece of the host's pre: the C target's cores' (gcc alike)
_VALUE = re.compile(r"\bv\d+\b")
_RK = re.compile(r"\brk\[(\d+)\]")
PLANE_OPS = frozenset({"input", "const", "xor", "and", "or", "not"})  # what pre may hold: bitwise ops only


def uniform_planes(module: Module, state_words: list[str]) -> set[str]:
    """The planes of the block words that are the same for every block of a segment (all but the counter's
    low 32 bits'); ``state_words``: encrypt's block-word inputs in order (ctr.state_names)."""
    vary = ctr.varying_words(module)
    return {
        bitsliced.plane_name(n, i)
        for j, n in enumerate(state_words)
        if j not in vary
        for i in range(module.block.width)
    }


def split(
    core: Function, module: Module, state_words: list[str], derived: set[str], before_round: int | None = None
) -> hoist_uniform.Hoisted | None:
    """The core (planes "X.b<i>" and derived key words D[k] in) split at what depends only on the segment's
    uniform planes and D[k]; None when main would read nothing from the host (no block word is uniform), so the
    kernels keep the plain core.  (With no op to move -- SM4, whose round XORs a varying word into the first
    sum -- the uniform planes main reads still come from the host: 3 ops each fewer per trip.)

    ``before_round``: main reads host values only in ops of rounds before it (origin.round; ops outside the
    round loop count as before it), so that its rounds from there on are the core's, op for op, and re-roll into
    the same loop (roundloop.py): a uniform op of that round or later, or one such an op reads, stays in main."""
    planes = uniform_planes(module, state_words)
    if not planes:
        return None
    keep = _late(core, planes | derived, before_round) if before_round is not None else frozenset()
    h = hoist_uniform.split(core, planes | derived, pass_inputs=frozenset(planes), keep=keep)
    if not h.frontier:
        return None
    bad = sorted({op.code for op in h.pre.ops} - PLANE_OPS)
    if bad:  # the bitsliced lowering leaves only bitwise plane ops; anything else would not be all-0/all-1 planes
        raise ValueError(f"bitsliced CTR pre-part holds {', '.join(bad)} (internal)")
    return h


def _late(core: Function, uniform: set[str], before_round: int) -> frozenset[int]:
    """Uniform ops of round ``before_round`` or later, and the uniform ops such an op reads (main keeps them)."""
    mask = hoist_uniform.uniform_mask(core, uniform)
    keep: set[int] = set()
    for i, op in enumerate(core.ops):
        if op.code in ("input", "const") or op.origin is None or op.origin.round is None:
            continue
        if op.origin.round >= before_round:
            if mask[i]:
                keep.add(i)
            keep.update(a for a in op.args if mask[a] and core.ops[a].code not in ("input", "const"))
    return frozenset(keep)


def host_c(
    h: hoist_uniform.Hoisted, state_words: list[str], rk_words: dict[str, int], P: str, piece: int = HOST_PIECE
) -> str:
    """The host C that fills a segment's ``h[]`` from its uniform words ``seg->u`` and the round-key struct's
    words ``rk`` (rk_words: D[k] name -> struct word); no memory address or branch depends on either.  What it
    leaves of key-derived values it clears with the library's ``P_wipe`` (host.cu.j2: memset and a compiler barrier).

    One function for both sides (CS_HD: the device makes a GCM record's planes too).  Where the circuit is
    longer than ``piece`` statements, the host's copy runs it in out-of-line pieces (c/split.py), the values
    crossing a cut handed on in two slot arrays; the device's copy stays one straight body, which nvcc
    compiles as before:

        before: CS_HD static void P_seg_pre(rk, seg) { const uint32_t v0 = ...; ... seg->h[95] = v14663; }
        after:  static void P_seg_pre_0(kb, seg, v, w) { ...; w[0] = v97; }  ...  (host only)
                CS_HD static void P_seg_pre(rk, seg) {
                #if defined(__CUDA_ARCH__)
                    const uint32_t v0 = ...; ... seg->h[95] = v14663;     (the device: as before)
                #else
                    uint32_t v[2][193]; P_seg_pre_0(rk + 0, seg, v[0], v[1]); ...; v cleared
                #endif
                }

    gcc's register allocation is super-linear in one block: a 14,376-op circuit (tests/conformance/
    sbox_inv.cs, nearinv_u32_be) took 15.3 s at -O3 and ran in 4.0 us; in pieces of 600, 1.7-3.3 s and
    2.5-2.9 us (bench/results/cuda-build-time.md, ninth pass)."""
    word = {n: j for j, n in enumerate(state_words)}

    def bind(name: str, width: int) -> str:
        if name in rk_words:
            return f"rk[{rk_words[name]}]"
        base, bit = name.rsplit(".b", 1)  # a plane: all-ones where bit `bit` of block word `base` is set
        return f"(0u - ((seg->u[{word[base]}] >> {int(bit)}) & 1u))"

    body = emit_body(h.pre, Scalar(), {}, bind)
    slot = {n: k for k, (n, _) in enumerate(h.pre.outputs)}
    straight = [*body.lines, *(f"    seg->h[{slot[n]}] = {var};" for n, var in body.outputs.items())]
    pieces = _host_pieces(straight, P, piece)
    lines = [
        f"// the CTR segment's launch-uniform planes (bs_ctr.py): {h.hoisted_ops} plane ops of the bitsliced core that",
        "// depend only on the segment's uniform counter words and the round keys, once per segment on the host;",
        "// constant-time: a Boolean circuit (xor/and/or/not on u32 words), no table, no branch; also on the device,",
        "// a record's planes for the keyed GCM batch route (gcm.cu.j2: P_gcm_seg_planes)",
        *pieces[0],
        f"CS_HD static void {P}_seg_pre(const uint32_t *__restrict__ rk, {P}_seg *seg)",
        "{",
        *(straight if not pieces[1] else ["#if defined(__CUDA_ARCH__)", *straight, "#else", *pieces[1], "#endif"]),
        "}",
        "",
        f"static void {P}_seg_wipe({P}_seg *seg)  // after the launch (its parameters are copied): h is key-derived",
        "{",
        f"    {P}_wipe(seg->h, sizeof seg->h);",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _host_pieces(straight: list[str], P: str, piece: int) -> tuple[list[str], list[str]]:
    """(the host-only piece functions, the host body that calls them) for the statements ``straight``; both
    empty when they fit one piece.  Pieces equal up to names and a round-key offset are one function."""
    if len(straight) <= piece:
        return [], []
    stmts = [c_split.assignment(line, _VALUE) for line in straight]
    cut = c_split.split(stmts, piece, "uint32_t", "    ", _RK, order=True)
    functions = ["#if !defined(__CUDA_ARCH__)  // the host's pieces of P_seg_pre (below)"]
    for k, fn in enumerate(cut.functions):
        functions += [
            f"__attribute__((noinline)) static void {P}_seg_pre_{k}(const uint32_t *__restrict__ kb, {P}_seg *seg,",
            "                                                  const uint32_t *__restrict__ v, uint32_t *__restrict__ w)",
            "{",
            "    (void)kb; (void)seg; (void)v; (void)w;",
            *fn,
            "}",
        ]
    functions.append("#endif")
    calls = [
        f"    uint32_t v[2][{cut.slots}];  // the values handed from one piece to the next (read one, write the other)"
    ]
    calls += [
        f"    {P}_seg_pre_{c.function}(rk + {c.key_base}, seg, v[{k % 2}], v[{(k + 1) % 2}]);"
        for k, c in enumerate(cut.calls)
    ]
    calls.append(
        f"    {P}_wipe(v, sizeof v);  // key-derived, like h (P_seg_wipe): cleared before the stack is given back"
    )
    return functions, calls
