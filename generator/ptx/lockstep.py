"""Warps in step: the lane layouts' CTR kernel with barriers, so that the warps sharing a scheduler fetch the same
instructions (schedule tokens sync-trip | sync-round | sync-pair, placement.py).

A bitsliced core's round loop can be tens of KB of SASS (ARIA-128: 3,369 instructions an iteration).  Two warps
of a scheduler that run it at different places fetch different lines; in step, one warp's fetch serves both.

    sync-trip:   every thread runs its CTA's trips (no early exit), each trip opened by __syncthreads()
    sync-round:  as trip, and __syncthreads() at the top of each round-loop iteration of the CTR core
    sync-pair:   as trip, and there a named barrier of the warps w with the same w % 4 (one scheduler each):
                     bar.sync 1 + (warp & 3), T / 4

    before: cs_main_ptx(x, y, rkp, seg);          for (i ...) { cs_main_ptx_body(...); }
    after:  cs_main_ptx<true>(x, y, rkp, seg);    for (i ...) { if (SYNC) { bar.sync ... } cs_main_ptx_body(...); }

The barriers depend on the loop counter and the CTA's geometry only (public): no secret branch.  The other
kernels that share the core (ECB, the CTR tail, GCM) call it as before (SYNC = false, the same code).
"""

from __future__ import annotations

from .placement import CudaSchedule


def round_barrier(sched: CudaSchedule) -> list[str] | None:
    """The lines at the top of each round-loop iteration of the CTR core, or None (no barrier there)."""
    if sched.sync == "round":
        return ["__syncthreads();"]
    if sched.sync == "pair":  # warps w, w + 4, ... share scheduler w % 4: T / 4 threads meet at barrier 1 + w % 4
        return [
            "#ifdef __CUDA_ARCH__",
            f'asm volatile("bar.sync %0, {sched.threads // 4};" :: "r"(1u + ((threadIdx.x >> 5) & 3u)));',
            "#else",
            "__syncthreads();  // (the CPU harness, tests/support/cuda_cpu.h: the whole CTA meets)",
            "#endif",
        ]
    return None


def synced(call: str) -> str:
    """The CTR kernel's call of a core with the round barrier on: ``cs_main_ptx(x, ...)`` -> ``cs_main_ptx<true>(x, ...)``."""
    name, paren, rest = call.partition("(")
    return f"{name}<true>{paren}{rest}"
