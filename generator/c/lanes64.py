"""64-bit words in 64-bit lanes: the vector width and interleave of a sliced kernel per x86 ISA level,
from the IR by an estimated cost model (no cipher names: only word widths and op codes decide).

A spec qualifies when its block words are 64-bit and its encryption and decryption are ARX on 64-bit
values only (add/sub/xor/and/or/not, rotations and shifts by constants, round-key inputs): every x86
vector level has 64-bit adds (PADDQ), so word i of N blocks sits in the 64-bit lanes of one register.
Per level, each candidate layout is costed from the encryption function:

    N  vector instructions of one lane group (one register per state word): an add, xor, shift 1; a
       rotation 1 with VPROLQ (AVX-512), 1 as a byte shuffle (PSHUFB) when its amount is a multiple of
       8 and the level has SSSE3, else 3 (two shifts and an OR); a round-key word is a broadcast load
       folded into its use (0)
    D  the critical path in instruction latencies (1 each; a shift/shift/OR rotation 2 deep)
    P  vector instructions per cycle the level sustains: 3 on xmm/ymm (three vector ALU ports), 2 on
       zmm (a 512-bit op takes two 256-bit pipes on Zen 4, and ports 0+1 fused on Intel)
    k  lane groups in flight (the interleave): the least k whose work k·N/P covers H·D, H = 3 (the
       out-of-order window overlaps independent chains only partly), at most (registers - 2) / (state
       words + 1) (no spills).  Calibration, SPECK-128/128 CTR on Zen 4 (EPYC, 64 MiB, wall MB/s at load
       ~2, before the counter core): zmm k = 1, 2, 3, 4, 8: 1951, 2716, 3576, 3786, 3772; ymm on avx2
       k = 2, 3, 4, 8: 1761, 2150, 2646, 2143 (16 registers: k = 8 spills); the model picks k = 4 for both
    cycles/byte = max(D, k·N/P) / (k · lanes · block bytes)

and the cheaper of 64-bit lanes and 32-bit halves (two registers per word, twice the lanes; an add is
two adds plus a carry recovered with a compare, ~6 instructions; a rotation 6) is reported.  On AVX-512
both ymm (VPROLQ on AVX-512VL) and zmm are costed and the cheaper taken.

32-bit words (ARX on 32-bit values only): at avx512 alone (WIDE32_LEVELS), where zmm doubles the lanes
of the sliced_v32 kernel (16 blocks per register, VPROLD); the same model picks the interleave.  Measured
(EPYC Zen 4, 1 MiB CTR in L2, thread CPU time, best of 5): LEA-128 sliced_v32 2.2 GB/s, sliced_v64 3.1,
sliced_v64_i2 3.0; CHAM-128/128 1.38 -> 1.75.  On AVX2 the kernels stay as named (i2 gains LEA nothing:
its four words already give independent chains).

    plan(speck128_128, "avx512") -> Plan(vector_bytes=64, interleave=4, ...)   8 lanes per zmm, 32 blocks
    plan(speck128_128, "avx2")   -> Plan(vector_bytes=32, interleave=4, ...)   4 lanes per ymm, 16 blocks
    plan(lea128, "avx512")       -> Plan(vector_bytes=64, ...)                  16 lanes per zmm
    plan(lea128, "avx2")         -> None                                        (32-bit words: unchanged)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from cipherspec.ir import Function, Module

ARX = ("input", "const", "xor", "and", "or", "not", "add", "sub", "rotl", "shl", "shr")
# 32-bit words: only where the registers double over the shipped sliced_v32 (zmm); measured below
WIDE32_LEVELS = ("avx512",)
HIDE = 3  # H: the work in flight should cover this many critical paths
MAX_INTERLEAVE = 8


@dataclass(frozen=True)
class Isa:
    """What the cost model knows of one vector register file (one ISA level, one register width)."""

    level: str
    vector_bytes: int
    registers: int
    per_cycle: int  # P
    native_rotate: bool  # VPROLQ
    byte_shuffle: bool  # PSHUFB (SSSE3)
    doc: str


CANDIDATES = {
    "avx512": (
        Isa("avx512", 64, 32, 2, True, True, "zmm, VPROLQ"),
        Isa("avx512", 32, 32, 3, True, True, "ymm, VPROLQ (AVX-512VL)"),
    ),
    "avx2": (Isa("avx2", 32, 16, 3, False, True, "ymm, shifts+OR, VPSHUFB"),),
    "sse2": (Isa("sse2", 16, 16, 3, False, False, "xmm, shifts+OR"),),
    "portable": (Isa("portable", 16, 16, 3, False, False, "16-byte vectors"),),
}


@dataclass(frozen=True)
class Cost:
    n: float  # N: instructions per lane group
    d: float  # D: critical path (cycles)


@dataclass(frozen=True)
class Plan:
    isa: Isa
    interleave: int
    cost: Cost
    halves: Cost  # the same function on 32-bit halves (estimate; not generated)
    lanes: int  # blocks per vector
    block_bytes: int
    others: tuple[tuple[str, float], ...] = ()  # the other register widths costed: (doc, cycles/byte)
    word_bits: int = 64  # the block words' width (64, or 32 at WIDE32_LEVELS)

    @property
    def vector_bytes(self) -> int:
        return self.isa.vector_bytes

    def cycles_per_byte(self, k: int | None = None, halves: bool = False) -> float:
        k = self.interleave if k is None else k
        c, lanes = (self.halves, 2 * self.lanes) if halves else (self.cost, self.lanes)
        return max(c.d, k * c.n / self.isa.per_cycle) / (k * lanes * self.block_bytes)

    def note(self) -> str:
        w = self.word_bits
        halves = f"; 32-bit halves would be {self.cycles_per_byte(halves=True):.2f}" if w == 64 else ""
        rot = (lambda doc: doc.replace("VPROLQ", "VPROLD")) if w == 32 else (lambda doc: doc)
        return (
            f"{self.isa.level}: {w}-bit words in {w}-bit lanes, {self.lanes} blocks per register ({rot(self.isa.doc)}), "
            f"{self.interleave} interleaved groups = {self.lanes * self.interleave} blocks per call; estimated "
            f"{self.cycles_per_byte():.2f} cycles/byte (N={self.cost.n:g} instructions and critical path "
            f"D={self.cost.d:g} per group, {self.isa.per_cycle}/cycle{halves}"
            + "".join(f"; {rot(doc)}: {cpb:.2f}" for doc, cpb in self.others)
            + ")"
        )


def why_not(module: Module) -> str:
    """'' when the model applies (64- or 32-bit block words, encryption and decryption ARX on values of
    that width only), else why not: "16-bit block words", "lut.u64 at speck.cs:24" ..."""
    w = module.block.width
    if w not in (32, 64):
        return f"{w}-bit block words"
    for kind in ("encrypt", "decrypt"):
        for op in module.functions[kind].ops:
            if op.code not in ARX or op.width != w:
                where = f" at {op.origin.file.split('/')[-1]}:{op.origin.line}" if op.origin else ""
                return f"{kind} has {op.code}.u{op.width}{where} (not {w}-bit ARX)"
    return ""


def qualifies(module: Module) -> bool:
    return not why_not(module)


def _op_cost(op, isa: Isa, halves: bool) -> tuple[int, int]:
    """(instructions, latency) of one IR op in one lane group."""
    code = op.code
    if code in ("input", "const"):
        return 0, 0
    if halves:
        if code in ("add", "sub"):
            return 6, 3  # two adds, the carry from an unsigned compare (bias + PCMPGTD), its add
        if code == "rotl" and op.imm[0] == 32:
            return 0, 0  # the two halves swap names
        if code in ("rotl", "shl", "shr"):
            return (6, 2) if code == "rotl" else (3, 2)
        return 2, 1
    if code == "rotl":
        if isa.native_rotate or (isa.byte_shuffle and op.imm[0] % 8 == 0):
            return 1, 1
        return 3, 2
    return 1, 1


def cost(fn: Function, isa: Isa, halves: bool = False) -> Cost:
    """N and D of ``fn`` (one lane group) on ``isa``."""
    depth: list[int] = []
    n = 0
    for op in fn.ops:
        ops, lat = _op_cost(op, isa, halves)
        n += ops
        depth.append(lat + max((depth[a] for a in op.args), default=0))
    return Cost(n, max(depth, default=0))


def _interleave(c: Cost, isa: Isa, words: int) -> int:
    if c.n == 0:
        return 1
    need = math.ceil(HIDE * c.d * isa.per_cycle / c.n)
    fit = max(1, (isa.registers - 2) // (words + 1))
    return max(1, min(need, fit, MAX_INTERLEAVE))


def plan(module: Module, level: str) -> Plan | None:
    """The layout of a 64-bit-word ARX spec's sliced kernel at ``level`` (avx512, avx2, sse2, portable),
    or of a 32-bit-word one at avx512 (WIDE32_LEVELS), or None where the model does not apply (the
    schedule's own width, no interleave)."""
    if level not in CANDIDATES or not qualifies(module):
        return None
    w = module.block.width
    if w == 32 and level not in WIDE32_LEVELS:
        return None
    fn = module.functions["encrypt"]
    plans = []
    for isa in CANDIDATES[level]:
        c = cost(fn, isa)
        k = _interleave(c, isa, module.block.count)
        halves = cost(fn, isa, halves=True) if w == 64 else c  # (32-bit words: no halves layout)
        plans.append(Plan(isa, k, c, halves, isa.vector_bytes // (w // 8), module.block.nbytes, word_bits=w))
    best = min(plans, key=lambda p: p.cycles_per_byte())  # the first of equals: the wider registers
    return replace(best, others=tuple((p.isa.doc, p.cycles_per_byte()) for p in plans if p is not best))
