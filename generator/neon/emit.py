"""Renders one cipher under one schedule: the .S file (every kernel + constant pool) and the C header.

    files = emit(module, schedule)   -> {"lea128_neon_b4_il4.S": text, "lea128_neon_b4_il4.h": text}
    kernels_of(files)                -> the Kernel objects (statistics, key-table layout)
Deterministic: the same module and schedule give byte-identical files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from cipherspec.ir import Module
from cipherspec.schedule import Schedule

from ..common.templates import render
from .arrangement import ARR
from .kernel import Kernel, build_kernels
from .keysched import flat_index, key_word_bits
from .schedules import arch, crypto, library_prefix, sha3


@dataclass
class Emitted:
    schedule: Schedule
    asm: str
    header: str
    kernels: list[Kernel]
    modes: list[str]
    block_bytes: int
    group_blocks: int


def emit(module: Module, sched: Schedule) -> Emitted:
    built = build_kernels(module, sched)  # the one pass: prepare, then every mode through the layout object
    module, lanes, il, pool, kernels = built.module, built.lanes, built.il, built.pool, built.kernels
    packed = sched.layout == "packed"
    prefix = sched.name
    ctx: list[dict[str, Any]] = []  # template variables per kernel
    for k in kernels:
        prologue, epilogue, total = _frame(k)
        slice_regs = ", ".join(line.split()[1].rstrip(",") for line in k.setup)
        ctx.append(
            dict(
                symbol=k.symbol,
                mode=k.mode,
                body=k.body,
                step=k.step,
                prologue=prologue,
                epilogue=epilogue,
                frame_total=total,
                nkeys=len(k.keys),
                blocks=k.blocks,
                group_bytes=k.blocks * module.block.nbytes,
                stats=k.stats,
                slice_regs=slice_regs,
                saved=", ".join(k.saved_d + k.saved_x),
            )
        )
    pool_label = f".L{prefix}_pool"
    for c in ctx:
        c["prologue"] = [line.replace("@POOL@", pool_label) for line in c["prologue"]]
    group_blocks = kernels[0].blocks
    if crypto(sched):
        layout_text_isa = "; AESE/AESD for S-boxes affine-equivalent to the AES S-box"
    else:
        layout_text_isa = ""
    if sha3(sched):
        layout_text_isa += "; EOR3/BCAX three-input logic (FEAT_SHA3)"
    if packed:
        layout_text = (
            f"packed, each block in {module.block.nbytes} contiguous byte lanes, {group_blocks} blocks per "
            f"iteration in {4 * il} registers; S-box bytes regrouped by table for TBL, XOR networks "
            f"as permutations (REV/EXT/TBL) + EOR"
        )
    else:
        layout_text = (
            f"sliced, word i of {lanes} blocks in the lanes of one register ({ARR[module.block.width]}); "
            f"{il} group{'s' if il > 1 else ''} of {lanes} blocks interleaved = {il * lanes} blocks per iteration{layout_text_isa}"
        )
    asm = render(
        "neon/kernels.S.j2",
        source=os.path.basename(module.source) if module.source else module.cipher,
        cipher=module.cipher,
        schedule=sched.name,
        layout_text=layout_text,
        kernels=ctx,
        block_bytes=module.block.nbytes,
        pool_label=pool_label,
        pool=pool.directives(),
        packed=packed,
        arch=arch(sched),
    )
    header = render(
        "neon/kernels.h.j2",
        cipher=module.cipher,
        schedule=sched.name,
        prefix=prefix,
        guard=prefix.upper() + "_H",
        kernels=kernels,
        block_bytes=module.block.nbytes,
        group_blocks=group_blocks,
        packed=packed,
        layout_text=layout_text,
        key_words=_key_words(module),
        key_bytes=module.key.nbytes,
        key_prefix=library_prefix(module.cipher, sched.rounds),
        keymaps=_keymaps(module, kernels),
        lanes=lanes,
        word_bytes=module.block.width // 8,
        key_type=f"uint{key_word_bits(module)}_t",
    )
    return Emitted(sched, asm, header, kernels, [k.mode for k in kernels], module.block.nbytes, group_blocks)


def _key_words(module: Module) -> int:
    return sum(len(ka.flat_names()) for ka in module.key_arrays)


def _keymaps(module: Module, kernels: list[Kernel]) -> list[dict]:
    """For each kernel: the index of each key-table vector's word in the flat round-key array (packed: of
    each byte lane's word, 0xffff for a zero lane)."""
    index = flat_index(module)
    out = []
    for k in kernels:
        idx = (
            [index[n] if n else 0xFFFF for v in k.keys for n in v]
            if k.keys and isinstance(k.keys[0], tuple)
            else [index[n] for n in k.keys]
        )
        out.append(dict(mode=k.mode, symbol=k.symbol, indices=idx, vectors=len(k.keys)))
    return out


def _frame(k: Kernel) -> tuple[list[str], list[str], int]:
    """Prologue/epilogue lines: stack frame, AAPCS64 callee-saved d8-d15 / x19-x28, pool and pointers."""
    saves = k.saved_d + k.saved_x
    base = k.frame
    total = base + 8 * len(saves)
    total = (total + 15) // 16 * 16
    pro, epi = [], []
    if total:
        pro += _sp("sub", total)
    for i in range(0, len(saves), 2):
        pair = saves[i : i + 2]
        off = base + 8 * i
        if len(pair) == 2 and pair[0][0] == pair[1][0] and off <= 504:
            pro.append(f"stp {pair[0]}, {pair[1]}, [sp, #{off}]")
            epi.append(f"ldp {pair[0]}, {pair[1]}, [sp, #{off}]")
        else:
            for j, r in enumerate(pair):
                pro.append(f"str {r}, [sp, #{off + 8 * j}]")
                epi.append(f"ldr {r}, [sp, #{off + 8 * j}]")
    pro += ["adrp x8, @POOL@", "add x8, x8, :lo12:@POOL@"] + k.setup
    if k.mode == "ctr":
        pro += ["mov x7, sp"]
        pro += (
            ["ldp x5, x6, [x4]", "rev x5, x5", "rev x6, x6"] if k.block_bytes == 16 else ["ldr x6, [x4]", "rev x6, x6"]
        )
    if total:
        epi += _sp("add", total)
    return pro, epi, total


def _sp(op: str, n: int) -> list[str]:
    out = []
    if n >> 12:
        out.append(f"{op} sp, sp, #{n >> 12}, lsl #12")
    if n & 0xFFF:
        out.append(f"{op} sp, sp, #{n & 0xFFF}")
    return out
