"""CTR pieces of the kernels: the counter words of block ``lo`` of a segment, the launch-uniform split,
and how each flavour's CTR kernel calls its core.

Within a segment (the host cuts a call where the counter's low 32 bits wrap) only the block words
holding the counter's last 4 bytes vary; the others are the segment's ``seg.u`` words, and every op that
depends only on them and the round keys is computed once per thread (hoist_uniform.py):

    ctr = ctr_parts(cham128_128, sched, "rkp", dirs)   # u32[4] big: word 3 holds the counter's low bits
    ctr.unpack["ptx"] == "x[0] = seg.u[0];  // uniform within the segment\\n...\\n"
                         "x[3] = cs_prmt(ml, 0x0123);  // counter low bits"
    ctr.prologue["ptx"] == <the enc prologue>
                           "    uint32_t h[5];  // launch-uniform values (hoist_uniform.py), once per thread\\n"
                           "    cs_pre_ptx(seg.u, h, rkp);"
    ctr.call["ptx"] == "cs_main_ptx(x, h, y, rkp);"           (nohoist: "cs_enc_ptx(x, y, rkp);")
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Module
from cipherspec.passes import hoist_uniform, split_u64

from . import layout
from .isel import FLAVOURS
from .placement import CudaSchedule, rk_index, rk_inputs
from .prologue import Direction


@dataclass(frozen=True)
class CtrParts:
    split: hoist_uniform.Hoisted  # encrypt = main(varying words, pre(uniform words, round keys))
    hoist: bool
    memword: dict[str, str]  # flavour -> the block's last memory word from the counter's low bits `lo`
    unpack: dict[str, str]  # flavour -> x[*] of block `lo` (uniform words from seg.u)
    prologue: dict[str, str]  # flavour -> the CTR kernels' prologue (the enc one, then the hoisted part)
    call: dict[str, str]  # flavour -> the per-block core call

    @property
    def live_hoisted(self) -> int:
        return len(self.split.frontier)


def state_names(module: Module, fn_name: str) -> list[str]:
    """The function's block-word inputs in order (x[0], x[1], ...): its inputs that are not round keys."""
    idx = rk_index(module)
    return [n for n, _, _ in module.functions[fn_name].inputs() if n not in idx]


def varying_words(module: Module) -> list[int]:
    """Block words that hold any of the counter's low 32 bits (the block's last 4 bytes)."""
    B = module.block.nbytes
    nb = module.block.width // 8
    return [j for j in range(module.block.count) if j * nb + nb > B - 4]


def uniform_split(module: Module) -> hoist_uniform.Hoisted:
    """encrypt split at the values that depend only on the segment's uniform words and the round keys;
    a 64-bit value crossing the split travels as two 32-bit h words (split_u64.halve_hoisted)."""
    xs = state_names(module, "encrypt")
    vary = varying_words(module)
    uniform = {xs[j] for j in range(module.block.count) if j not in vary} | set(rk_inputs(module, "encrypt"))
    return split_u64.halve_hoisted(hoist_uniform.split(module.functions["encrypt"], uniform), module.tables)


def _unpack(module: Module, flavour: str) -> str:
    vary = varying_words(module)
    lines = []
    for p in layout.pieces(module.block):
        if p.word in vary:
            lines.append(f"x[{p.word}] = {layout.unpack_expr(p, 'ml', flavour)};  // counter low bits")
        else:
            lines.append(f"x[{p.word}] = seg.u[{p.word}];  // uniform within the segment")
    return "\n".join(lines)


def ctr_parts(module: Module, sched: CudaSchedule, enc: Direction) -> CtrParts:
    split = uniform_split(module)
    prologue, call = {}, {}
    for f in FLAVOURS:
        if sched.hoist:
            nh = max(len(split.frontier), 1)
            prologue[f] = "\n".join(
                [
                    enc.prologue,
                    f"    uint32_t h[{nh}];  // launch-uniform values (hoist_uniform.py), once per thread",
                    f"    cs_pre_{f}(seg.u, h, {enc.args});",
                ]
            )
            call[f] = f"cs_main_{f}(x, h, y, {enc.args});"
        else:
            prologue[f] = enc.prologue
            call[f] = f"cs_enc_{f}(x, y, {enc.args});"
    return CtrParts(
        split,
        sched.hoist,
        {f: layout.counter_memword(f, "lo") for f in FLAVOURS},
        {f: _unpack(module, f) for f in FLAVOURS},
        prologue,
        call,
    )
