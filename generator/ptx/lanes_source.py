"""The template data of a lane-layout kernel (templates/lanes.cu.j2): G blocks per thread and slot.

    ctx = lanes_context(module, sched, P)     -> rendered by source.generate

Per slot, a group's G blocks are loaded as memory words m[s][b*MW + k], turned into lane words by the
layout's lanes_in core, run through the lowered core, turned back by lanes_out and stored, each block
behind its own bounds check (the last group of a call may be partial).  CTR builds the G counters'
memory words (the uniform ones once per thread), the multi-key kernel G counters with full carry, the
tail kernel one group whose block 0 is the partial last block.  Round keys: the key schedule's words,
then the layout's derived words (keysplit.py), computed by set_key.  The bitsliced layout's single-key CTR
kernels (ctr, ctr_tail, GCM long) call ``cs_main``, whose segment-uniform part the host computes once per
segment into ``seg.h`` (bs_ctr.py):

    ctx["ctr_call"]["ptx"] == "cs_main_ptx(x, y, rkp, seg);"     (no hoisting: "cs_enc_ptx(x, y, rkp);")
    ctx["SEGH"] == 176  (AES-128: the h words of P_seg)          ctx["seg_pre"]: the host C that fills them
"""

from __future__ import annotations

import sys
from dataclasses import replace

from cipherspec.ir import Module

from ..common.memo import by_identity
from . import abswitch, asmblock, bs_ctr, cores, keyorder, layout, lockstep, multikey
from .abswitch import former_ctr, former_store
from .blockio import block_io, lane_io
from .ctr import state_names
from .lanes import CONSTANT_TIME, lanes_for
from .placement import FLAVOURS, CudaSchedule, rk_index
from .prologue import directions


def _rk_words(module: Module, lay) -> dict[str, int]:
    """Round-key input name -> word of the struct: the key schedule's words, then the derived ones; or, where the
    derived words are in round-loop order (keyorder.py), its head words, those, then the schedule's."""
    ks = rk_index(module)
    ks_at, d_at = keyorder.word_offsets(len(ks), lay.derived, lay.derived_first)
    return {n: ks_at + w for n, w in ks.items()} | {n: d_at + k for k, (n, _) in enumerate(lay.derive.outputs)}


def _cores(
    module: Module, lay, sched: CudaSchedule, rk_type: str, nrk: int, seg_type: str, flavours: tuple[str, ...]
) -> tuple[list[str], list[str]]:
    """The cores, and what of them a family's GCM object holds (no literal round count: cores.looped_core)."""
    rk_idx: dict = _rk_words(module, lay)  # (core and looped_core type it differently)
    acc = cores.access(module, sched, rk_type)
    acc_multi = cores.access(
        module,
        replace(sched, rk="shared"),
        rk_type,  # multi-key: rk staged in shared
        reload_rk=sched.layout == "bs",
    )
    G, MW = lay.group, module.block.nbytes // 4
    mem = [f"M[{i}]" for i in range(G * MW)]
    out: list[str] = []
    shared: list[str] = []  # (each core's text, or its looped parts and run-time wrapper)

    def add(text: str | tuple[str, str]) -> None:
        whole, part = (text, text) if isinstance(text, str) else text
        out.append(whole)
        shared.append(part)

    for f in flavours:
        # (the transforms stay one statement an instruction: cores.core's fuse; lanes_out prints blocks with
        # CIPHERSPEC_PTX_CORE's "lanes_out" part, asmblock.wide)
        add(cores.core(f"cs_lanes_in_{f}", lay.lanes_in, module, cores.NO_ACCESS, f, mem, fuse=False))
        uniform = [f"U[{k}]" for k in range(MW)]  # (um[MW]: the last entry unused)
        add(cores.core(f"cs_lanes_in_ctr_{f}", lay.lanes_in_ctr, module, cores.NO_ACCESS, f, mem, uniform, fuse=False))
        add(
            cores.core(
                f"cs_lanes_out_{f}",
                lay.lanes_out,
                module,
                cores.NO_ACCESS,
                f,
                lay.state["encrypt"],
                fuse=asmblock.wide("lanes_out"),  # (its inputs are the core's outputs, each its own value)
            )
        )
        for d, fname, a in (("enc", "encrypt", acc), ("dec", "decrypt", acc), ("menc", "encrypt", acc_multi)):
            loop = lay.loops[fname]
            fuse = (
                d != "menc" or asmblock.multi()
            )  # (the multi-key core: CIPHERSPEC_PTX_ASMBLOCK_MULTI=0 keeps statements)
            if loop is not None:
                add(
                    cores.looped_core(
                        f"cs_{d}_{f}", loop, module, a, f, lay.state[fname], rk_idx, fuse=fuse, rows=lay.rows
                    )
                )
            else:
                core = lay.cores[fname]
                add(cores.core(f"cs_{d}_{f}", core, module, a, f, lay.state[fname], rk_idx=rk_idx, fuse=fuse))
        if lay.ctr is not None:  # the single-key CTR kernels' core: the segment's uniform planes from seg.h
            hs = cores.Bound(
                f"const {seg_type} &hs", "hs", {n: f"hs.h[{k}]" for k, (n, _) in enumerate(lay.ctr.pre.outputs)}
            )
            loop, state = lay.loops["ctr_main"], lay.state["ctr_main"]
            if loop is not None:
                sync = lockstep.round_barrier(_sync(lay, sched), sched.threads)
                add(
                    cores.looped_core(
                        f"cs_main_{f}", loop, module, acc, f, state, rk_idx, bound=hs, sync=sync, rows=lay.rows
                    )
                )
            else:
                main = lay.cores["ctr_main"]
                add(cores.core(f"cs_main_{f}", main, module, acc, f, state, rk_idx=rk_idx, bound=hs))
    return out, shared


def _ctr_call(f: str, enc_args: str, hoisted: bool) -> str:
    """The single-key CTR kernels' core call: cs_main with the segment after the round keys (its parameter
    order: keys, the Bound, tables), or the plain encrypt core."""
    if not hoisted:
        return f"cs_enc_{f}(x, y, {enc_args});"
    rk, *tabs = enc_args.split(", ")
    return f"cs_main_{f}(x, y, {', '.join([rk, 'seg', *tabs])});"


def _sync(lay, sched: CudaSchedule) -> str:
    """The CTR kernel's resolved sync mode (lockstep.resolve: sync-auto by the CTR core's code size)."""
    fname = "ctr_main" if lay.ctr is not None else "encrypt"
    return lockstep.resolve(sched, lay.loops.get(fname))


def _own_call(lay, sched: CudaSchedule, enc_args: str) -> dict[str, str]:
    """The CTR kernel's core call: ctr_call's, or with the round barriers on (sync-round / sync-pair, a looped
    cs_main: lockstep.py), whose template the other kernels (tail, GCM) call without."""
    hoisted = lay.ctr is not None
    barrier = lockstep.round_barrier(_sync(lay, sched), sched.threads) is not None
    on = hoisted and lay.loops["ctr_main"] is not None and barrier
    return {f: (lockstep.synced if on else str)(_ctr_call(f, enc_args, hoisted)) for f in FLAVOURS}


def _layout(module: Module, sched: CudaSchedule):
    hoist = sched.layout == "bs" and sched.hoist and not former_ctr()
    return _lanes(module, sys.intern(sched.layout), sched.layout == "bs" and not sched.unroll, hoist)


@by_identity(4, extra=abswitch.state)
def _lanes(module: Module, name: str, reroll: bool, hoist: bool):
    """lanes_for, once for a prepared module (seconds for a bitsliced cipher): the source asks twice (rk_words and
    lanes_context), and `cipherspec build` asks for each member of a family at each member (build.family_rk_words)."""
    return lanes_for(module, name, reroll=reroll, ctr_hoist=hoist)


def rk_words(module: Module, sched: CudaSchedule) -> int:
    """The round-key struct's words a lane layout needs: the key schedule's, the derived ones and, where keyorder.py
    ordered them, its head words.  A family's largest member's is what its members pad to (lanes_context's
    ``rk_pad``), so that their GCM kernels are one text."""
    lay = _layout(module, sched)
    return len(rk_index(module)) + lay.derived + (keyorder.HEAD if lay.derived_first else 0)


def has_head(module: Module, sched: CudaSchedule) -> bool:
    """The round-key struct starts with keyorder.py's head words (the round loops' rows, the key's own words): what a
    family's GCM kernels need to be one text for its members (their round count and copies read at run time)."""
    return _layout(module, sched).derived_first


def lanes_context(
    module: Module, sched: CudaSchedule, P: str, flavours: tuple[str, ...] = FLAVOURS, rk_pad: int = 0
) -> dict:
    """``flavours``: the kernel flavours whose cores the source holds (source.generate's); ``rk_pad``: the round-key
    struct's words at least (a family's largest member's: build.family_rk_words), the words after the member's own
    zero.

        AES-128 alone: NRK 2740          rk_pad=3828 (AES-256's): NRK 3828, the GCM kernels AES-256's text"""
    lay = _layout(module, sched)
    nrk = max(rk_words(module, sched), rk_pad)
    G, MW, B = lay.group, module.block.nbytes // 4, module.block.nbytes
    dirs = directions(module, sched, nrk)
    uniform = layout.pack_lines(module.block, [f"seg.u[{j}]" for j in range(module.block.count)], "um", "c")[:-1]
    uniform_z = layout.pack_lines(module.block, [f"(seg.u[{j}] ^ zu)" for j in range(module.block.count)], "um", "c")[
        :-1
    ]
    mk = multikey.kernel_parts(module, sched, P, nrk=nrk, group=G, per_request=True)  # (lanes.cu.j2: a CTA a request)
    smem = sched.shared_bytes(module, nrk)
    return dict(
        G=G,
        NX=len(lay.state["encrypt"]),
        NRK=nrk,
        NRK_OWN=rk_words(module, sched),  # (the member's own: NRK is its family's largest member's, where padded)
        MW=MW,
        B=B,
        lanes=lay.name,
        constant_time=CONSTANT_TIME[lay.name] if lay.constant_time else "no (table lookups)",
        **dict(zip(("cores", "gcm_cores"), _cores(module, lay, sched, f"{P}_rk", nrk, f"{P}_seg", flavours))),
        ctr_call={f: _ctr_call(f, dirs["enc"].args, lay.ctr is not None) for f in FLAVOURS},
        ctr_call_own=_own_call(lay, sched, dirs["enc"].args),  # the CTR kernel's (lockstep: with round barriers)
        SEGH=len(lay.ctr.frontier) if lay.ctr is not None else 0,
        seg_pre=bs_ctr.host_c(lay.ctr, state_names(module, "encrypt"), _rk_words(module, lay), P)
        if lay.ctr is not None
        else "",
        hoisted_ops=lay.ctr.hoisted_ops if lay.ctr is not None else 0,
        core_ops=lay.cores["encrypt"].work(),
        ecb=[dirs["enc"], dirs["dec"]],
        enc=dirs["enc"],
        io=block_io(module),
        lio=lane_io(module),
        counter_uniform=uniform,
        counter_uniform_z=uniform_z,  # (the grid-stride loop's copy: recomputed per iteration, lanes.cu.j2)
        mk=mk,
        smem=smem,
        lockstep=bool(_sync(lay, sched)),  # every thread runs its CTA's trips, each opened at a barrier (lockstep.py)
        interleave=lay.name == "bs" and sched.threads % 32 == 0 and not former_store(),  # (coalesced CTR stores)
        derive=lay.derive,  # set_key's derived words (host.py)
        rows=lay.rows,
        # the looped cores that also have a run-time-count wrapper (cores.rt_name): what the GCM kernels call
        rt_cores=frozenset(
            f"cs_{d}_{f}"
            for f in flavours
            for d, fname in (("enc", "encrypt"), ("dec", "decrypt"), ("menc", "encrypt"), ("main", "ctr_main"))
            if lay.rows and lay.loops.get(fname) is not None and (d != "main" or lay.ctr is not None)
        ),
        head=keyorder.HEAD if lay.derived_first else 0,
        derived=lay.derived,
    )
