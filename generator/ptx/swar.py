"""Byte-packed (SWAR) lowering: a function on u8 words -> the same function on u32 words that carry four
blocks at once, byte b of every register belonging to block b (lane b).

Every u8 value becomes one u32 value (its four lanes); the result is ordinary IR, so instruction
selection, LOP3 fusion, the CPU emulator and the interpreter all apply to it unchanged.  Per op:

    xor and or not      the same op on 32 bits (lanes never interact)
    const c             c in every lane (c * 0x01010101)
    shl/shr by k        32-bit shift, then a mask clearing what crossed a lane boundary
    rotl by k           (a << k) and (a >> (8-k)) merged by a bit select (one LOP3)
    add                 ((a & 0x7f..) + (b & 0x7f..)) ^ ((a ^ b) & 0x80..): carries stop at lane tops
    sub                 ((a | 0x80..) - (b & 0x7f..)) ^ ((a ^ ~b) & 0x80..)
    lut T               four byte lookups (lane b's index = byte b) merged back into one word
    round-key input     the key byte replicated into the four lanes (host work: see keysplit.py)

    before (u8):  %2 = add %0, %1
    after  (u32): %2a = and %0, 0x7f7f7f7f   %2b = and %1, 0x7f7f7f7f   %2c = add %2a, %2b
                  %2d = xor %0, %1           %2e = and %2d, 0x80808080  %2 = xor %2c, %2e
"""

from __future__ import annotations

from cipherspec.errors import UsageError
from cipherspec.ir import Function, Module, Op

from .irbuild import Builder

LANES = 4
LOW7 = 0x7F7F7F7F
HIGH = 0x80808080


def rep(byte: int) -> int:
    """A byte in all four lanes."""
    return (byte & 0xFF) * 0x01010101


def supports(module: Module) -> str | None:
    """Why the byte-packed layout cannot take this cipher (None: it can)."""
    if module.block.width != 8:
        return f"the byte-packed layout needs u8 block words; {module.cipher} has {module.block}"
    for name in ("encrypt", "decrypt"):
        for op in module.functions[name].ops:
            if op.width != 8:
                return f"the byte-packed layout needs u8 words; {module.cipher} {name} has a u{op.width} {op.code}"
            if op.code == "lut" and module.tables[op.imm[0]].out_width != 8:
                return f"the byte-packed layout needs byte tables; {op.imm[0]} has {module.tables[op.imm[0]].out_width}-bit entries"
    return None


def lower(fn: Function, module: Module, key_inputs: set[str]) -> Function:
    """``fn`` (u8) over four lanes: same input and output names, u32 words; ``key_inputs`` are replicated."""
    b = Builder(fn.name)
    val: list[int] = []
    for op in fn.ops:
        b.origin = op.origin
        val.append(_lower_op(b, op, [val[a] for a in op.args], key_inputs))
    return b.function([(n, val[v]) for n, v in fn.outputs])


def _lower_op(b: Builder, op: Op, a: list[int], key_inputs: set[str]) -> int:
    code = op.code
    if code == "input":
        x = b.input(op.imm[0])
        if op.imm[0] not in key_inputs:
            return x
        t = b.op("or", x, b.op("shl", x, imm=8))  # the key byte in every lane (hoisted to set_key)
        return b.op("or", t, b.op("shl", t, imm=16))
    if code == "const":
        return b.const(rep(op.imm[0]))
    if code in ("xor", "and", "or"):
        return b.op(code, a[0], a[1])
    if code == "not":
        return b.op("not", a[0])
    if code == "shl":
        return b.op("and", b.op("shl", a[0], imm=op.imm[0]), b.const(rep(0xFF << op.imm[0])))
    if code == "shr":
        return b.op("and", b.op("shr", a[0], imm=op.imm[0]), b.const(rep(0xFF >> op.imm[0])))
    if code == "rotl":
        k = op.imm[0]
        hi, lo = b.op("shl", a[0], imm=k), b.op("shr", a[0], imm=8 - k)
        return b.op("xor", lo, b.op("and", b.op("xor", hi, lo), b.const(rep(0xFF << k))))  # hi where bit >= k
    if code == "add":
        s = b.op("add", b.op("and", a[0], b.const(LOW7)), b.op("and", a[1], b.const(LOW7)))
        return b.op("xor", s, b.op("and", b.op("xor", a[0], a[1]), b.const(HIGH)))
    if code == "sub":
        d = b.op("sub", b.op("or", a[0], b.const(HIGH)), b.op("and", a[1], b.const(LOW7)))
        return b.op("xor", d, b.op("and", b.op("xor", a[0], b.op("not", a[1])), b.const(HIGH)))
    if code == "lut":
        parts = []
        for lane in range(LANES):
            idx = b.op("trunc", b.op("shr", a[0], imm=8 * lane) if lane else a[0], width=8)
            v = b.op("zext", b.op("lut", idx, imm=op.imm[0], width=8))
            parts.append(b.op("shl", v, imm=8 * lane) if lane else v)
        return b.op("or", b.op("or", parts[0], parts[1]), b.op("or", parts[2], parts[3]))
    raise UsageError(f"the byte-packed layout cannot lower {code} ({op.origin})")
