"""The constant-time default for a spec the autotuner has not measured: among the layouts that read no table
with a secret index and take the spec, the one with the fewest estimated instructions per block.

    choose(prepared(sm4))      -> Choice(CudaSchedule(layout="bs", threads=256, sync="auto", ...),
                                         why="bs: the only constant-time layout that takes it")
    choose(prepared(u64_lut))  -> Choice(CudaSchedule(layout="bs", ...), ...)   (u64 words: 64 planes a word)
    estimates(sm4)             -> {"table": 1296.0, "bs": 996.0}   (instructions per block, estimated)

Today the bitsliced layout is the only candidate for a spec with tables (the byte-packed one reads them), so
the estimate only informs the build notes; a second candidate (an S-box circuit per lane) would be ranked by it.

Candidates come from the IR's structure, never the cipher's name: the bitsliced layout (bitsliced.py: any
4- or 8-bit table as a Boolean circuit, bit permutations, rotations and byte moves as renaming, so a
PRESENT-style pLayer costs nothing), 64-bit words too (split_u64 halves the interfaces, a u64 op inside is 64
planes, its 32-bit halves renaming); a spec without tables is constant-time
on the one-block-per-thread layout already.  The estimate (no GPU here) counts IR ops after lowering: the
bitsliced cores' ops / 32 plus the bit transposes per block; the table layout's ops with each lookup as 3
(address arithmetic and a shared-memory load; bank conflicts not counted, so it flatters tables).  The bitsliced
schedule's round keys go to shared memory where its key planes exceed the constant cache's working set
(key_plane_bytes: PRESENT-80's 9 KB), else stay in the constant bank.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cipherspec.errors import UsageError
from cipherspec.ir import Module

from .lockstep import BODY_OPS
from .placement import CudaSchedule, load_tuned, table_base

LUT_COST = 3  # a table lookup on the one-block layout: index arithmetic + LDS
CONST_WORKING_SET = 8192  # bytes: the constant cache's working set per SM (CUDA programming guide, sm_50 .. sm_90)
BS_THREADS = 256  # the bitsliced cores use 255 registers: one 256-thread CTA an SM (8 warps, as 2 x 128), measured
# faster on an H200 (1 GiB CTR: AES-128 3,897 -> 4,305 Gbps, ARIA-128 2,933 -> 3,039; bench/results/ariaroof2.md;
# SM4 3,870 -> 4,243, nearinv_u32_be's round loop 14,963 -> 17,223: bench/results/nearinv.md)
BS_SYNC = "auto"  # the CTR kernel's warps in step where its round-loop body is large (lockstep.py)


THREADS_WHY = (
    f"t{BS_THREADS}: one CTA of {BS_THREADS} threads an SM at 255 registers; sync-{BS_SYNC}: the CTR kernel's warps "
    f"kept in step where its round-loop body exceeds {BODY_OPS:,} plane ops"
)


@dataclass(frozen=True)
class Choice:
    sched: CudaSchedule | None  # None: no constant-time layout takes this spec
    why: str


def candidates(module: Module) -> dict[str, CudaSchedule | str]:
    """``module``: after the CUDA passes. Layout name -> a constant-time schedule, or why it does not apply."""
    from .bitsliced import supports

    why = supports(module)  # (after split_u64 the interfaces are 32-bit; u64 ops inside are 64 planes a word)
    rk = "shared" if key_plane_bytes(module) > CONST_WORKING_SET else "const"
    bs = replace(table_base(module), rk=rk, threads=BS_THREADS, layout="bs", sync=BS_SYNC)  # bs_rk-const_sync-auto_t256
    return {"bs": why if why else bs}


def key_plane_bytes(module: Module) -> int:
    """The bitsliced layout's round-key words and key planes (one u32 per key bit, set_key's derived words), an
    upper bound.  Read with a round-dependent index in the round loop: past the constant cache's working set they
    go to shared memory (rk-shared: LDS.128, four planes a load) instead of the constant bank (PRESENT-80: 32
    round keys x 64 planes, ~9 KB; SM4, AES-128: 4-6 KB)."""
    return 4 * sum((ka.width + 1) * len(ka.flat_names()) for ka in module.key_arrays)


def choose(module: Module) -> Choice:
    """``module``: after the CUDA passes (source.prepared). Cheap: estimates only when several candidates apply."""
    cands = candidates(module)
    ok = {k: v for k, v in cands.items() if isinstance(v, CudaSchedule)}
    if not ok:
        return Choice(None, "; ".join(f"{k}: {v}" for k, v in cands.items()))
    if len(ok) == 1:
        ((k, s),) = ok.items()
        rk = (
            f"; round keys in shared memory ({key_plane_bytes(module):,} bytes of key planes exceed the "
            f"{CONST_WORKING_SET:,}-byte constant-cache working set)"
            if s.rk == "shared"
            else ""
        )
        return Choice(s, f"{k}: the only constant-time layout that takes it{rk}; {THREADS_WHY}")
    est = estimates(module, list(ok), prepared_already=True)
    best = min(ok, key=lambda k: est[k])
    return Choice(ok[best], f"{best}: fewest estimated instructions per block among {', '.join(sorted(ok))}")


def estimates(module: Module, layouts: list[str] | None = None, prepared_already: bool = False) -> dict[str, float]:
    """Estimated instructions per block for each applicable constant-time layout and for the table layout
    (``module``: after the shared pipeline, as build.schedule_for takes it; the bitsliced figure lowers the
    cores, a few seconds)."""
    from . import lanes
    from .source import prepared

    base = module if prepared_already else prepared(module)
    out: dict[str, float] = {}
    enc = base.functions["encrypt"]
    luts = sum(1 for op in enc.ops if op.code == "lut")
    out["table"] = float(enc.work() - luts + LUT_COST * luts)
    for k, s in candidates(base).items():
        if not isinstance(s, CudaSchedule) or (layouts is not None and k not in layouts):
            continue
        lay = lanes.lanes_for(prepared(module, s), k)
        per = lay.group
        out[k] = (lay.cores["encrypt"].work() + lay.lanes_in.work() + lay.lanes_out.work()) / per
    return out


def default_for(module: Module, tuned: dict[str, str] | None = None) -> CudaSchedule:
    """The build default, constant-time wherever a layout allows: the autotuner's pick (tuned.json) when there
    is one (bench.py pick_tuned ranks constant-time schedules only); else, for a spec with tables, the
    constant-time layout ctchoice.choose picks from the IR's structure (the bitsliced layout); else
    table_base (no tables: constant-time as it is; tables and no constant-time layout: the notes say so)."""
    tuned = load_tuned() if tuned is None else tuned
    base = table_base(module)
    if module.cipher in tuned:
        try:
            return CudaSchedule.parse(tuned[module.cipher], module, base)
        except UsageError:
            pass
    if module.tables:
        pick = choose(module).sched
        if pick is not None:
            return pick
    return base
