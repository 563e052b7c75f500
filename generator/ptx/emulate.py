"""A CPU emulator for generated cores: runs a core's statements over numpy lanes (tests without a GPU).

It understands exactly what isel.py and wide.py emit: ``uint32_t vN; asm("OP %0, ...;" : "=r"(vN) : "r"(e), ...);``
for add/sub/xor/and/or/not/lop3/shf/prmt/shl/shr/mul, the register-pair form ``uint32_t vNl, vNh;
asm("add.cc.u32 %0, %2, %4; addc.u32 %1, %3, %5;" : "=r"(vNl), "=r"(vNh) : ...);`` (the carry flag
lives within one statement), and ``const uint32_t vN = <C expression>;`` / ``const uint64_t vN = ...;``.
So instruction selection (LOP3 truth tables, prmt selectors, the clean/dirty masking) is checked
against the interpreter in CI, where no GPU exists; the GPU tests then check the rest.

    run_core(text, x=[...], rk=np.array(...), tables={"S": np.array(...)}) -> list of output lanes
"""

from __future__ import annotations

import re

import numpy as np

from . import asmblock

M32 = np.uint64(0xFFFFFFFF)
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
_ASM = re.compile(r'^uint32_t (\w+); asm\("([^"]+)" : "=r"\(\w+\) : (.*)\);')
_ASM2 = re.compile(r'^uint32_t (\w+), (\w+); asm\("([^"]+)" : "=r"\(\w+\), "=r"\(\w+\) : (.*)\);')
_DEF = re.compile(r"^const (uint32_t|uint64_t) (\w+) = (.*);")
_OUT = re.compile(r"^y\[(\d+)\] = (.*);")
_IN = re.compile(r'"r"\(((?:[^()]|\([^()]*\))*)\)')


def _prmt(a, b, sel: int):
    out = np.zeros(np.broadcast(a, b).shape, np.uint64)
    for i in range(4):
        n = (sel >> (4 * i)) & 0x7
        src = a if n < 4 else b
        byte = (src >> np.uint64(8 * (n & 3))) & np.uint64(0xFF)
        out |= byte << np.uint64(8 * i)
    return out


def _lop3(a, b, c, lut: int):
    out = np.zeros(np.broadcast(a, b, c).shape, np.uint64)
    for bit in range(8):
        if lut >> bit & 1:
            ta = a if bit & 4 else ~a & M32
            tb = b if bit & 2 else ~b & M32
            tc = c if bit & 1 else ~c & M32
            out |= ta & tb & tc
    return out


def _imm(tok: str) -> int:
    return int(tok.rstrip("u"), 0)


def _asm(template: str, srcs: list):
    parts = template.rstrip(";").replace(",", " ").split()
    op, args = parts[0], parts[1:]

    def operand(t: str):
        return srcs[int(t[1:]) - 1] if t.startswith("%") else np.uint64(_imm(t))

    ops = [operand(t) for t in args[1:]]
    if op == "add.u32":
        return (ops[0] + ops[1]) & M32
    if op == "sub.u32":
        return (ops[0] - ops[1]) & M32
    if op in ("xor.b32", "and.b32", "or.b32"):
        return {"xor.b32": np.bitwise_xor, "and.b32": np.bitwise_and, "or.b32": np.bitwise_or}[op](ops[0], ops[1])
    if op == "not.b32":
        return ~ops[0] & M32
    if op == "lop3.b32":
        return _lop3(ops[0], ops[1], ops[2], _imm(args[4]))
    if op == "mul.lo.u32":
        return (ops[0] * ops[1]) & M32
    if op == "mul.hi.u32":
        return (ops[0] * ops[1]) >> np.uint64(32)
    if op == "shl.b32":
        return (ops[0] << ops[1]) & M32
    if op == "shr.b32":
        return ops[0] >> ops[1]
    if op == "shf.l.wrap.b32":  # d = high 32 bits of (b:a) << k
        k = ops[2]
        return ((ops[1] << k) | (ops[0] >> (np.uint64(32) - k))) & M32
    if op == "shf.r.wrap.b32":  # d = low 32 bits of (b:a) >> k
        k = ops[2]
        return ((ops[0] >> k) | (ops[1] << (np.uint64(32) - k))) & M32
    if op == "prmt.b32":
        return _prmt(ops[0], ops[1], _imm(args[3]))
    raise ValueError(f"emulator: unknown instruction {op}")


def _carry_chain(template: str, srcs: list, nout: int) -> list:
    """A multi-instruction asm statement over %0..%(nout-1) (outputs) and the inputs after them, with
    PTX's carry flag: add.cc / addc (carry), sub.cc / subc (borrow)."""
    regs: list = [None] * nout + list(srcs)
    cf = np.uint64(0)
    for ins in filter(None, (t.strip() for t in template.split(";"))):
        op, *args = ins.replace(",", " ").split()
        d, a, b = (int(t[1:]) for t in args)
        x, y = regs[a], regs[b]
        if op in ("add.cc.u32", "addc.u32"):
            t = x + y + (cf if op == "addc.u32" else np.uint64(0))
            regs[d], cf = t & M32, t >> np.uint64(32)
        elif op in ("sub.cc.u32", "subc.u32"):
            y = y + (cf if op == "subc.u32" else np.uint64(0))
            regs[d], cf = (x - y) & M32, (x < y).astype(np.uint64)
        else:
            raise ValueError(f"emulator: unknown instruction {op} in a carry chain")
    return regs[:nout]


def _c_eval(expr: str, ns: dict, mask=M32):
    expr = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)(u|ull)\b", r"\1", expr)
    expr = re.sub(r"__ldg\(&(\w+)\[(.*)\]\)$", r"\1[\2]", expr)
    expr = expr.replace("rk.w[", "rk[").replace("(uint64_t)", "").replace("(uint32_t)(", "cs_u32(")
    val = eval(expr, {"__builtins__": {}}, ns)  # noqa: S307 - our own generated text
    return np.asarray(val, dtype=np.uint64) & mask


def run_core(
    text: str, x: list, rk: np.ndarray, tables: dict[str, np.ndarray], h: list | None = None, copies: int = 1
) -> list:
    """Runs the body of one core; x/h: lists of uint64 lane arrays; rk: all round-key words;
    ``copies``: the replication of shared tables (entry e of the lane's copy at e * copies)."""
    ns: dict = {
        "x": [np.asarray(v, np.uint64) for v in x],
        "h": [np.asarray(v, np.uint64) for v in (h or [])],
        "rk": [np.uint64(int(w)) for w in rk],
        "cs_u32": lambda v: np.asarray(v, np.uint64) & M32,
    }
    for name, arr in tables.items():
        ns[f"c_{name}"] = ns[f"g_{name}"] = np.asarray(arr, np.uint64)
        ns[f"s_{name}"] = np.repeat(np.asarray(arr, np.uint64), copies)
    outs: dict[int, np.ndarray] = {}
    for raw in asmblock.expand(text).splitlines():
        line = raw.strip().split("//")[0].strip()
        if not line or line.startswith(("__device__", "{", "}")):
            continue
        m = _ASM.match(line)
        if m:
            srcs = [_c_eval(e, ns) for e in _IN.findall(m.group(3))]
            ns[m.group(1)] = _asm(m.group(2), srcs)
            continue
        m = _ASM2.match(line)
        if m:
            srcs = [_c_eval(e, ns) for e in _IN.findall(m.group(4))]
            ns[m.group(1)], ns[m.group(2)] = _carry_chain(m.group(3), srcs, 2)
            continue
        m = _DEF.match(line)
        if m:
            ns[m.group(2)] = _c_eval(m.group(3), ns, M64 if m.group(1) == "uint64_t" else M32)
            continue
        m = _OUT.match(line)
        if m:
            outs[int(m.group(1))] = _c_eval(m.group(2), ns)
            continue
        raise ValueError(f"emulator: cannot read {line!r}")
    return [outs[k] for k in sorted(outs)]
