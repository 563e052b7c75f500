"""One schedule -> CUDA source (.cu) and header (.h): cores, kernels, host API.

    src = generate(registry.module("lea128"), CudaSchedule())
    src.name == "lea128_cuda_ctr_rk-const_t256";  src.cu, src.h: text

The templates hold the skeleton: templates/kernel.cu.j2 the device side (cores, the ECB, CTR, multi-key
and tail kernels), templates/host.cu.j2 the host API, templates/kernel.h.j2 the header.  What goes in
is decided here and in one module per part:

    cores.kernel_cores   the inline-PTX and plain-C cores (isel.py)      blockio    block loads/stores, unpack/pack
    prologue.directions  placement fills, barrier, core arguments       ctr        counter words, uniform hoisting
    multikey             the multi-key CTR kernel (CTR_DRBG bulk)        host       key schedule, counter bytes
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cipherspec.ir import Module
from cipherspec.passes import dce, key_hoist, lower_gmul, prune_tables, split_u64, ttable
from cipherspec.pipeline import Pass, run_passes

from ..common.gcpause import fewer_collections
from ..common.memo import by_identity
from ..common.templates import render
from . import abswitch, bitgather, cores, ctr, gcm, hostapi, layout, multikey
from .blockio import block_io
from .host import host_parts
from .keysched import KeySection
from .lanes_source import lanes_context
from .placement import DEFAULT_SHARED, FLAVOURS, CudaSchedule, rk_index
from .prologue import directions


@dataclass(frozen=True)
class Part:
    """Another translation unit of a library: a spec family's GCM object (gcm_part)."""

    name: str  # its file is name + ".cu"
    cu: str


@dataclass(frozen=True)
class Source:
    name: str
    symbol: str  # C prefix
    cu: str
    h: str
    hoisted_ops: int
    encrypt_ops: int
    key: KeySection  # set_key's host C, as it stands in cu (the constant-time test compiles it alone)
    parts: tuple[Part, ...] = ()  # the other translation units the library links (nvcc.build_library's parts)


def gcm_part_name(family: str, name: str) -> str:
    """The name of a spec family's GCM object for the schedule of ``name`` (a member's source name): the family and
    the schedule's parameters, nothing of the member's own.

        gcm_part_name("aes", "aes128_cuda_ctr_bs_rk-const_sync-auto_t256") -> "aes-gcm_cuda_ctr_bs_rk-const_sync-auto_t256"
    """
    return f"{family}-gcm_cuda_{name.split('_cuda_', 1)[1]}"


def symbol(name: str) -> str:
    return "cs_" + re.sub(r"[^A-Za-z0-9_]", "_", name.replace("-", "_").replace(".", "p"))


CUDA_PASSES = (
    Pass("split_u64", run_module=split_u64.run_module),
    Pass("lower_gmul", lower_gmul.run),
    Pass("bitgather", bitgather.run),  # bit permutations as delta-swap networks (one block per thread)
    Pass("dce", dce.run),
)
# gmul stays: the bit-plane lowering makes it an XOR network.  split_u64 only halves the interfaces (block, key and
# round-key words become u32 pairs; the u64 ops inside stay 64-bit, 64 planes a word, and the zext/shl/or and
# trunc/shr around them are plane renaming), so specs on 64-bit words take the bitsliced layout too.
BITSLICED_PASSES = (Pass("split_u64", run_module=split_u64.run_module), Pass("dce", dce.run))
TTABLE_PASSES = {
    n: (Pass("ttable", run_module=f),)
    + CUDA_PASSES
    + (Pass("key_hoist", run_module=key_hoist.run_module), Pass("prune_tables", run_module=prune_tables.run_module))
    for n, f in ((1, ttable.run_module), (4, ttable.run_module_four))
}


def passes_for(sched: CudaSchedule) -> tuple[Pass, ...]:
    if sched.layout == "bs":
        return BITSLICED_PASSES
    return TTABLE_PASSES[sched.ttable] if sched.ttable else CUDA_PASSES


def prepared(module: Module, sched: CudaSchedule | None = None) -> Module:
    """The module after the CUDA target's passes: 64-bit words split into 32-bit halves at the
    interfaces (memory words and round keys are 32-bit), gmul lowered to shifts/XORs (no gmul selection
    on the GPU; the bitsliced layout keeps gmul), dead code gone.  The same module and passes give the same
    object (the build's schedule choice, notes and source each ask: AES-128's bitgather took 2.5 s a call)."""
    return _run(module, passes_for(sched) if sched is not None else CUDA_PASSES)


@by_identity(8, extra=abswitch.state)
def _run(module: Module, passes: tuple[Pass, ...]) -> Module:
    return run_passes(module, passes)


def _tables(module: Module, sched: CudaSchedule) -> list[dict]:
    """The tables' device arrays (the source of every placement's copy) and, for tab-const, constant ones."""
    return [
        {
            "name": t.name,
            "n": len(t.values),
            "data": ", ".join(f"{v:#x}u" for v in t.values),
            "constant": sched.tab == "const",
        }
        for t in module.tables.values()
    ]


def _summary(module: Module, sched: CudaSchedule, name: str, hoisted_ops: int, live_hoisted: int) -> dict:
    """The header comments' facts about the schedule."""
    return dict(
        name=name,
        cipher=module.cipher,
        block=str(module.block),
        key=str(module.key),
        rk_place=sched.rk,
        tab_place=sched.tab if module.tables and sched.layout != "bs" else "(none)",
        hoisting="on" if sched.hoist else "off",
        hoisted_ops=hoisted_ops,
        NH=live_hoisted,
        enc_ops=module.functions["encrypt"].work(),
        default_flavour_text="plain CUDA C" if sched.flavour == "c" else "inline PTX",
        rk_layout="round keys, one u32 per word: "
        + ", ".join(f"{ka.name}: u{ka.width}{''.join(f'[{s}]' for s in ka.shape)}" for ka in module.key_arrays),
    )


def _seg_call(lanes: dict, f: str) -> str | None:
    """The CTR kernel's hoisted core call where that kernel runs it free (no lockstep barrier: lockstep.py),
    for the keyed GCM batch route's record-a-trip kernel; None otherwise (its warps take records at their own pace,
    so a barrier among them could not be met)."""
    call = lanes["ctr_call"][f]
    return call if lanes["SEGH"] and lanes["ctr_call_own"][f] == call else None


def _flavour_context(sched: CudaSchedule, flavours: tuple[str, ...]) -> dict:
    """The templates' flavour data: the flavours the source holds, each one's CS_FLAVOURS bit, their mask (the
    source's default CS_FLAVOURS) and the schedule's default flavour (the host API's number: FLAVOURS' index)."""
    bit = {f: 1 << FLAVOURS.index(f) for f in flavours}
    return dict(
        flavours=flavours,
        flavour_bit=bit,
        flavours_mask=sum(bit.values()),
        default_flavour=FLAVOURS.index(sched.flavour),
    )


def _gcm_context(parts: gcm.GcmParts, long_prologue: str, smem: int) -> dict:
    """gcm.cu.j2's data: the parts, the long-message kernel's prologue (the CTR kernel's) and the shared
    words its cores use (the GHASH scratch follows them)."""
    return dict(
        vars(parts),
        long_prologue=long_prologue,
        sm_long=smem // 4,
        FT=gcm.FINISH_THREADS,
        NHOT=gcm.hot_powers(parts.G),
        row_mulp=parts.row_mulp,
    )


@fewer_collections()  # (millions of IR objects, few cycles: gcpause.py)
def generate(
    module: Module,
    sched: CudaSchedule,
    rounds: int | None = None,
    with_gcm: bool = True,
    flavours: tuple[str, ...] = FLAVOURS,
    rk_pad: int = 0,
    gcm_family: str = "",
) -> Source:
    """``module``: the cipher after the shared pipeline; ``rounds``: the override it was made with (names);
    ``with_gcm``: the GCM kernels and API too, where the block is 128 bits (CI's compile checks leave them
    out of all but one cipher, to bound nvcc time); ``flavours``: the kernel flavours the source holds -- both
    for the runtime and the benchmarks (CS_FLAVOURS picks at compile time), the schedule's own for the source
    `cipherspec build` ships, which then carries no core it does not compile (the same PTX: a test checks it):

        generate(m, sched).cu                          cs_enc_ptx, cs_enc_c, ... ; #define CS_FLAVOURS 3
        generate(m, sched, flavours=("ptx",)).cu       cs_enc_ptx, ...           ; #define CS_FLAVOURS 1

    ``rk_pad``: the round-key struct's words at least (lanes_context's); ``gcm_family``: the spec family whose GCM
    object holds a lane layout's GCM kernels (gcm_part: build.shipped_source passes both), in
    ``parts``; the source declares those kernels and launches them:

        generate(aes128, bs, rk_pad=3828, gcm_family="aes").parts
            -> (Part("aes-gcm_cuda_ctr_bs_rk-const_sync-auto_t256", <AES-256's text too>),)"""
    if sched.flavour not in flavours or not set(flavours) <= set(FLAVOURS):
        raise ValueError(f"flavours {flavours}: a subset of {FLAVOURS} that holds the schedule's {sched.flavour}")
    flavours = tuple(f for f in FLAVOURS if f in flavours)  # (FLAVOURS' order: the bit of each is its index)
    module = prepared(module, sched)
    sched.validate(module)
    layout.check(module.block)
    name = sched.name(module, rounds)
    P = symbol(name)
    if sched.lanes:
        part = gcm_family if with_gcm and gcm.supported(module) and rounds is None else ""
        return _generate_lanes(module, sched, name, P, with_gcm, flavours, rk_pad, part)
    dirs = directions(module, sched)
    ct = ctr.ctr_parts(module, sched, dirs["enc"])
    smem = sched.shared_bytes(module)
    host = host_parts(module, P)
    ctx = dict(
        _summary(module, sched, name, ct.split.hoisted_ops, len(ct.split.frontier)),
        P=P,
        B=module.block.nbytes,
        KB=module.key.nbytes,
        MW=module.block.nbytes // 4,
        NW=module.block.count,
        NRK=len(rk_index(module)),
        T=sched.threads,
        CTAS=sched.ctas,
        ILP=sched.ilp,
        tile=sched.threads * sched.ilp,
        **_flavour_context(sched, flavours),
        smem=smem,
        smem_opt_in=smem > DEFAULT_SHARED,
        tables=_tables(module, sched),
        SEGH=0,  # (the scalar layout hoists per thread: no host-computed segment planes)
        seg_pre="",
        cores=cores.kernel_cores(
            module,
            sched,
            f"{P}_rk",
            ct.split,
            ctr.state_names(module, "encrypt"),
            ctr.state_names(module, "decrypt"),
            flavours,
        ),
        ecb=[dirs["enc"], dirs["dec"]],
        enc=dirs["enc"],
        io=block_io(module),
        ctr=ct,
        mk=multikey.kernel_parts(module, sched, P, ks_entry=host.key.entry_enc or host.key.entry),
        host=host,
        gcm_part="",  # (one translation unit: gcm.cu.j2's family_def)
        GP=P,
    )
    ctx["mg"] = hostapi.context(module, P)  # every GPU of the host: multigpu.cu.j2
    ctx["gcm"] = (
        _gcm_context(
            gcm.gcm_parts(
                module,
                sched,
                P,
                group=1,
                nrk=len(rk_index(module)),
                enc_args=dirs["enc"].args,
                scalar_ctr=ct,
                io=ctx["io"],
                nx=module.block.count,
            ),
            ct.prologue[sched.flavour],
            smem,
        )
        if with_gcm and gcm.supported(module)
        else None
    )
    return Source(
        name,
        P,
        render("ptx/kernel.cu.j2", **ctx),
        render("ptx/kernel.h.j2", **ctx),
        ct.split.hoisted_ops,
        ctx["enc_ops"],
        ctx["host"].key,
    )


def _generate_lanes(
    module: Module,
    sched: CudaSchedule,
    name: str,
    P: str,
    with_gcm: bool,
    flavours: tuple[str, ...],
    rk_pad: int = 0,
    family: str = "",
) -> Source:
    """A lane layout's kernels (lanes_source.py, templates/lanes.cu.j2); the host API is the same.  ``family``: its
    GCM kernels in a GCM object of their own (templates/gcmpart.cu.j2), named for the family:
    its text is the member's with the member's prefix made the family's, so every member that renders the same
    text (their cores' parts, the padded round keys) shares one compiled object."""
    lanes = lanes_context(module, sched, P, flavours, rk_pad)
    gcm_name = gcm_part_name(family, name) if family else ""
    FP = symbol(gcm_name) if family else P
    ctx = dict(
        _summary(module, sched, name, lanes["hoisted_ops"], lanes["SEGH"]),
        **lanes,
        P=P,
        KB=module.key.nbytes,
        NW=module.block.count,
        T=sched.threads,
        CTAS=sched.ctas,
        ILP=sched.ilp,
        tile=sched.threads * sched.ilp * lanes["G"],
        **_flavour_context(sched, flavours),
        smem_opt_in=lanes["smem"] > DEFAULT_SHARED,
        tables=_tables(module, sched),
        memword={f: layout.counter_memword(f, "lo") for f in FLAVOURS},
        host=host_parts(module, P, lanes["derive"], lanes["rows"]),
        mg=hostapi.context(module, P),
        gcm_part="member" if family else "",
        GP=FP,  # (the GCM kernels: the family object's names where it holds them)
    )
    ctx["gcm"] = (
        _gcm_context(
            gcm.gcm_parts(
                module,
                sched,
                P,
                group=lanes["G"],
                nrk=lanes["NRK"],
                enc_args=lanes["enc"].args,
                lane_uniform=lanes["counter_uniform"],
                lane_call=lanes["ctr_call"][sched.flavour],
                seg_call=_seg_call(lanes, sched.flavour),
                free=lanes["ctr_call_own"][sched.flavour] == lanes["ctr_call"][sched.flavour],
                nx=lanes["NX"],
                rt_cores=lanes["rt_cores"],
                head=bool(lanes["head"]),
                nrk_own=lanes["NRK_OWN"],
            ),
            lanes["enc"].prologue,
            lanes["smem"],
        )
        if with_gcm and gcm.supported(module)
        else None
    )
    parts: tuple[Part, ...] = ()
    if family and ctx["gcm"] is not None:
        fam = dict(ctx, gcm_part="family", gcm_name=gcm_name, family=family, gcm_schedule=name.split("_cuda_", 1)[1])
        parts = (Part(gcm_name, render("ptx/gcmpart.cu.j2", **fam).replace(P, FP)),)
    return Source(
        name,
        P,
        render("ptx/lanes.cu.j2", **ctx),
        render("ptx/kernel.h.j2", **ctx),
        lanes["hoisted_ops"],
        lanes["core_ops"] if lanes["SEGH"] else ctx["enc_ops"],  # (bit-plane ops where the count is of them)
        ctx["host"].key,
        parts,
    )
