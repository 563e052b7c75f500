"""The C ``bitsliced`` schedule's plane statements: the shared bit-plane lowering (generator/common/
bitslice.py, words of any width, any 4- or 8-bit table) printed as C over plane vectors (or, for the
key schedule, uint64_t masks).

A plane is a C variable or the constant 0 / 1 (all zeros / all ones); each new plane is one statement:

    before: %2 = xor.u8 %0, %1                 after: p16 = CS_P_XOR(p0, p8); ... p23 = ...  (8 statements)
    before: %3 = shl.u8 %2, 1                  after: planes [0, p16, p17, ..., p22]       (none)
"""

from __future__ import annotations

from cipherspec.ir import Table
from generator.common.bitslice import PlaneAlgebra, circuit_kind, gmul_rows, live_bits, lower, two_sided
from generator.common.sbox_circuit import CIRCUITS

from .body import COMMENT_COLUMN

__all__ = ["Planes", "circuit_gates", "gmul_rows", "live_bits", "lower", "sbox_function", "two_sided"]

Plane = "str | int"  # a C variable name, or 0 / 1 (all-zero / all-one plane)
_MACRO = {"^": "XOR", "&": "AND", "|": "OR", "~": "NOT"}


class Planes(PlaneAlgebra):
    """Straight-line plane statements with constant folding and value numbering.  The C kernels are bound
    by their operation count (vector ALU throughput), not by a circuit's depth: a table affine-equivalent
    to inversion gets whichever inversion circuit has fewer gates for its affine maps."""

    SBOX_SHAPES = CIRCUITS

    def __init__(self, ctype: str, prefix: str = "CS_P", indent: str = "    ", calls: dict | None = None):
        super().__init__()
        self.ctype = ctype  # "cs_p" (vector of blocks) or "uint64_t" (the key schedule's broadcast masks)
        self.prefix = prefix  # the operator macros: CS_P_XOR(a, b) ... (vector or plain-array fallback)
        self.indent = indent
        self.lines: list[str] = []
        self._count = 0
        self.comment = ""
        self.calls = calls  # table name -> C function: lookups become calls (see sbox_function)

    def _emit(self, key: tuple, expr: str):
        if key in self._memo:
            return self._memo[key]
        var = f"p{self._count}"
        self._count += 1
        stmt = f"{self.indent}const {self.ctype} {var} = {expr};"
        self.lines.append(f"{stmt.ljust(COMMENT_COLUMN)} /* {self.comment} */")
        self._memo[key] = var
        return var

    def node(self, key: tuple):
        return self._emit(key, f"{self.prefix}_{_MACRO[key[0]]}({', '.join(key[1:])})")

    def comment_for(self, origin) -> None:
        self.comment = (str(origin) if origin is not None else "(no origin)").replace("*/", "* /")

    def value(self, key: tuple, expr: str):
        """A plane read from elsewhere (state array, key struct): one statement, memoized by ``key``."""
        return self._emit(key, expr)

    def literal(self, p) -> str:
        """A plane as a C expression (constants as the all-zero / all-one splat)."""
        return p if isinstance(p, str) else f"{self.prefix}_SPLAT({'~(uint64_t)0' if p else '(uint64_t)0'})"

    def sbox(self, x: list, table: Table) -> list:
        if self.calls is not None:
            return self._sbox_call(x, table)
        return self.sbox_inline(x, table)

    def _sbox_call(self, x: list, table: Table) -> list:
        """before: planes x -> 200 inline statements;  after: cs_p r7[8]; fn(r7, p3, p9, ...); planes r7[0..7]
        (the input planes by value: in vector registers, not copied through an array; output bits that are
        constant over the whole table stay constants, outside the call)"""
        assert self.calls is not None
        fn = self.calls.setdefault(table.name, f"cs_sbox_{table.name}")
        n = self._count
        self._count += 1
        nin, live = table.in_width, live_bits(table)
        args = ", ".join(self.literal(p) for p in x[:nin])
        stmt = f"{self.indent}{self.ctype} r{n}[{max(len(live), 1)}]; {fn}(r{n}, {args});"
        self.lines.append(f"{stmt.ljust(COMMENT_COLUMN)} /* {self.comment} */")
        out: list = [table.values[0] >> j & 1 for j in range(table.out_width)]
        for k, j in enumerate(live):
            out[j] = f"r{n}[{k}]"
        return out


def sbox_function(table: Table, ctype: str, prefix: str, name: str, by_value: bool = False) -> list[str]:
    """One table's circuit as a C function ``name(const T x[in], T y[live])`` (kept out of line: the
    cores call it per lookup, which keeps them small enough for the C compiler); y holds the output
    bits that vary over the table (live_bits), in order.  ``by_value``: ``name(T y[live], T x0, T x1,
    ...)``, the input planes passed in vector registers (the cores' calls, Planes._sbox_call)."""
    planes = Planes(ctype, prefix, "    ")
    planes.comment = circuit_kind(table, Planes.SBOX_SHAPES)
    nin, live = table.in_width, live_bits(table)
    nout = max(len(live), 1)
    if by_value:
        ins = [f"x{i}" for i in range(nin)]
        head = f"static void {name}({ctype} y[{nout}], {', '.join(f'const {ctype} x{i}' for i in range(nin))})"
    else:
        ins = [planes.value(("x", i), f"x[{i}]") for i in range(nin)]
        head = f"static void {name}(const {ctype} x[{nin}], {ctype} y[{nout}])"
    outs = planes.sbox_inline(ins, table)
    lines = [head, "{"] + planes.lines
    lines += [f"    y[{k}] = {planes.literal(outs[j])};" for k, j in enumerate(live)]
    return lines + ["}"]


def circuit_gates(table: Table) -> int:
    """The number of gates (plane statements) of a table's circuit as sbox_function prints it."""
    planes = Planes("cs_p")
    ins = [planes.value(("x", i), f"x[{i}]") for i in range(table.in_width)]
    planes.sbox_inline(ins, table)
    return len(planes.lines) - table.in_width
