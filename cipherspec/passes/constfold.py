"""Constant folding and algebraic simplification.

Ops whose arguments are all constants are evaluated (with the interpreter, so
folding and execution share one definition of every op); identities remove
work; constant chains merge.

    before: %2 = const.u32 5   %3 = xor.u32 %0, %2   %4 = const.u32 3   %5 = xor.u32 %3, %4
            %6 = rotl.u32 %5, 9   %7 = rotl.u32 %6, 23
    after:  %2 = const.u32 6   %3 = xor.u32 %0, %2            (%7 is %3: rotl 9 then 23 = rotl 32 = id)

Identities: x^0, x|0, x+0, x-0, x&~0 -> x;  x&0 -> 0;  x^x, x-x -> 0;  x&x, x|x -> x;  ~~x -> x;
x|~0 -> ~0;  rotl(rotl(x,a),b) -> rotl(x,a+b);  (x^c1)^c2 -> x^(c1^c2);  (x+c1)+c2 -> x+(c1+c2);
x-c -> x+(-c);  trunc(zext(x)) -> x at x's width.  Constants move to the right of commutative ops.
"""

from __future__ import annotations

from dataclasses import replace

from ..interp import Interpreter
from ..ir import COMMUTATIVE, Function, Op, Table, mask, rebuild


class _Folder:
    def __init__(self, fn: Function, tables: dict[str, Table]):
        self.fn = fn
        self.interp = Interpreter(tables)
        self.ops: list[Op] = []
        self.consts: dict[int, int] = {}  # new vid -> constant value

    def emit(self, op: Op) -> int:
        self.ops.append(op)
        vid = len(self.ops) - 1
        if op.code == "const":
            self.consts[vid] = op.imm[0]
        return vid

    def const(self, value: int, width: int, origin) -> int:
        return self.emit(Op("const", width, (), (value & mask(width),), origin))

    def fold(self, op: Op) -> int:
        """Returns the new value id standing for ``op``."""
        args = op.args
        if op.code in ("input", "const"):
            return self.emit(op)
        if all(a in self.consts for a in args):
            vals = {a: self.interp.eval_op(self.ops[a], [], {}) for a in args}
            value = int(self.interp.eval_op(op, vals, {})[0])
            return self.const(value, op.width, op.origin)
        return self.simplify(op)

    def simplify(self, op: Op) -> int:
        code, w = op.code, op.width
        ones = mask(w)
        if code in COMMUTATIVE and op.args[0] in self.consts and op.args[1] not in self.consts:
            op = replace(op, args=(op.args[1], op.args[0]))
        args = op.args
        c = self.consts.get(args[1]) if len(args) == 2 else None
        a = args[0]
        src = self.ops[a]
        if code == "sub" and c is not None:
            return self.simplify(replace(op, code="add", args=(a, self.const(-c, w, op.origin))))
        if code in ("xor", "or", "add") and c == 0:
            return a
        if code == "and" and c == ones:
            return a
        if code == "and" and c == 0:
            return args[1]
        if code == "or" and c == ones:
            return args[1]
        if len(args) == 2 and args[0] == args[1]:
            if code in ("xor", "sub"):
                return self.const(0, w, op.origin)
            if code in ("and", "or"):
                return a
        if code in ("xor", "add") and c is not None and src.code == code and src.args[1] in self.consts:
            inner = self.consts[src.args[1]]
            merged = inner ^ c if code == "xor" else inner + c
            return self.simplify(replace(op, args=(src.args[0], self.const(merged, w, op.origin))))
        if code == "not" and src.code == "not":
            return src.args[0]
        if code == "rotl" and src.code == "rotl":
            k = (op.imm[0] + src.imm[0]) % w
            return src.args[0] if k == 0 else self.emit(replace(op, args=(src.args[0],), imm=(k,)))
        if code == "trunc" and src.code == "zext" and self.ops[src.args[0]].width == w:
            return src.args[0]
        return self.emit(op)


def run(fn: Function, tables: dict[str, Table]) -> Function:
    folder = _Folder(fn, tables)
    repl: list[int] = []
    for op in fn.ops:
        repl.append(folder.fold(replace(op, args=tuple(repl[a] for a in op.args)) if op.args else op))
    out = fn.copy_with(folder.ops, [(n, repl[v]) for n, v in fn.outputs])
    return rebuild(out)
