"""Bitsliced lowering for the GPU: a function on words of any width -> a function on 32-bit bit planes, 32
blocks per thread (plane i of block word j holds bit i of word j of the 32 blocks, block b in bit b).  Its
interface words are at most 32 bits (source.BITSLICED_PASSES runs split_u64 first: a u64 word inside is 64
planes, its halves at the interfaces are renaming).

The planes come from the bit-plane lowering the C ``bitsliced`` schedule uses (generator/common/
bitslice.py: ripple-carry adders, renaming for shifts, rotations, byte extraction and bit permutations,
Boyar-Peralta or synthesized circuits for any 4- or 8-bit table); here each plane operation is one u32
IR op, so instruction selection fuses the S-box circuits and the linear layers into LOP3 networks
(3-input truth tables), and byte permutations and rotations cost nothing (renaming).  Round-key words
become planes by ops that depend on the key only (0 - ((k >> i) & 1)): keysplit.py moves them to set_key
on the host.  No table is read: the layout is constant-time.  A table affine-equivalent to inversion takes
the decomposition, Boyar-Peralta circuit and linear form with the fewest LOP3 (sbox_choice.py: AES's S 73,
ARIA's S2 77, S1⁻¹ 78, S2⁻¹ 76, SM4's S 76, against 81, 87, 91, 93 before that search), and a
round key added after the linear layer that follows the S-boxes moves in front of it (keypush.py).

    before (u8):  %2 = xor %0, %1            %3 = rotl %2, 1
    after  (u32): X[0].b0 ^ Y.b0, ..., X[0].b7 ^ Y.b7  (8 ops)     (rotl: none; planes renamed)
"""

from __future__ import annotations

from cipherspec.ir import Function, Module, WordLayout
from cipherspec.passes import dce
from generator.common.bitslice import PlaneAlgebra, unsupported
from generator.common.bitslice import lower as lower_planes
from generator.common.sbox_circuit import CIRCUITS

from . import keypush, lop3map, sbox_choice
from .abswitch import former_bitsliced, former_sbox
from .irbuild import Builder

LANES = 32
_CODE = {"^": "xor", "&": "and", "|": "or", "~": "not"}


def plane_name(byte_name: str, bit: int) -> str:
    return f"{byte_name}.b{bit}"


def supports(module: Module) -> str | None:
    """Why the bitsliced layout cannot take this cipher (None: it can)."""
    wide = [f"{ka.name}: u{ka.width}" for ka in module.key_arrays if ka.width > 32]
    if module.block.width > 32 or wide:
        what = f"{module.block} blocks" if module.block.width > 32 else f"round keys {', '.join(wide)}"
        return (
            f"the bitsliced layout takes words of up to 32 bits; {module.cipher} has {what} "
            "(use the default layout, which splits 64-bit words into register pairs)"
        )
    fns = [module.functions[n] for n in ("encrypt", "decrypt")]
    used = {op.imm[0] for fn in fns for op in fn.ops if op.code == "lut"}
    why = unsupported(fns, {t: module.tables[t] for t in used})
    return f"the bitsliced layout cannot take {module.cipher}: {why}" if why else None


def state_planes(block: WordLayout, words: list[str]) -> list[str]:
    """The planes of block words ``words`` in memory-bit order: entry 8m + c is bit c of block byte m
    (what the bit transpose of the little-endian memory words gives), little- or big-endian words.

        u8[16]:       X[0].b0 .. X[0].b7, X[1].b0, ...
        u32[4] big:   X[0].b24 .. X[0].b31, X[0].b16 .. X[0].b23, ...
    """
    nb = block.width // 8
    out = []
    for m in range(len(words) * nb):
        q = m % nb if block.endian == "little" else nb - 1 - m % nb
        out += [plane_name(words[m // nb], 8 * q + c) for c in range(8)]
    return out


def lop3_count(form, shape: str, how: str) -> int:
    """LOP3 instructions of one inversion-circuit lowering on its own (the shared-cone cover, lop3map.py):
    what IRPlanes prices the circuits and linear forms by (AES's S: 73 for the 113-gate circuit's own
    programs, 88 for the depth-16 circuit merged)."""
    b = Builder("sbox")
    alg = IRPlanes(b)
    out = alg._inversion_circuit([alg.name(b.input(f"x{i}")) for i in range(8)], form, shape, how)
    fn = dce.run(b.function([(f"y{i}", alg.id(p)) for i, p in enumerate(out)]), {})
    return len(lop3map.cover(fn))


class IRPlanes(PlaneAlgebra):
    """Planes as IR values: a plane is the name "v<id>" of a u32 op in the builder (or the constant 0 / 1)."""

    SBOX_SHAPES = CIRCUITS  # per table the circuit and linear form with the fewest LOP3 (lop3_count)
    circuit_cost = staticmethod(lop3_count)

    def inversion_choice(self, values: tuple[int, ...]) -> tuple[tuple[int, int], str, str]:
        """The decomposition, circuit and linear form with the fewest LOP3 (sbox_choice.py; the A/B switch's
        former lowering: two_sided's own decomposition through the depth-16 circuit)."""
        if len(self.SBOX_SHAPES) == 1 or former_sbox():
            return super().inversion_choice(values)
        return sbox_choice.choose(values, self.SBOX_SHAPES, lop3_count)

    def __init__(self, b: Builder):
        super().__init__()
        self.b = b
        self.sbox_inputs: set[int] = set()  # value ids of table-circuit inputs and outputs (keypush.py)
        self.sbox_outputs: set[int] = set()

    def sbox(self, x: list, table):
        out = super().sbox(x, table)
        self.sbox_inputs.update(self.id(p) for p in x[: table.in_width] if not isinstance(p, int))
        self.sbox_outputs.update(self.id(p) for p in out if not isinstance(p, int))
        return out

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
    """``fn`` on 32 blocks: inputs and outputs "NAME.b<i>" (bit i of word NAME, one u32 plane each), the
    outputs in memory-bit order (state_planes); round-key words expanded to planes by key-only ops."""
    b = Builder(fn.name)
    planes = IRPlanes(b)

    def bind(name: str, width: int) -> list:
        if name not in key_inputs:
            return [planes.name(b.input(plane_name(name, i))) for i in range(width)]
        x = b.input(name)
        out = []
        for i in range(width):  # all-ones where key bit i is set: 0 - ((k >> i) & 1)
            bit = b.op("and", b.op("shr", x, imm=i) if i else x, b.const(1))
            out.append(planes.name(b.op("sub", b.const(0), bit)))
        return out

    former = former_bitsliced()  # the A/B switch (abswitch.py)
    if former:
        planes.SBOX_SHAPES = ("depth16",)
    outs = lower_planes(fn, module.tables, planes, bind)
    made = {plane_name(n, i): planes.id(p) for n, _ in fn.outputs for i, p in enumerate(outs[n])}
    order = state_planes(module.block, [n for n, _ in fn.outputs])  # memory-bit order, like the inputs
    result = b.function([(p, made[p]) for p in order])
    if not former:
        result = keypush.run(result, planes.sbox_inputs, planes.sbox_outputs, key_inputs)
    return dce.run(result, module.tables)
