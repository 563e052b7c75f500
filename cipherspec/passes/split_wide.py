"""Split values wider than the block words into limbs of the block word width (for lane-sliced targets).

A target that keeps one block word of many blocks per register (NEON's sliced layout) has lanes of the
block word width only.  A wider value (a ``u32`` packed from four bytes of a ``u8[16]`` block, a ``u64``
built from two words of a ``u32[4]`` block) becomes W/w limbs of w bits, least significant first, each
an ordinary w-bit value; every op on it becomes limb ops:

    xor/and/or/not      limb by limb
    add/sub             ripple carry: s_j = a_j + b_j + c_(j-1); c_j = MSB of (a & b) | ((a | b) & ~s)
                        (borrow: MSB of (~a & b) | (~(a ^ b) & d))
    shl/shr/rotl k      limbs renamed by k / w, then (x << k%w) | (x' >> (w - k%w)) across neighbours
    zext, trunc         renaming: the low limbs, zero limbs above (a narrower result: trunc of limb 0)
    lut (wide entries)  one lookup per limb, in the table's limb tables T_l<j> (entries' bits j·w..)

    before: (u8 block)  %2 = zext.u16 %0   %3 = zext.u16 %1   %4 = shl.u16 %3, 8   %5 = or.u16 %2, %4
                        %6 = rotl.u16 %5, 3   %7 = trunc.u8 %6
    after:              %2 = shl.u8 %0, 3   %3 = shr.u8 %1, 5   %4 = or.u8 %2, %3   (%7 is %4; the other
                        limb is dead; constfold/cse/dce clean the rest)

Only encrypt and decrypt are split, and only where every input and output has the block word width (a
wider round-key word stays as it is, for the backend to refuse); a module without wider values is
returned unchanged.  Run constfold, cse and dce after it: zero limbs are emitted as constants.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Function, Module, Op, Origin, Table, mask

SPLIT = ("encrypt", "decrypt")


def wide_values(module: Module) -> bool:
    """Whether encrypt or decrypt computes a value wider than the block words."""
    w = module.block.width
    return any(op.width > w for name in SPLIT for op in module.functions[name].ops)


def limb_tables(tables: dict[str, Table], width: int) -> dict[str, list[str]]:
    """The names of the limb tables of each table with entries wider than ``width`` bits: T -> [T_l0, ...],
    underscores added until no name clashes with another table."""
    out = {}
    for name, t in tables.items():
        if t.out_width > width:
            sep = "_"
            n = t.out_width // width
            while any(f"{name}{sep}l{j}" in tables for j in range(n)):
                sep += "_"
            out[name] = [f"{name}{sep}l{j}" for j in range(n)]
    return out


class _Limbs:
    """The rewrite of one function: ``limbs[v]`` are the new value ids of old value v, low limb first (one
    id for a value of at most the limb width)."""

    def __init__(self, width: int, tables: dict[str, list[str]]):
        self.w, self.tables = width, tables
        self.ops: list[Op] = []
        self.limbs: list[list[int]] = []
        self.origin: Origin | None = None

    def emit(self, code: str, args: tuple = (), imm: tuple = (), width: int | None = None) -> int:
        self.ops.append(Op(code, width or self.w, args, imm, self.origin))
        return len(self.ops) - 1

    def const(self, value: int) -> int:
        return self.emit("const", imm=(value & mask(self.w),))

    def carry(self, a: int, b: int, s: int, sub: bool) -> int:
        """0 or 1: the carry (borrow) out of the limb sum a + b + c_in = s (difference a - b - c_in = s)."""
        e = self.emit
        if sub:  # (~a & b) | (~(a ^ b) & d)
            t = e("or", (e("and", (e("not", (a,)), b)), e("and", (e("not", (e("xor", (a, b)),)), s))))
        else:  # (a & b) | ((a | b) & ~s)
            t = e("or", (e("and", (a, b)), e("and", (e("or", (a, b)), e("not", (s,))))))
        return e("shr", (t,), (self.w - 1,))

    def shifted(self, x: list[int], code: str, k: int) -> list[int]:
        """x shifted left / right or rotated left by k bits, limb by limb."""
        n, w = len(x), self.w
        q, r = divmod(k, w)

        def limb(j: int) -> int | None:
            if code == "rotl":
                return x[j % n]
            return x[j] if 0 <= j < n else None

        out = []
        for j in range(n):
            src = j - q if code != "shr" else j + q
            nxt = src - 1 if code != "shr" else src + 1  # the neighbour whose bits move in
            hi, lo = limb(src), limb(nxt)
            if r == 0:
                out.append(hi if hi is not None else self.const(0))
                continue
            near, far = ("shl", "shr") if code != "shr" else ("shr", "shl")
            parts = [self.emit(near, (hi,), (r,))] if hi is not None else []
            parts += [self.emit(far, (lo,), (w - r,))] if lo is not None else []
            out.append(parts[0] if len(parts) == 1 else self.emit("or", tuple(parts)) if parts else self.const(0))
        return out

    def op(self, op: Op, args: list[list[int]]) -> list[int]:
        """The limbs of op's result (op wider than the limbs, or a trunc of a wider value)."""
        w, code = self.w, op.code
        n = max(1, op.width // w)
        if code == "trunc":
            low = args[0][:n]
            return [self.emit("trunc", (low[0],), width=op.width)] if op.width < w else low
        if code == "zext":
            low = args[0]
            if self.ops[low[0]].width < w:  # a value narrower than a limb: its zero extension is limb 0
                low = [self.emit("zext", (low[0],))]
            return low + [self.const(0) for _ in range(n - len(low))]
        if code == "const":
            return [self.const(op.imm[0] >> (w * j)) for j in range(n)]
        if code == "not":
            return [self.emit("not", (a,)) for a in args[0]]
        if code in ("xor", "and", "or"):
            return [self.emit(code, (a, b)) for a, b in zip(*args)]
        if code in ("add", "sub"):
            out, c = [], None
            for j, (a, b) in enumerate(zip(*args)):
                s = self.emit(code, (a, b))
                if c is not None:
                    s = self.emit(code, (s, c))
                if j + 1 < n:
                    c = self.carry(a, b, s, code == "sub")
                out.append(s)
            return out
        if code in ("shl", "shr", "rotl"):
            return self.shifted(args[0], code, op.imm[0])
        if code == "lut":
            return [self.emit("lut", (args[0][0],), (t,)) for t in self.tables[op.imm[0]]]
        raise ValueError(f"split_wide: no limb rule for {code}.u{op.width}")  # input: refused by the caller


def split(fn: Function, tables: dict[str, list[str]], width: int) -> Function:
    """fn with every value wider than ``width`` as limbs; fn itself when an input or output is wider."""
    if not any(op.width > width for op in fn.ops):
        return fn
    if any(w > width for _, w, _ in fn.inputs()) or any(fn.ops[v].width > width for _, v in fn.outputs):
        return fn
    r = _Limbs(width, tables)
    for op in fn.ops:
        r.origin = op.origin
        args = [r.limbs[a] for a in op.args]
        if op.width > width or (op.code == "trunc" and fn.ops[op.args[0]].width > width):
            r.limbs.append(r.op(op, args))
        else:
            r.limbs.append([r.emit(op.code, tuple(a[0] for a in args), op.imm, op.width)])
    return fn.copy_with(r.ops, [(name, r.limbs[v][0]) for name, v in fn.outputs])


def run_module(module: Module) -> Module:
    if not wide_values(module):
        return module
    w = module.block.width
    names = limb_tables(module.tables, w)
    tables = dict(module.tables)
    for name, limbs in names.items():
        t = module.tables[name]
        for j, limb in enumerate(limbs):
            tables[limb] = Table(limb, t.in_width, w, tuple((v >> (w * j)) & mask(w) for v in t.values))
    functions = {name: split(fn, names, w) if name in SPLIT else fn for name, fn in module.functions.items()}
    return replace(module, tables=tables, functions=functions)
