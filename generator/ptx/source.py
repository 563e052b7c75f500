"""One schedule -> CUDA source (.cu) and header (.h): cores, kernels, host API.

    src = generate(registry.module("lea128"), CudaSchedule())
    src.name == "lea128_cuda_ctr_rk-const_t256";  src.cu, src.h: text

The Jinja2 templates (templates/) hold only the skeleton: loops, prologue, host API.  This module
computes what goes in: the cores (cores.py over isel.py), the placement's prologue and accessors,
the load/unpack/pack/store snippets (layout.py) and the host key schedule (keysched.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from cipherspec.ir import Module
from cipherspec.passes import dce, hoist_uniform, lower_gmul
from cipherspec.pipeline import Pass, run_passes

from ..common.templates import render
from . import cores, hostapi, keysched, layout, multikey
from .placement import FLAVOURS, CudaSchedule, rk_index, rk_inputs



@dataclass(frozen=True)
class Source:
    name: str
    symbol: str  # C prefix
    cu: str
    h: str
    hoisted_ops: int
    encrypt_ops: int


def symbol(name: str) -> str:
    return "cs_" + re.sub(r"[^A-Za-z0-9_]", "_", name.replace("-", "_").replace(".", "p"))


CUDA_PASSES = (Pass("lower_gmul", lower_gmul.run), Pass("dce", dce.run))


def prepared(module: Module) -> Module:
    """The module after the CUDA target's passes: gmul lowered to shifts/XORs (no gmul selection on the
    GPU), dead code gone."""
    return run_passes(module, CUDA_PASSES)


def state_names(module: Module, fn_name: str) -> list[str]:
    idx = rk_index(module)
    return [n for n, _, _ in module.functions[fn_name].inputs() if n not in idx]


def varying_words(module: Module) -> list[int]:
    """Block words that hold any of the counter's low 32 bits (the block's last 4 bytes)."""
    B = module.block.nbytes
    nb = module.block.width // 8
    return [j for j in range(module.block.count) if j * nb + nb > B - 4]


def _indent(lines: list[str], n: int) -> str:
    return "\n".join(" " * n + ln for ln in lines)


def table_fills(module: Module, n: int, threads: int) -> tuple[list[str], list[str], int]:
    """Shared-memory fills of the tables in ``n`` bank-aware copies by ``threads`` threads: (lines, the
    cores' table arguments, words used)."""
    lines, args, off = [], [], 0
    if not (n and module.tables):
        return lines, args, off
    if n > 1:
        lines.append(f"    const uint32_t cs_copy = threadIdx.x & {n - 1}u;  // bank-aware: entry e of copy c at word e*{n} + c")
    for t in module.tables.values():
        L = len(t.values)
        lines.append(f"    for (uint32_t i = threadIdx.x; i < {L * n}u; i += {threads}u) "
                     f"cs_smem[{off} + i] = g_{t.name}[i >> {n.bit_length() - 1}];")
        args.append(f"cs_smem + {off}" + (" + cs_copy" if n > 1 else ""))
        off += L * n
    return lines, args, off


def generate(module: Module, sched: CudaSchedule, rounds: int | None = None) -> Source:
    """``module``: the cipher after the shared pipeline; ``rounds``: the override it was made with (names)."""
    module = prepared(module)
    sched.validate(module)
    layout.check(module.block)
    name = sched.name(module, rounds)
    P = symbol(name)
    B, MW, NW = module.block.nbytes, module.block.nbytes // 4, module.block.count
    idx = rk_index(module)
    acc = cores.access(module, sched, f"{P}_rk")
    acc_multi = cores.access(module, replace(sched, rk="shared"), f"{P}_rk")  # multi-key: rk staged in shared

    enc, dec = module.functions["encrypt"], module.functions["decrypt"]
    xs_enc, xs_dec = state_names(module, "encrypt"), state_names(module, "decrypt")
    vary = varying_words(module)
    uniform = {xs_enc[j] for j in range(NW) if j not in vary} | set(rk_inputs(module, "encrypt"))
    split = hoist_uniform.split(enc, uniform)
    nh = len(split.frontier)
    core_text = []
    for f in FLAVOURS:
        bal = sched.bal
        core_text.append(cores.core(f"cs_enc_{f}", enc, module, acc, f, xs_enc, balanced=bal))
        core_text.append(cores.core(f"cs_dec_{f}", dec, module, acc, f, xs_dec, balanced=bal))
        core_text.append(cores.core(f"cs_menc_{f}", enc, module, acc_multi, f, xs_enc, balanced=bal))
        if sched.hoist:
            core_text.append(cores.core(f"cs_pre_{f}", split.pre, module, acc, f, xs_enc))
            core_text.append(cores.core(f"cs_main_{f}", split.main, module, acc, f, xs_enc,
                                        [n for n, _ in split.pre.outputs], balanced=bal))

    # prologue: shared fills, barrier, accessors
    smem = sched.shared_bytes(module)
    n = sched.copies
    pro, args = [], {}
    if smem:
        pro.append("    extern __shared__ uint32_t cs_smem[];")
    tab_pro, tab_args, off = table_fills(module, n, sched.threads)
    pro += tab_pro
    rk_arg = "rkp"
    if sched.rk == "shared":
        pro.append(f"    for (uint32_t i = threadIdx.x; i < {len(idx)}u; i += {sched.threads}u) cs_smem[{off} + i] = rkp.w[i];")
        rk_arg = f"cs_smem + {off}"
    if smem:
        pro.append("    __syncthreads();  // every fill above is complete before any thread reads")
    prologue = {}
    for d, fname in (("enc", "encrypt"), ("dec", "decrypt")):
        lines = list(pro)
        a = rk_arg
        if sched.rk == "reg":
            lines.append(f"    uint32_t rr[{len(idx)}];  // the round keys this kernel reads, pinned in registers")
            for nm in sorted(set(rk_inputs(module, fname)), key=lambda x: idx[x]):
                lines.append(f'    asm volatile("mov.b32 %0, %1;" : "=r"(rr[{idx[nm]}]) : "r"(rkp.w[{idx[nm]}]));')
            a = "rr"
        prologue[d] = "\n".join(lines)
        args[d] = ", ".join([a] + tab_args)

    # block I/O
    if MW == 4:
        load = ["const uint4 q = __ldg(reinterpret_cast<const uint4 *>(in) + i);",
                "m[s][0] = q.x; m[s][1] = q.y; m[s][2] = q.z; m[s][3] = q.w;"]
        store = ["reinterpret_cast<uint4 *>(out)[i] = make_uint4(m[s][0], m[s][1], m[s][2], m[s][3]);"]
        xor_in = ["const uint4 q = __ldg(reinterpret_cast<const uint4 *>(in) + i);",
                  "m[s][0] ^= q.x; m[s][1] ^= q.y; m[s][2] ^= q.z; m[s][3] ^= q.w;"]
        align = 16
    elif MW == 2:
        load = ["const uint2 q = __ldg(reinterpret_cast<const uint2 *>(in) + i);", "m[s][0] = q.x; m[s][1] = q.y;"]
        store = ["reinterpret_cast<uint2 *>(out)[i] = make_uint2(m[s][0], m[s][1]);"]
        xor_in = ["const uint2 q = __ldg(reinterpret_cast<const uint2 *>(in) + i);", "m[s][0] ^= q.x; m[s][1] ^= q.y;"]
        align = 8
    else:
        load = [f"m[s][{k}] = __ldg(in + i * {MW} + {k});" for k in range(MW)]
        store = [f"out[i * {MW} + {k}] = m[s][{k}];" for k in range(MW)]
        xor_in = [f"m[s][{k}] ^= __ldg(in + i * {MW} + {k});" for k in range(MW)]
        align = 4
    partial = []
    for b in range(B):
        kb = f"(uint8_t)(m[s][{b // 4}] >> {8 * (b % 4)})"
        partial.append(f"if ({b} < seg.nbytes) out8[{b}] = in8 ? (uint8_t)(in8[{b}] ^ {kb}) : {kb};")

    pcs = layout.pieces(module.block)
    unpack, pack, ctr_unpack, ctr_mem = {}, {}, {}, {}
    for f in FLAVOURS:
        unpack[f] = _indent([f"x[{p.word}] = {layout.unpack_expr(p, f'm[s][{p.mem}]', f)};" for p in pcs], 12)
        pack[f] = _indent(layout.pack_lines(module.block, [f"y[{j}]" for j in range(NW)], "m[s]", f), 12)
        lines = []
        for p in pcs:
            if p.word in vary:
                lines.append(f"x[{p.word}] = {layout.unpack_expr(p, 'ml', f)};  // counter low bits")
            else:
                lines.append(f"x[{p.word}] = seg.u[{p.word}];  // uniform within the segment")
        ctr_unpack[f] = _indent(lines, 12)
        ctr_mem[f] = layout.counter_memword(f, "lo")

    mk = multikey.kernel_parts(module, sched, P, table_fills(module, n, multikey.threads(sched))[0], tab_args, off)

    host_words = []
    for p in pcs:
        terms = [f"((uint32_t)b[{4 * p.mem + byte}] << {8 * s})" for s, byte in enumerate(p.bytes)]
        host_words.append(" | ".join(terms))

    tables = [{"name": t.name, "n": len(t.values), "data": ", ".join(f"{v:#x}u" for v in t.values)}
              for t in module.tables.values()]
    rk_layout = ", ".join(f"{ka.name}: u{ka.width}{''.join(f'[{s}]' for s in ka.shape)}" for ka in module.key_arrays)
    ctx = dict(
        name=name, P=P, cipher=module.cipher, block=str(module.block), key=str(module.key), B=B, KB=module.key.nbytes,
        MW=MW, NW=NW, NRK=len(idx), NH=nh, T=sched.threads, ILP=sched.ilp, hoist=sched.hoist,
        hoisted_ops=split.hoisted_ops, enc_ops=sum(1 for op in enc.ops if op.code not in ("input", "const")),
        rk_place=sched.rk, tab_place=sched.tab if module.tables else "(none)", tables=tables,
        cores=core_text, flavours=FLAVOURS, prologue=prologue, prologue_tail=prologue["enc"], call_args=args,
        load=_indent(load, 16), store=_indent(store, 16), xor_in=_indent(xor_in, 20), partial=_indent(partial, 8),
        unpack=unpack, pack=pack, ctr_unpack=ctr_unpack, ctr_mem=ctr_mem, smem=smem, align=align,
        host_tables=keysched.tables_c(module),
        key_schedule=keysched.key_schedule_c(module, f"{P}_key_schedule", idx),
        host_words=host_words, rk_layout=f"round keys, one u32 per word: {rk_layout}",
        mk=mk, default_flavour=FLAVOURS.index(sched.flavour),
    )
    ctx["mg"] = hostapi.context(module, P)  # every GPU of the host: multigpu.cu.j2
    cu = render("ptx/kernel.cu.j2", **ctx)
    h = render("ptx/kernel.h.j2", **ctx)
    return Source(name, P, cu, h, split.hoisted_ops, ctx["enc_ops"])
