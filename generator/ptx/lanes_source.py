"""The template data of a lane-layout kernel (templates/lanes.cu.j2): G blocks per thread and slot.

    ctx = lanes_context(module, sched, P, name)     -> rendered by source.generate

Per slot, a group's G blocks are loaded as memory words m[s][b*MW + k], turned into lane words by the
layout's lanes_in core, run through the lowered core, turned back by lanes_out and stored, each block
behind its own bounds check (the last group of a call may be partial).  CTR builds the G counters'
memory words (the uniform ones once per thread) -- and for a call's partial last block, the same kernel launched
with one CTA, thread 0's group whose block 0 it is --, the multi-key kernel G counters with full carry.  Round keys: the key schedule's words,
then the layout's derived words (keysplit.py), computed by set_key.
"""

from __future__ import annotations

from dataclasses import replace

from cipherspec.ir import Module

from . import cores, layout, multikey
from .blockio import block_io, lane_io
from .lanes import CONSTANT_TIME, lanes_for
from .placement import FLAVOURS, CudaSchedule, rk_index
from .prologue import directions


def _cores(module: Module, lay, sched: CudaSchedule, rk_type: str, nrk: int) -> list[str]:
    base = len(rk_index(module))
    rk_idx = dict(rk_index(module)) | {n: base + k for k, (n, _) in enumerate(lay.derive.outputs)}
    acc = cores.access(module, sched, rk_type)
    acc_multi = cores.access(
        module,
        replace(sched, rk="shared"),
        rk_type,  # multi-key: rk staged in shared
        reload_rk=sched.layout == "bs",
    )
    G, MW = lay.group, module.block.nbytes // 4
    mem = [f"M[{i}]" for i in range(G * MW)]
    out = []
    for f in FLAVOURS:
        out.append(cores.core(f"cs_lanes_in_{f}", lay.lanes_in, module, cores.NO_ACCESS, f, mem))
        uniform = [f"U[{k}]" for k in range(MW)]  # (um[MW]: the last entry unused)
        out.append(cores.core(f"cs_lanes_in_ctr_{f}", lay.lanes_in_ctr, module, cores.NO_ACCESS, f, mem, uniform))
        out.append(cores.core(f"cs_lanes_out_{f}", lay.lanes_out, module, cores.NO_ACCESS, f, lay.state["encrypt"]))
        for d, fname, a in (("enc", "encrypt", acc), ("dec", "decrypt", acc), ("menc", "encrypt", acc_multi)):
            loop = lay.loops[fname]
            if loop is not None:
                out.append(cores.looped_core(f"cs_{d}_{f}", loop, module, a, f, lay.state[fname], rk_idx))
            else:
                out.append(cores.core(f"cs_{d}_{f}", lay.cores[fname], module, a, f, lay.state[fname], rk_idx=rk_idx))
    return out


def lanes_context(module: Module, sched: CudaSchedule, P: str) -> dict:
    lay = lanes_for(module, sched.layout, reroll=sched.layout == "bs" and not sched.unroll)
    nrk = len(rk_index(module)) + lay.derived
    G, MW, B = lay.group, module.block.nbytes // 4, module.block.nbytes
    dirs = directions(module, sched, nrk)
    uniform = layout.pack_lines(module.block, [f"seg.u[{j}]" for j in range(module.block.count)], "um", "c")[:-1]
    uniform_z = layout.pack_lines(module.block, [f"(seg.u[{j}] ^ zu)" for j in range(module.block.count)], "um", "c")[
        :-1
    ]
    mk = multikey.kernel_parts(module, sched, P, nrk=nrk, group=G)
    smem = sched.shared_bytes(module, nrk)
    return dict(
        G=G,
        NX=len(lay.state["encrypt"]),
        NRK=nrk,
        MW=MW,
        B=B,
        lanes=lay.name,
        constant_time=CONSTANT_TIME[lay.name] if lay.constant_time else "no (table lookups)",
        cores=_cores(module, lay, sched, f"{P}_rk", nrk),
        ecb=[dirs["enc"], dirs["dec"]],
        enc=dirs["enc"],
        io=block_io(module),
        lio=lane_io(module),
        counter_uniform=uniform,
        counter_uniform_z=uniform_z,  # (the grid-stride loop's copy: recomputed per iteration, lanes.cu.j2)
        mk=mk,
        smem=smem,
        derive=lay.derive,  # set_key's derived words (host.py)
        derived=lay.derived,
    )
