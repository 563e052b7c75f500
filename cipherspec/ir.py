"""The IR: per function, a flat SSA DAG — one list of ops, a value is its op's index.

Every op has a width (8/16/32/64), argument value ids, immediates and the
origin it came from (spec file:line:col, the function chain and the round).
There are no loops and no control flow: round loops are unrolled and
compile-time conditions resolved when the spec is lowered (lower.py), because a
flat DAG cannot hold them; every later pass and backend sees straight-line code.

Opcodes (``imm`` in brackets):
    input [name]        a function argument word: "X[0]", "rk[3][5]", "K[1]"
    const [value]
    xor and or          a, b
    not                 a
    add sub             a, b        (mod 2^width)
    rotl shl shr        a [amount]  (0 < amount < width; rotr is rotl by width-amount)
    lut [table]         a           table lookup; table in Module.tables, len = 2^in_width: 2^width(a), or
                                    16 for a 4-bit S-box, whose index is a u8 below 16 (the language
                                    masks it: S4[x] is one lut per nibble)
    gmul [c, poly]      a           GF(2^8) multiply by constant c modulo poly (width 8)
    zext trunc          a           width change: the op's width is the result width

A Function lists its outputs as (name, value id) pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

BINARY = ("xor", "and", "or", "add", "sub")
COMMUTATIVE = ("xor", "and", "or", "add")
UNARY_IMM = ("rotl", "shl", "shr")
OPCODES = ("input", "const", "not", "lut", "gmul", "zext", "trunc") + BINARY + UNARY_IMM
WIDTHS = (8, 16, 32, 64)


@dataclass(frozen=True)
class Origin:
    """Where an op came from: spec position, the chain of functions it was lowered through, round."""

    file: str
    line: int
    col: int
    where: str = ""  # "encrypt", "encrypt>Fo>A"
    round: int | None = None  # value of the outermost loop variable of the entry function

    def __str__(self) -> str:
        import os

        text = f"{os.path.basename(self.file)}:{self.line}:{self.col} {self.where}"
        if self.round is not None:
            text += f" r{self.round}"
        return text


@dataclass(frozen=True)
class Op:
    code: str
    width: int
    args: tuple[int, ...] = ()
    imm: tuple = ()
    origin: Origin | None = None

    def with_args(self, args: tuple[int, ...]) -> "Op":
        """This op reading ``args`` (itself where they are its own): dataclasses.replace's result, made directly
        (passes renumber millions of ops; replace looks the fields up on every call)."""
        return self if args == self.args else Op(self.code, self.width, args, self.imm, self.origin)

    def key(self) -> tuple:
        """Identity for value numbering (origin excluded; commutative args sorted)."""
        args = tuple(sorted(self.args)) if self.code in COMMUTATIVE else self.args
        return (self.code, self.width, args, self.imm)


@dataclass(frozen=True)
class Table:
    """A constant lookup table: S-box, derived inverse, or a const array indexed at run time."""

    name: str
    in_width: int
    out_width: int
    values: tuple[int, ...]
    inverse_of: str | None = None  # derived by the compiler with inverse(...)


@dataclass
class Function:
    name: str  # key_schedule / encrypt / decrypt
    ops: list[Op]
    outputs: list[tuple[str, int]]

    def inputs(self) -> list[tuple[str, int, int]]:
        """(name, width, value id) of every input op, in order."""
        return [(op.imm[0], op.width, i) for i, op in enumerate(self.ops) if op.code == "input"]

    def copy_with(self, ops: list[Op], outputs: list[tuple[str, int]]) -> "Function":
        return Function(self.name, ops, outputs)

    def work(self) -> int:
        """Ops that compute (every op but inputs and constants)."""
        return sum(1 for op in self.ops if op.code not in ("input", "const"))

    def op_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for op in self.ops:
            counts[op.code] = counts.get(op.code, 0) + 1
        return counts


@dataclass(frozen=True)
class WordLayout:
    """How a byte string maps to words: ``u32[4] little`` = 16 bytes, 4 little-endian words."""

    width: int
    count: int
    endian: str  # "little" / "big" (irrelevant for u8)

    @property
    def nbytes(self) -> int:
        return self.width // 8 * self.count

    def __str__(self) -> str:
        text = f"u{self.width}[{self.count}]"
        return text + (f" {self.endian}" if self.width > 8 else "")


@dataclass(frozen=True)
class KeyArray:
    """One key-schedule output array (e.g. rk: u32[24][6]): its shape and the flat input names."""

    name: str
    width: int
    shape: tuple[int, ...]

    def flat_names(self) -> list[str]:
        names = [self.name]
        for n in self.shape:
            names = [f"{p}[{i}]" for p in names for i in range(n)]
        return names


@dataclass
class Module:
    """One cipher variant, lowered: its tables and three functions."""

    cipher: str
    family: str
    params: dict[str, int]
    source: str
    block: WordLayout
    key: WordLayout
    key_arrays: list[KeyArray]
    tables: dict[str, Table]
    functions: dict[str, Function]  # key_schedule, encrypt, decrypt
    uses_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)  # encrypt/decrypt -> key arrays read

    @property
    def rounds(self) -> int:
        return self.params.get("rounds", 0)

    def with_functions(self, functions: dict[str, Function]) -> "Module":
        return replace(self, functions=functions)


def mask(width: int) -> int:
    return (1 << width) - 1


def rebuild(fn: Function, keep: list[bool] | None = None) -> Function:
    """Drop ops not in ``keep`` and renumber densely (args and outputs remapped)."""
    keep = keep if keep is not None else [True] * len(fn.ops)
    remap: dict[int, int] = {}
    ops: list[Op] = []
    for i, op in enumerate(fn.ops):
        if not keep[i]:
            continue
        remap[i] = len(ops)
        ops.append(op.with_args(tuple(remap[a] for a in op.args)) if op.args else op)
    return fn.copy_with(ops, [(n, remap[v]) for n, v in fn.outputs])


def substitute(fn: Function, replacement: list[int]) -> Function:
    """Rewrite uses: every arg/output v becomes replacement[v] (which must precede the use)."""
    ops = [op.with_args(tuple(replacement[a] for a in op.args)) if op.args else op for op in fn.ops]
    return fn.copy_with(ops, [(n, replacement[v]) for n, v in fn.outputs])
