"""Block I/O of the kernels: memory words of a block in and out of global memory, and the words a core
reads from them (per flavour).  The kernels hold a block as ``m[s][k]``, its B/4 little-endian 32-bit
memory words; a core reads IR words ``x[j]`` and writes ``y[j]`` (layout.py maps one to the other).

    io = block_io(aria128)                       # 16-byte block: one uint4 per block
    io.load    == "const uint4 q = __ldg(reinterpret_cast<const uint4 *>(in) + i);\\nm[s][0] = q.x; ..."
    io.unpack["ptx"] == "x[0] = cs_prmt(m[s][0], 0x4440);\\nx[1] = cs_prmt(m[s][0], 0x4441);\\n..."
    io.align == 16                               # device pointers the entry points accept

Every text is a run of statements, one per line, unindented (the template places them).
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Module

from . import layout
from .isel import FLAVOURS

# memory words per block -> the CUDA vector type one load moves, its alignment and its lanes
VECTORS = {4: ("uint4", 16, "xyzw"), 2: ("uint2", 8, "xy")}


@dataclass(frozen=True)
class BlockIO:
    align: int  # bytes: the widest load/store the kernels make
    load: str  # m[s][*] = block i of `in`
    store: str  # block i of `out` = m[s][*]
    xor_in: str  # m[s][*] ^= block i of `in` (CTR with input)
    partial: str  # the tail kernel's byte stores of a partial block (seg.nbytes of them)
    unpack: dict[str, str]  # flavour -> x[*] from m[s][*]
    pack: dict[str, str]  # flavour -> m[s][*] from y[*]


def _vector_io(MW: int, base: str = "") -> tuple[list[str], list[str], list[str], int]:
    """Block i's loads and stores into m[s][base + k] (``base``: "b * MW + " in a lane layout's group)."""
    w = [f"m[s][{base}{k}]" for k in range(MW)]
    if MW in VECTORS:
        vec, align, lanes = VECTORS[MW]
        q = f"const {vec} q = __ldg(reinterpret_cast<const {vec} *>(in) + i);"
        load = [q, " ".join(f"{w[k]} = q.{lanes[k]};" for k in range(MW))]
        xor_in = [q, " ".join(f"{w[k]} ^= q.{lanes[k]};" for k in range(MW))]
        store = [f"reinterpret_cast<{vec} *>(out)[i] = make_{vec}({', '.join(w)});"]
        return load, store, xor_in, align
    load = [f"{w[k]} = __ldg(in + i * {MW} + {k});" for k in range(MW)]
    store = [f"out[i * {MW} + {k}] = {w[k]};" for k in range(MW)]
    xor_in = [f"{w[k]} ^= __ldg(in + i * {MW} + {k});" for k in range(MW)]
    return load, store, xor_in, 4


def partial_store(B: int) -> list[str]:
    """Bytes of a partial last block: keystream byte b, XORed with the input when there is one."""
    out = []
    for b in range(B):
        kb = f"(uint8_t)(m[s][{b // 4}] >> {8 * (b % 4)})"
        out.append(f"if ({b} < seg.nbytes) out8[{b}] = in8 ? (uint8_t)(in8[{b}] ^ {kb}) : {kb};")
    return out


def block_io(module: Module) -> BlockIO:
    B, NW = module.block.nbytes, module.block.count
    load, store, xor_in, align = _vector_io(B // 4)
    pcs = layout.pieces(module.block)
    unpack = {
        f: "\n".join(f"x[{p.word}] = {layout.unpack_expr(p, f'm[s][{p.mem}]', f)};" for p in pcs) for f in FLAVOURS
    }
    pack = {f: "\n".join(layout.pack_lines(module.block, [f"y[{j}]" for j in range(NW)], "m[s]", f)) for f in FLAVOURS}
    return BlockIO(
        align, "\n".join(load), "\n".join(store), "\n".join(xor_in), "\n".join(partial_store(B)), unpack, pack
    )


@dataclass(frozen=True)
class LaneIO:
    load: str  # block i into m[s][b * MW + *]
    store: str  # m[s][b * MW + *] to block i
    xor_in: str


def lane_io(module: Module) -> LaneIO:
    """Block i of a lane layout's group, as block b of m[s] (words b*MW .. b*MW + MW-1)."""
    MW = module.block.nbytes // 4
    load, store, xor_in, _ = _vector_io(MW, f"b * {MW} + ")
    return LaneIO("\n".join(load), "\n".join(store), "\n".join(xor_in))
