"""Kernel prologues: what a placement does before a kernel's first block (placement.py names it).

Tables in shared memory are copied in (``tab-sharedN``: N bank-aware copies, entry e of copy c at word
e*N + c, each thread reading copy threadIdx.x mod N), round keys staged in shared memory (``rk-shared``)
or pinned in registers (``rk-reg``), then one barrier; the result also names the arguments the cores
take for the round keys and tables.

    tab-shared4, rk-const:     extern __shared__ uint32_t cs_smem[];
                               const uint32_t cs_copy = threadIdx.x & 3u;  // bank-aware ...
                               for (uint32_t i = threadIdx.x; i < 1024u; i += 256u) cs_smem[0 + i] = g_S[i >> 2];
                               __syncthreads();  // ...
                       args:   "rkp, cs_smem + 0 + cs_copy"
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Module

from .placement import CudaSchedule, rk_index, rk_inputs

DIRECTIONS = (("enc", "encrypt"), ("dec", "decrypt"))


@dataclass(frozen=True)
class TableFills:
    lines: list[str]  # the copy loops (and the lane's copy index)
    args: list[str]  # the cores' table arguments
    words: int  # shared words they use (round keys staged in shared memory go after them)


@dataclass(frozen=True)
class Direction:
    name: str  # "enc" | "dec": the core is cs_<name>_<flavour>
    prologue: str  # statements, indented for a kernel body
    args: str  # the core's round-key and table arguments


def table_fills(module: Module, n: int, threads: int, stride: str | None = None) -> TableFills:
    """Shared-memory fills of the tables in ``n`` bank-aware copies by ``threads`` threads (``stride``: a
    run-time expression for the thread count instead, e.g. "blockDim.x", for kernels launched narrower)."""
    step = stride if stride is not None else f"{threads}u"
    lines: list[str] = []
    args: list[str] = []
    off = 0
    if not (n and module.tables):
        return TableFills(lines, args, off)
    if n > 1:
        lines.append(
            f"    const uint32_t cs_copy = threadIdx.x & {n - 1}u;  // bank-aware: entry e of copy c at word e*{n} + c"
        )
    for t in module.tables.values():
        L = len(t.values)
        lines.append(
            f"    for (uint32_t i = threadIdx.x; i < {L * n}u; i += {step}) "
            f"cs_smem[{off} + i] = g_{t.name}[i >> {n.bit_length() - 1}];"
        )
        args.append(f"cs_smem + {off}" + (" + cs_copy" if n > 1 else ""))
        off += L * n
    return TableFills(lines, args, off)


def _shared_fills(module: Module, sched: CudaSchedule, fills: TableFills, nrk: int) -> tuple[list[str], str]:
    """Lines every kernel of the schedule starts with, and its round-key argument."""
    lines = ["    extern __shared__ uint32_t cs_smem[];"] if sched.shared_bytes(module, nrk) else []
    lines += fills.lines
    rk_arg = "rkp"
    if sched.rk == "shared":
        lines.append(
            f"    for (uint32_t i = threadIdx.x; i < {nrk}u; i += {sched.threads}u) "
            f"cs_smem[{fills.words} + i] = rkp.w[i];"
        )
        rk_arg = f"cs_smem + {fills.words}"
    if sched.shared_bytes(module, nrk):
        lines.append("    __syncthreads();  // every fill above is complete before any thread reads")
    return lines, rk_arg


def _registers(module: Module, fn_name: str) -> list[str]:
    """rk-reg: the round keys one function reads, moved into registers once per thread."""
    idx = rk_index(module)
    lines = [f"    uint32_t rr[{len(idx)}];  // the round keys this kernel reads, pinned in registers"]
    for nm in sorted(set(rk_inputs(module, fn_name)), key=lambda x: idx[x]):
        lines.append(f'    asm volatile("mov.b32 %0, %1;" : "=r"(rr[{idx[nm]}]) : "r"(rkp.w[{idx[nm]}]));')
    return lines


def directions(module: Module, sched: CudaSchedule, nrk: int | None = None) -> dict[str, Direction]:
    """The encrypt and decrypt kernels' prologues and core arguments under ``sched``; ``nrk``: round-key
    words in the struct (default: the key schedule's; lane layouts add derived words)."""
    fills = table_fills(module, sched.copies, sched.threads)
    common, rk_arg = _shared_fills(module, sched, fills, len(rk_index(module)) if nrk is None else nrk)
    out = {}
    for d, fn_name in DIRECTIONS:
        lines, arg = list(common), rk_arg
        if sched.rk == "reg":
            lines += _registers(module, fn_name)
            arg = "rr"
        out[d] = Direction(d, "\n".join(lines), ", ".join([arg] + fills.args))
    return out
