"""How one IR op reads in C: a scalar dialect (uintN_t words) and a vector dialect (one lane per block).

The vector dialect prints macros (CS_V32_XOR, CS_V8_ROTL, ...) that the source skeleton defines
twice: as GCC/Clang vector-extension operators, and as calls of plain-array functions for
compilers without vector extensions.  So one emitted body serves both.

    Scalar().expr(Op("rotl", 32, (3,), (9,)), ["v3"], {}, [32])        -> "CS_ROTL32(v3, 9)"
    Vector().expr(Op("rotl", 32, (3,), (9,)), ["v3"], {}, [32])        -> "CS_V32_ROTL(v3, 9)"
    Scalar().expr(Op("add", 8, (1, 2)), ["v1", "v2"], {}, [8, 8])      -> "(uint8_t)(v1 + v2)"
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import WIDTHS, Op, Table

_INFIX = {"xor": "^", "and": "&", "or": "|", "add": "+", "sub": "-"}


def narrowest(width: int) -> int:
    """The narrowest C word (uintN_t) that holds a width-bit value: a 4-bit table index is a uint8_t."""
    return next(b for b in WIDTHS if width <= b)


def table_symbol(name: str) -> str:
    return f"cs_tab_{name}"


def const_literal(value: int, width: int) -> str:
    return f"UINT{width}_C({value:#x})" if width == 64 else f"{value:#x}u"


@dataclass(frozen=True)
class BatchCall:
    setup: list[str]  # statements: the inputs gathered, the call
    values: list[str]  # the expression of each lookup's result, in batch order


class Scalar:
    """One block: every value is a uintN_t.  ``ct_lookups``: table lookups are not memory reads but
    constant-time evaluations of the table (the library's key schedule): a batch of independent lookups
    (lutbatch.py) is one cs_ctn_<table> call, the circuit run once for all of them."""

    vector = False

    def __init__(self, ct_lookups: bool = False, aesni: frozenset[str] = frozenset()):
        self.ct_lookups = ct_lookups
        self.aesni = aesni  # tables looked up through AESENCLAST (cs_ctn_aesni_<T>, keysched.aesni_tables)

    @staticmethod
    def ctype(width: int) -> str:
        return f"uint{width}_t"

    def splat(self, expr: str, width: int) -> str:
        return expr

    def lookup_batch(self, table: Table, args: list[str], tag: str) -> BatchCall:
        """cs_ctn_<T>(in, out, n): ``args`` looked up in one circuit run (ct_lookups only)."""
        if not self.ct_lookups:
            raise ValueError("lookup batches are for constant-time lookups (Scalar(ct_lookups=True))")
        tin, tout = self.ctype(narrowest(table.in_width)), self.ctype(narrowest(table.out_width))
        n, name = len(args), table.name
        if name in self.aesni and n <= 8:  # the bytes packed in one register: no buffer in memory
            packed = " | ".join(f"(uint64_t){a} << {8 * k}" if k else f"(uint64_t){a}" for k, a in enumerate(args))
            setup = [f"const uint64_t {tag}_out = cs_ctn8_aesni_{name}({packed});  /* {n} lookups of {name} */"]
            return BatchCall(
                setup, [f"({tout})({tag}_out >> {8 * k})" if k else f"({tout}){tag}_out" for k in range(n)]
            )
        setup = [
            f"{tin} {tag}_in[{n}] = {{{', '.join(f'({tin}){a}' for a in args)}}};  /* {n} lookups of {name}, one circuit run */",
            f"{tout} {tag}_out[{n}];",
            f"cs_ctn_{'aesni_' if name in self.aesni else ''}{name}({tag}_in, {tag}_out, {n});",
        ]
        return BatchCall(setup, [f"{tag}_out[{k}]" for k in range(n)])

    def expr(self, op: Op, a: list[str], tables: dict[str, Table], arg_widths: list[int]) -> str:
        w, code = op.width, op.code
        t = self.ctype(w)
        if code == "const":
            return const_literal(op.imm[0], w)
        if code in ("xor", "and", "or"):
            return f"{a[0]} {_INFIX[code]} {a[1]}" if w >= 32 else f"({t})({a[0]} {_INFIX[code]} {a[1]})"
        if code in ("add", "sub"):
            return f"{a[0]} {_INFIX[code]} {a[1]}" if w >= 32 else f"({t})({a[0]} {_INFIX[code]} {a[1]})"
        if code == "not":
            return f"~{a[0]}" if w >= 32 else f"({t})~{a[0]}"
        if code == "rotl":
            return f"CS_ROTL{w}({a[0]}, {op.imm[0]})"
        if code == "shl":
            return f"{a[0]} << {op.imm[0]}" if w >= 32 else f"({t})({a[0]} << {op.imm[0]})"
        if code == "shr":
            return f"{a[0]} >> {op.imm[0]}" if w >= 32 else f"({t})({a[0]} >> {op.imm[0]})"
        if code == "lut":
            if self.ct_lookups:
                raise ValueError("constant-time lookups are printed in batches (lutbatch.batched_order)")
            return f"{table_symbol(op.imm[0])}[{a[0]}]"
        if code in ("zext", "trunc"):
            return f"({t}){a[0]}"
        raise ValueError(f"the C backend cannot print op {code} (run prepare() first)")


class Vector:
    """N blocks: every value is a cs_vW holding word i of each of the N blocks, one per lane."""

    vector = True

    @staticmethod
    def ctype(width: int) -> str:
        return f"cs_v{width}"

    def splat(self, expr: str, width: int) -> str:
        return f"CS_V{width}_SPLAT({expr})"

    def expr(self, op: Op, a: list[str], tables: dict[str, Table], arg_widths: list[int]) -> str:
        w, code = op.width, op.code
        if code == "const":
            return self.splat(const_literal(op.imm[0], w), w)
        if code in _INFIX or code == "not":
            return f"CS_V{w}_{code.upper()}({', '.join(a)})"
        if code == "rotl" and w > 8 and op.imm[0] % 8 == 0:
            return f"CS_V{w}_ROTB_{op.imm[0]}({a[0]})"  # a byte shuffle where the compiler has one
        if code in ("rotl", "shl", "shr"):
            return f"CS_V{w}_{code.upper()}({a[0]}, {op.imm[0]})"
        if code == "lut":
            tab = tables[op.imm[0]]
            return f"cs_lut_{arg_widths[0]}_{tab.out_width}({table_symbol(tab.name)}, {a[0]})"  # index word width
        if code in ("zext", "trunc"):
            return f"cs_cvt_{arg_widths[0]}_{w}({a[0]})"
        raise ValueError(f"the C backend cannot print op {code} (run prepare() first)")
