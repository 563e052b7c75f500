"""Bitsliced lowering for the GPU: a function on u8 words -> a function on 32-bit bit planes, 32 blocks per
thread (plane 8j+i holds bit i of state byte j of the 32 blocks, block b in bit b).

The planes come from the bit-plane lowering the C ``bitsliced`` schedule uses (generator/common/
bitslice.py); here each plane operation is one u32 IR op, so instruction selection fuses the S-box
circuits and the linear layers into LOP3 networks (3-input truth tables), and byte permutations and
rotations cost nothing (renaming).  Round-key bytes become planes by ops that depend on the key only
(0 - ((k >> i) & 1)): keysplit.py moves them to set_key on the host.  No table is read: the layout is
constant-time.

    before (u8):  %2 = xor %0, %1            %3 = rotl %2, 1
    after  (u32): X[0].b0 ^ Y.b0, ..., X[0].b7 ^ Y.b7  (8 ops)     (rotl: none; planes renamed)
"""
from __future__ import annotations

from cipherspec.ir import Function, Module
from cipherspec.passes import dce
from generator.common.bitslice import PlaneAlgebra, lower as lower_planes, unsupported

from .irbuild import Builder

LANES = 32
_CODE = {"^": "xor", "&": "and", "|": "or", "~": "not"}


def plane_name(byte_name: str, bit: int) -> str:
    return f"{byte_name}.b{bit}"


def supports(module: Module) -> str | None:
    """Why the bitsliced layout cannot take this cipher (None: it can)."""
    if module.block.width != 8:
        return f"the bitsliced layout needs u8 block words; {module.cipher} has {module.block}"
    fns = [module.functions[n] for n in ("encrypt", "decrypt")]
    used = {op.imm[0] for fn in fns for op in fn.ops if op.code == "lut"}
    why = unsupported(fns, {t: module.tables[t] for t in used})
    return f"the bitsliced layout cannot take {module.cipher}: {why}" if why else None


class IRPlanes(PlaneAlgebra):
    """Planes as IR values: a plane is the name "v<id>" of a u32 op in the builder (or the constant 0 / 1)."""

    def __init__(self, b: Builder):
        super().__init__()
        self.b = b

    def id(self, p) -> int:
        if isinstance(p, int):
            return self.b.const(0xFFFFFFFF if p else 0)
        return int(p[1:])

    def name(self, v: int) -> str:
        return f"v{v}"

    def node(self, key: tuple):
        return self.name(self.b.op(_CODE[key[0]], *(self.id(p) for p in key[1:])))

    def comment_for(self, origin) -> None:
        self.b.origin = origin


def lower(fn: Function, module: Module, key_inputs: set[str]) -> Function:
    """``fn`` on 32 blocks: inputs and outputs "NAME.b<i>" (bit i of byte NAME, one u32 plane each); round-key
    bytes expanded to planes by key-only ops."""
    b = Builder(fn.name)
    planes = IRPlanes(b)

    def bind(name: str) -> list:
        if name not in key_inputs:
            return [planes.name(b.input(plane_name(name, i))) for i in range(8)]
        x = b.input(name)
        out = []
        for i in range(8):  # all-ones where key bit i is set: 0 - ((k >> i) & 1)
            bit = b.op("and", b.op("shr", x, imm=i) if i else x, b.const(1))
            out.append(planes.name(b.op("sub", b.const(0), bit)))
        return out

    outs = lower_planes(fn, module.tables, planes, bind)
    result = b.function([(plane_name(n, i), planes.id(p)) for n, _ in fn.outputs for i, p in enumerate(outs[n])])
    return dce.run(result, module.tables)
