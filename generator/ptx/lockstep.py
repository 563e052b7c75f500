"""Warps in step: the lane layouts' CTR kernel with barriers, so that the warps sharing a scheduler fetch the same
instructions (schedule tokens sync-trip | sync-round | sync-pair, placement.py).

A bitsliced core's round loop can be tens of KB of SASS (ARIA-128: 3,369 instructions an iteration).  Two warps
of a scheduler that run it at different places fetch different lines; in step, one warp's fetch serves both.

    sync-trip:   every thread runs its CTA's trips (no early exit), each trip opened by __syncthreads()
    sync-round:  as trip, and __syncthreads() at the top of each round-loop iteration of the CTR core
    sync-pair:   as trip, and there a named barrier of the warps w with the same w % 4 (one scheduler each):
                     bar.sync 1 + (warp & 3), T / 4
    sync-auto:   by the code a warp runs between barriers (``resolve``): pair (round where T is not a multiple of
                 128) where the CTR core's round-loop body has more than BODY_OPS plane ops; else none (an
                 unrolled core too).  Measured on an H200 (1 GiB CTR keystream, t256, bench/results/ariaroof2.md):
                 ARIA-128's body (5,360 plane ops, 3,369 SASS, ~54 KB) +9.7% in step (3,039 -> 3,334 Gbps),
                 AES-128's (2,508, 1,571 SASS, ~25 KB) -5.1% (4,305 -> 4,087); a trip barrier never paid: ARIA
                 -1.0% (3,010), nearinv_u32_be's 63 KB straight-line trip -2.2% (14,851 -> 14,529,
                 bench/results/nearinv.md), so sync-auto gives an unrolled core none

    before: cs_main_ptx(x, y, rkp, seg);          for (i ...) { cs_main_ptx_body(...); }
    after:  cs_main_ptx<true>(x, y, rkp, seg);    for (i ...) { if (SYNC) { bar.sync ... } cs_main_ptx_body(...); }

The barriers depend on the loop counter and the CTA's geometry only (public): no secret branch.  The other
kernels that share the core (ECB, the CTR tail, GCM) call it as before (SYNC = false, the same code).
"""

from __future__ import annotations

from .placement import CudaSchedule

BODY_OPS = 4000  # plane ops: between AES-128's round-loop body (2,508: best free) and ARIA-128's (5,360: in step)


def resolve(sched: CudaSchedule, loop) -> str:
    """The sync mode the CTR kernel gets: the schedule's, or for sync-auto the one the code size asks for.
    ``loop``: the CTR core's round loop (roundloop.RoundLoop) or None (an unrolled core: no barrier)."""
    if sched.sync != "auto":
        return sched.sync
    if loop is None or _work(loop.body) <= BODY_OPS:
        return ""
    return "pair" if sched.threads % 128 == 0 else "round"


def _work(fn) -> int:
    return sum(1 for op in fn.ops if op.code not in ("input", "const"))


def round_barrier(mode: str, threads: int) -> list[str] | None:
    """The lines at the top of each round-loop iteration of the CTR core for a resolved mode, or None."""
    if mode == "round":
        return ["__syncthreads();"]
    if mode == "pair":  # warps w, w + 4, ... share scheduler w % 4: T / 4 threads meet at barrier 1 + w % 4
        return [
            "#ifdef __CUDA_ARCH__",
            f'asm volatile("bar.sync %0, {threads // 4};" :: "r"(1u + ((threadIdx.x >> 5) & 3u)));',
            "#else",
            "__syncthreads();  // (the CPU harness, tests/support/cuda_cpu.h: the whole CTA meets)",
            "#endif",
        ]
    return None


def note(sched: CudaSchedule) -> str:
    """The build note on the schedule's sync token ("" without one)."""
    if not sched.sync:
        return ""
    what = {
        "trip": "every trip opened at a CTA barrier",
        "round": "a CTA barrier at each round-loop iteration",
        "pair": "a barrier of the two warps of each scheduler at each round-loop iteration",
        "auto": f"the warps of a scheduler meet at each round-loop iteration where its body exceeds {BODY_OPS:,} plane "
        f"ops (the code one warp runs between barriers; an unrolled core runs free: a trip barrier measured slower)",
    }[sched.sync]
    return f"CTR warps in step (sync-{sched.sync}, lockstep.py): {what}"


def synced(call: str) -> str:
    """The CTR kernel's call of a core with the round barrier on: ``cs_main_ptx(x, ...)`` -> ``cs_main_ptx<true>(x, ...)``."""
    name, paren, rest = call.partition("(")
    return f"{name}<true>{paren}{rest}"
