"""The abstract syntax of a cipher spec: plain frozen dataclasses, each with its location.

A spec file holds ``family`` definitions (the cipher written once, with
compile-time parameters such as ``rounds``) and ``cipher`` lines that name
variants by binding those parameters:

    family lea(nk, rounds) { ... }
    cipher lea128 = lea(nk = 4, rounds = 24);
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Loc


# ---------------------------------------------------------------- expressions
@dataclass(frozen=True)
class Expr:
    loc: Loc


@dataclass(frozen=True)
class Num(Expr):
    value: int


@dataclass(frozen=True)
class Name(Expr):
    ident: str


@dataclass(frozen=True)
class BinOp(Expr):
    op: str  # ^ & | + - * / % << >> <<< >>> == != < <= > >= and or
    left: Expr
    right: Expr


@dataclass(frozen=True)
class UnOp(Expr):
    op: str  # ~ - not
    operand: Expr


@dataclass(frozen=True)
class Index(Expr):
    base: Expr
    index: Expr


@dataclass(frozen=True)
class Call(Expr):
    func: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class ArrayLit(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Comprehension(Expr):
    item: Expr
    var: str
    start: Expr
    stop: Expr


@dataclass(frozen=True)
class EachComprehension(Expr):
    """``[S[x] for x in X]``: ``item`` evaluated with ``var`` bound to each element of ``source``."""

    item: Expr
    var: str
    source: Expr


# ---------------------------------------------------------------- types
@dataclass(frozen=True)
class TypeExpr:
    loc: Loc
    scalar: "str | Expr"  # u8 u16 u32 u64, or the width expression of word(w)
    dims: tuple[Expr, ...]  # outermost first: u32[rounds][6]
    endian: str | None  # little / big / None


# ---------------------------------------------------------------- statements
@dataclass(frozen=True)
class Stmt:
    loc: Loc


@dataclass(frozen=True)
class Let(Stmt):
    name: str
    type: TypeExpr | None
    value: Expr
    mutable: bool


@dataclass(frozen=True)
class Assign(Stmt):
    target: str
    indices: tuple[Expr, ...]
    op: str  # = ^= &= |= += -= <<<= >>>=
    value: Expr


@dataclass(frozen=True)
class For(Stmt):
    var: str
    start: Expr
    stop: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]  # (condition, body) in order
    otherwise: tuple[Stmt, ...] | None


@dataclass(frozen=True)
class Return(Stmt):
    value: Expr


# ---------------------------------------------------------------- declarations
@dataclass(frozen=True)
class Param:
    loc: Loc
    name: str
    type: TypeExpr | None  # None: a fn parameter that takes any compile-time value (or array) as is


@dataclass(frozen=True)
class FnDecl:
    loc: Loc
    name: str
    params: tuple[Param, ...]
    ret: TypeExpr
    body: tuple[Stmt, ...]  # an expression-bodied fn is a single Return


@dataclass(frozen=True)
class KeySchedule:
    loc: Loc
    key_name: str
    outputs: tuple[Param, ...]
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class CipherFn:
    """``encrypt(X, rk) { ... }`` or ``decrypt(X, wk, dk) { ... }``."""

    loc: Loc
    kind: str  # encrypt / decrypt
    block_name: str
    keys_names: tuple[str, ...]  # the key_schedule outputs it reads
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class ConstDecl:
    loc: Loc
    name: str
    type: TypeExpr
    value: Expr


@dataclass(frozen=True)
class SboxDecl:
    loc: Loc
    name: str
    value: Expr


@dataclass
class Family:
    loc: Loc
    name: str
    params: tuple[str, ...]
    block: TypeExpr | None = None
    key: TypeExpr | None = None
    gf_poly: Expr | None = None
    consts: list[ConstDecl | SboxDecl] = field(default_factory=list)  # in source order
    fns: dict[str, FnDecl] = field(default_factory=dict)
    key_schedule: KeySchedule | None = None
    encrypt: CipherFn | None = None
    decrypt: CipherFn | None = None


@dataclass(frozen=True)
class CipherDef:
    loc: Loc
    name: str
    family: str
    args: tuple[tuple[str, Expr, Loc], ...]


@dataclass
class SpecFile:
    path: str
    lines: list[str]
    families: dict[str, Family]
    ciphers: list[CipherDef]
