"""A small IR builder for the layout lowerings (swar.py, bitsliced.py): appends ops with the origin being
lowered, numbers values (an op identical to an earlier one is that one), folds nothing else.

    b = Builder("encrypt");  b.origin = op.origin
    x = b.input("X[0]");  m = b.const(0x7f7f7f7f);  y = b.op("and", x, m)   -> value ids
    fn = b.function([("X[0]", y)])
"""

from __future__ import annotations

from cipherspec.ir import COMMUTATIVE, Function, Op, Origin


class Builder:
    def __init__(self, name: str, width: int = 32):
        self.name, self.width = name, width
        self.ops: list[Op] = []
        self.origin: Origin | None = None
        self._seen: dict[tuple, int] = {}

    def _add(self, key: tuple, origin: Origin | None) -> int:
        """The value of ``key`` = Op.key() of the op (code, width, args -- sorted where commutative --, imm):
        the earlier op's where there is one, else a new op (made only then: millions of calls a library)."""
        v = self._seen.get(key)
        if v is None:
            v = self._seen[key] = len(self.ops)
            code, width, args, imm = key
            self.ops.append(Op(code, width, args, imm, origin))
        return v

    def input(self, name: str) -> int:
        return self._add(("input", self.width, (), (name,)), self.origin)

    def const(self, value: int, width: int | None = None) -> int:
        w = width or self.width
        return self._add(("const", w, (), (value & ((1 << w) - 1),)), self.origin)

    def op(self, code: str, *args: int, imm: int | str | None = None, width: int | None = None) -> int:
        """``width`` defaults to the builder's; ``imm`` is the shift amount or the table name."""
        if code in COMMUTATIVE:
            args = tuple(sorted(args))
        return self._add((code, width or self.width, args, () if imm is None else (imm,)), self.origin)

    def function(self, outputs: list[tuple[str, int]]) -> Function:
        return Function(self.name, list(self.ops), outputs)
