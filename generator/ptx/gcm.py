"""GCM on the GPU (templates/gcm.cu.j2): what the GCM kernels of a 128-bit-block schedule need from it.

The GCM kernels reuse the schedule's own keystream core -- the CTR core (with its hoisting) for one long
message, the multi-key core (round keys staged in shared memory) for a batch and for E(K, J0) -- and add
GHASH as a parallel reduction over powers of H.  Per schedule this module makes the statements that turn
a unit's first counter into the keystream memory words m[s][*] of its G blocks (G = 1 for the scalar
layout, the lane group otherwise), the batch and finish prologues (tables into shared memory, strided by
the launch's real thread count), and the shared-memory offsets of the GHASH scratch.

    before: the CTR kernel only ({P}_ctr_ptx<XOR>)
    after:  gcm_parts(module, sched, ...) -> GcmParts(G=1, long_ks="{ const uint32_t ml = cs_prmt(lo, ...",
            batch_ks="{ m[s][0] = j0[0]; ... cs_menc_ptx(x, y, cs_smem + 0); ...", ...)
            rendered by gcm.cu.j2 into {P}_gcm_long, {P}_gcm_batch, {P}_gcm_keystream, {P}_gcm_finish, host API

In a bitsliced layout (lane_keys) the finish makes a warp's 32 E(K, J0) in one core call, block b under lane b's
own key -- each key word's bit b taken from lane b's key by a ballot ({P}_gcm_finish_lanes):

    before: lane b: core(J0_b, 31 unused blocks; key_b)          after: warp: core(J0_0 .. J0_31; merged key words)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from cipherspec.ir import Module

from . import cores, keyorder, layout, multikey
from .placement import CudaSchedule, rk_index
from .prologue import table_fills

GCM_BLOCK_BYTES = 16
FINISH_THREADS = 64  # the finish kernel: one thread per message


@dataclass(frozen=True)
class GcmParts:
    G: int  # blocks per unit (one core call of one thread)
    head: bool  # the round keys start with keyorder.py's head words (word 2: the key's own words, the kernels' copies)
    nrk_own: int  # the member's own round-key words, whole 16-byte chunks (its host sizes the kernels' key buffers so)
    own_words: Callable[[str], str]  # own_words() for this struct: the templates' copies of a key's words
    log2g: int
    T: int  # threads of the long-message kernel (the schedule's)
    TB: int  # most threads of a batch CTA (the multi-key kernel's)
    ILP: int  # units per thread per row
    long_ks: str  # slot s's keystream m[s][*] from `lo` (its first block's counter bits 0..31), `seg` in scope
    batch_ks: str  # the same from `lo` and the J0 memory words `j0[4]`, round keys staged in shared memory
    batch_prologue: str  # tables and the message's round keys into shared memory, one barrier
    ks_ks: str  # batch_ks with the round keys read at `rkb` (the keystream kernel's current key buffer)
    ks_keyed: str  # (lane_keys) the plain core on m[0] in place (blocks in, keystream out), round keys at `rkp`
    ks_seg: str  # (lane_keys, hoisted, free-running CTR core) the CTR kernel's core on m[0] in place: um[] the
    #   uniform words, the record's planes at `seg` (its P_seg); "" where the keyed route keeps the plain core
    counter_word_co: str  # the coalesced order's: the last memory word of block b whose counter bits are lo + 32b
    keyed_free: bool  # (lane_keys) the CTR kernel runs its core free (no lockstep barrier): the keyed route may run
    counter_word: str  # the last memory word of a block whose counter bits 0..31 are lo + b
    ks_tables: str  # the keystream kernel's table fills (no barrier: its first key barrier covers them)
    sm_ks_rk: int  # shared word offset of its first key buffer (16-byte aligned)
    nrk_pad: int  # words a key buffer takes (nrk rounded up to whole 16-byte chunks)
    sm_ks: int  # shared words the keystream kernel uses: tables, two key buffers
    fin_prologue: str  # tables into shared memory, one barrier (nothing when no table is staged)
    fin_ks: str  # E(K, J0) into m[0][0..3] from `j0[4]`, round keys read at `rkg` (global memory)
    lane_keys: bool  # bit b of every lane word is block b's (bitsliced): a core call may take 32 keys, one a block
    keyed: bool  # (lane_keys, round keys read through `rkp`, not rk-shared) the batch's keyed route is built
    fin_lane_ks: str  # (lane_keys) the warp's 32 J0s, block b lane b's, under the merged key words at `kw`
    sm_batch: int  # shared words the batch kernel's cores use (its GHASH scratch follows)
    sm_fin: int  # the same for the finish kernel
    nrk: int

    @property
    def row_mulp(self) -> str:
        """The GF(2^128) multiply of the fused kernels' hashing rows (gcm_long, gcm_batch): out of line
        (cs_gh_mulp_o, by value) where a unit holds several blocks, whose unrolled loop otherwise inlines G of them.
        Measured on an H200 (bench/gpu/gcm_fused_ab.py, bench/results/cuda-build-time.md, tenth pass): with G = 32
        (bitsliced AES-128 / ARIA-128) a long message of 4-200 KiB took 5-11% less time and a batch of 2 MiB records
        10% less, the kernels' nvcc time about a fifth less; with G = 1 (LEA-128, one block a thread) the batch
        took 13% more, so one block a unit keeps it inline.

            G = 32: if (b > 0) cs_gh_mulp_o(acc, gs);     one copy of the multiply, 32 calls a unit
            G = 1:  cs_gh_mulp(A[s], hp.w + 36);           inlined (one a unit)"""
        return "cs_gh_mulp_o" if self.G > 1 else "cs_gh_mulp"


def hot_powers(G: int) -> int:
    """Prepared powers of H the hashing loop reads: H and a row's power.  (Four blocks a reduction with
    H^2..H^4 as well was measured: the lane kernels spilled, the batch gained 2%; not kept.)"""
    return 2


def supported(module: Module) -> bool:
    """GCM is defined for 128-bit blocks (SP 800-38D)."""
    return module.block.nbytes == GCM_BLOCK_BYTES


def _fills(module: Module, sched: CudaSchedule, T: int):
    return table_fills(module, sched.copies, T, stride="blockDim.x")


def own_words(words: str, nrk: int, head: bool) -> str:
    """The C expression of the round-key words a GCM kernel copies from the key whose words are at ``words``: where
    the struct has keyorder.py's head words, the key's own (the head's OWN_WORDS word; a family's struct is padded to
    its largest member's, and the rest is not the key's), at most the struct's ``nrk``; else ``nrk``.

        own_words("gk->rk.w", 3828, True) -> "(gk->rk.w[2] < 3828u ? gk->rk.w[2] : 3828u)"
    """
    if not head:
        return f"{nrk}u"
    w = f"{words}[{keyorder.OWN_WORDS}]"
    return f"({w} < {nrk}u ? {w} : {nrk}u)"


def _batch_prologue(fills, nrk: int, head: bool) -> str:
    nw = own_words("gk->rk.w", nrk, head)
    lines = ["    extern __shared__ uint32_t cs_smem[];"] + fills.lines
    lines += [
        f"    const uint32_t nw = {nw};  // (the loop keeps the struct's count, unrolled as before)",
        f"    for (uint32_t i = threadIdx.x; i < {nrk}u; i += blockDim.x)",
        f"        if (i < nw) cs_smem[{fills.words} + i] = gk->rk.w[i];",
        "    __syncthreads();  // tables and this message's round keys are in place before any thread reads",
    ]
    return "\n".join(lines)


def _pad4(n: int) -> int:
    return (n + 3) // 4 * 4


def _fin_prologue(fills) -> str:
    if not fills.lines:
        return ""
    lines = ["    extern __shared__ uint32_t cs_smem[];"] + fills.lines
    lines.append("    __syncthreads();  // tables in place")
    return "\n".join(lines)


def _scalar_ks(unpack: str, call: str, pack: str, memword: str, j0: bool) -> str:
    """One block per unit: x from the counter, the core, m[s][*] from y."""
    if j0:
        head = [f"m[s][{k}] = j0[{k}];" for k in range(3)] + [f"m[s][3] = {memword};  // counter bits 0..31"]
        head.append("uint32_t x[NWORDS], y[NWORDS];")
    else:
        head = [f"const uint32_t ml = {memword};", "uint32_t x[NWORDS], y[NWORDS];"]
    return "{\n" + "\n".join(["    " + h for h in head + unpack.splitlines() + [call] + pack.splitlines()]) + "\n}"


def _lanes_ks(f: str, G: int, uniform: list[str], core_call: str) -> str:
    """G blocks per unit: block b's counter is lo + b (inc32), the other words J0's."""
    word = layout.counter_memword(f, "(lo + (uint32_t)b)")
    lines = ["{"] + ["    " + u for u in uniform]
    lines += [
        "#pragma unroll",
        f"    for (int b = 0; b < {G}; ++b) {{",
        "        m[s][b * 4 + 0] = um[0]; m[s][b * 4 + 1] = um[1]; m[s][b * 4 + 2] = um[2];",
        f"        m[s][b * 4 + 3] = {word};  // counter bits 0..31 of block b",
        "    }",
        "    uint32_t x[NWORDS], y[NWORDS];",
        f"    cs_lanes_in_{f}(m[s], x);",
        f"    {core_call}",
        f"    cs_lanes_out_{f}(y, m[s]);",
        "}",
    ]
    return "\n".join(lines)


def _lanes_core(f: str, core_call: str) -> str:
    """m[0]'s G blocks (memory words, whatever they hold) through the core, in place."""
    lines = ["{", "    uint32_t x[NWORDS], y[NWORDS];", f"    cs_lanes_in_{f}(m[0], x);", f"    {core_call}"]
    return "\n".join(lines + [f"    cs_lanes_out_{f}(y, m[0]);", "}"])


def _lanes_ctr_core(f: str, call: str) -> str:
    """m[0]'s G counter blocks through the CTR kernel's core, in place: the uniform words um[] become planes
    without a transpose (cs_lanes_in_ctr), the core reads the hoisted planes at `seg` (bs_ctr.py)."""
    lines = ["{", "    uint32_t x[NWORDS], y[NWORDS];", f"    cs_lanes_in_ctr_{f}(m[0], um, x);", f"    {call}"]
    return "\n".join(lines + [f"    cs_lanes_out_{f}(y, m[0]);", "}"])


def _lane_keys_ks(f: str, G: int, menc: str) -> str:
    """E(K, J0) of a warp's 32 messages in one core call (lane_keys): block b is lane b's J0."""
    lines = ["{", "#pragma unroll", f"    for (int b = 0; b < {G}; ++b) {{  // block b: the J0 of lane b's message"]
    lines += [f"        m[0][b * 4 + {k}] = __shfl_sync(0xffffffffu, j0[{k}], b);" for k in range(4)]
    lines += [
        "    }",
        "    uint32_t x[NWORDS], y[NWORDS];",
        f"    cs_lanes_in_{f}(m[0], x);",
        f"    {menc}",
        f"    cs_lanes_out_{f}(y, m[0]);",
        "}",
    ]
    return "\n".join(lines)


def _rt_calls(text: str, rt_cores: frozenset[str]) -> str:
    """The GCM kernels' core calls to the run-time-count wrappers, where a core has one (cores.rt_name): their
    code then holds no round count, one text for every member of a spec template.

        before: cs_menc_ptx(x, y, rkb);        after: cs_menc_rt_ptx(x, y, rkb);"""
    if not rt_cores:
        return text
    names = "|".join(sorted(re.escape(n) for n in rt_cores))
    return re.sub(rf"\b({names})(?=[(<])", lambda m: cores.rt_name(m.group(1)), text)


def gcm_parts(
    module: Module,
    sched: CudaSchedule,
    P: str,
    *,
    group: int,
    nrk: int,
    enc_args: str,
    scalar_ctr=None,
    io=None,
    lane_uniform: list[str] | None = None,
    lane_call: str | None = None,
    seg_call: str | None = None,
    free: bool = True,
    nx: int,
    rt_cores: frozenset[str] = frozenset(),
    head: bool = False,
    nrk_own: int = 0,
) -> GcmParts:
    """``group``: blocks per core call; ``enc_args``: the CTR core's round-key/table arguments; the scalar
    layout passes its CTR parts (``scalar_ctr``: ctr.CtrParts) and block I/O, a lane layout the lines that
    make the counter's uniform memory words um[0..2] from seg.u (``lane_uniform``); ``nx``: the words a
    core takes (x[nx], y[nx]); ``lane_call``: a lane layout's CTR core call (default: the plain encrypt core;
    the bitsliced one reads the segment's host-computed planes, bs_ctr.py); ``seg_call``: that hoisted call where
    the CTR kernel runs it free (no lockstep barrier), so the keyed batch route may take it a record a warp trip
    (the record's planes made on the device), else None; ``free``: the CTR kernel runs free (lockstep.py), else the
    batch keystream keeps the resident kernel (the keyed kernels' warps run free too)."""
    f = sched.flavour
    G = group
    if G & (G - 1):
        raise ValueError(f"GCM needs a power-of-two lane group, got {G}")  # lanes.py makes 1, 4 or 32
    mk = multikey.kernel_parts(module, sched, P, nrk=nrk, group=G)
    fills = _fills(module, sched, mk["T"])
    menc = f"cs_menc_{f}(x, y, {mk['args']});"
    ks_menc = f"cs_menc_{f}(x, y, {', '.join(['rkb'] + fills.args)});"  # the keystream kernel's key buffer
    fin_args = ", ".join(["rkg"] + fills.args)
    fin_menc = f"cs_menc_{f}(x, y, {fin_args});"
    j0_uniform = ["uint32_t um[3] = {j0[0], j0[1], j0[2]};  // J0's words 0..2 (uniform)"]
    lane_keys = sched.layout == "bs" and G == 32  # bit b of a lane word is block b's (lanes.py)
    fin_lane_ks = _lane_keys_ks(f, G, f"cs_menc_{f}(x, y, {', '.join(['kw'] + fills.args)});") if lane_keys else ""
    if G == 1:
        assert scalar_ctr is not None and io is not None
        memword = layout.counter_memword(f, "lo")
        long_ks = _scalar_ks(scalar_ctr.unpack[f], scalar_ctr.call[f], io.pack[f], scalar_ctr.memword[f], False)
        batch_ks = _scalar_ks(io.unpack[f], menc, io.pack[f], memword, True)
        ks_ks = _scalar_ks(io.unpack[f], ks_menc, io.pack[f], memword, True)
        fin_ks = (
            "{\n    const int s = 0;\n"
            + "\n".join(f"    m[0][{k}] = j0[{k}];" for k in range(4))
            + "\n    uint32_t x[NWORDS], y[NWORDS];\n"
            + "\n".join("    " + ln for ln in io.unpack[f].splitlines() + [fin_menc] + io.pack[f].splitlines())
            + "\n}"
        )
    else:
        assert lane_uniform is not None
        uni = ["uint32_t um[3];"] + [ln for ln in lane_uniform]
        long_ks = _lanes_ks(f, G, uni, lane_call or f"cs_enc_{f}(x, y, {enc_args});")
        batch_ks = _lanes_ks(f, G, j0_uniform, menc)
        ks_ks = _lanes_ks(f, G, j0_uniform, ks_menc)
        # the keyed kernels hand each warp its own key's round keys through `rkp`: a core that reads the CTA's one
        # shared-memory copy of them (rk-shared, filled from the kernel parameter) has no keyed route
        keyed = lane_keys and sched.rk != "shared"
        ks_keyed = _lanes_core(f, f"cs_enc_{f}(x, y, {enc_args});") if keyed else ""
        ks_seg = _lanes_ctr_core(f, seg_call) if keyed and seg_call else ""
        fin_ks = "\n".join(
            [
                "{",
                "#pragma unroll",
                f"    for (int k = 0; k < {4 * G}; ++k) m[0][k] = k < 4 ? j0[k] : 0u;  // block 0: J0",
                "    uint32_t x[NWORDS], y[NWORDS];",
                f"    cs_lanes_in_{f}(m[0], x);",
                f"    {fin_menc}",
                f"    cs_lanes_out_{f}(y, m[0]);",
                "}",
            ]
        )
    if G == 1:
        ks_keyed = ks_seg = ""
    long_ks, batch_ks, fin_ks, ks_ks, ks_keyed, ks_seg, fin_lane_ks = (
        _rt_calls(t.replace("NWORDS", str(nx)), rt_cores)
        for t in (long_ks, batch_ks, fin_ks, ks_ks, ks_keyed, ks_seg, fin_lane_ks)
    )
    nrk_all = nrk if nrk else len(rk_index(module))
    return GcmParts(
        G=G,
        log2g=G.bit_length() - 1,
        T=sched.threads,
        TB=mk["T"],
        ILP=sched.ilp,
        long_ks=long_ks,
        batch_ks=batch_ks,
        batch_prologue=_batch_prologue(fills, nrk, head),
        ks_ks=ks_ks,
        ks_keyed=ks_keyed,
        ks_seg=ks_seg,
        counter_word=layout.counter_memword(f, "(lo + (uint32_t)b)"),
        counter_word_co=layout.counter_memword(f, "(lo + 32u * (uint32_t)b)"),
        keyed_free=free,
        ks_tables="\n".join(fills.lines),
        sm_ks_rk=_pad4(fills.words),
        nrk_pad=_pad4(nrk_all),
        sm_ks=_pad4(fills.words) + 2 * _pad4(nrk_own or nrk_all),  # (two key buffers: the member's own words)
        nrk_own=_pad4(nrk_own or nrk_all),
        fin_prologue=_fin_prologue(fills),
        fin_ks=fin_ks,
        lane_keys=lane_keys,
        keyed=bool(ks_keyed),
        fin_lane_ks=fin_lane_ks,
        sm_batch=fills.words + nrk,
        sm_fin=fills.words,
        nrk=nrk_all,
        head=head,
        own_words=functools.partial(own_words, nrk=nrk_all, head=head),
    )
