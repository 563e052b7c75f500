"""Syntax tree -> IR: evaluates everything known at compile time, emits ops for the rest.

This is where loops are unrolled, compile-time ``if``s resolved, ``fn`` calls
inlined, array operations split into word operations and every semantic check
made (unknown names, width mismatches, table sizes, bijectivity, rotation
ranges).  Example — with ``rounds = 2``:

    for i in 0..rounds { X[0] = (X[0] ^ rk[i][0]) <<< 9; }
becomes
    %0 = input.u32 "X[0]"   %1 = input.u32 "rk[0][0]"   %2 = input.u32 "rk[1][0]"
    %3 = xor.u32 %0, %1     %4 = rotl.u32 %3, 9
    %5 = xor.u32 %4, %2     %6 = rotl.u32 %5, 9

Compile-time values are Python ints (and bools for conditions); run-time values
are ``Word``s (an IR value id and a width); arrays are ``Arr`` tuples of either;
constant arrays and S-boxes are ``ConstTable``s (indexed by an int they give a
constant, by a word they become a ``lut`` op).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from . import syntax as S
from .errors import Loc, SpecError
from .gf import gf_mul
from .ir import Function, KeyArray, Module, Op, Origin, Table, WordLayout, mask

MAX_OPS = 2_000_000  # per function: a runaway loop is an error, not a hang
MAX_ITERATIONS = 1_000_000
MAX_INT_BITS = 4096
MAX_CALL_DEPTH = 64


# ----------------------------------------------------------------------------- values
@dataclass(frozen=True)
class Word:
    vid: int
    width: int


@dataclass(frozen=True)
class Arr:
    items: tuple


@dataclass(frozen=True)
class ConstTable:
    name: str
    width: int  # element width
    values: tuple  # nested tuples of ints
    inverse_of: "ConstTable | None" = None


class _Unset:
    """A key-schedule output slot not yet assigned."""

    def __repr__(self):
        return "<unset>"


UNSET = _Unset()

BUILTINS = (
    "gmul",
    "inverse",
    "rotl_be",
    "rotr_be",
    "pack_le",
    "pack_be",
    "unpack_le",
    "unpack_be",
    "bitperm",
    "bitperm_le",
    "bitperm_be",
    "len",
    "u8",
    "u16",
    "u32",
    "u64",
)
SBOX_BITS = {16: 4, 256: 8}  # entries -> bits of an S-box: 4-bit S-boxes apply to every nibble of a word


def describe(v) -> str:
    """A short type description for error messages."""
    if type(v) is bool:
        return "a condition"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, Word):
        return f"u{v.width}"
    if isinstance(v, Arr):
        inner = describe(v.items[0]) if v.items else "nothing"
        return f"{inner}[{len(v.items)}]" if not inner.startswith("an") else f"array[{len(v.items)}] of {inner}s"
    if isinstance(v, ConstTable):
        return f"table {v.name}"
    if v is UNSET:
        return "an unassigned slot"
    return type(v).__name__


class _Return(Exception):
    def __init__(self, value):
        self.value = value


@dataclass
class _Binding:
    value: object
    mutable: bool
    typed: bool  # the slot keeps its type on assignment (block, outputs, annotated vars)


class _Scope:
    def __init__(self, parent: "_Scope | None" = None):
        self.parent = parent
        self.names: dict[str, _Binding] = {}

    def lookup(self, name: str) -> _Binding | None:
        s: _Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None


# ----------------------------------------------------------------------------- the lowering
class Lowering:
    """Lowers one family with concrete parameters into a Module.  Holds no global state."""

    def __init__(self, spec: S.SpecFile, family: S.Family, params: dict[str, int], cipher: str):
        self.spec = spec
        self.family = family
        self.params = params
        self.cipher = cipher
        self.tables: dict[str, Table] = {}
        self.ops: list[Op] = []
        self.where = ""
        self.round: int | None = None
        self.loop_depth = 0
        self.call_depth = 0
        self.iterations = 0
        self.gf_poly: int | None = None
        self.globals = _Scope()

    # -------------------------------------------------------------- errors and emission
    def error(self, loc: Loc, message: str) -> SpecError:
        line = self.spec.lines[loc.line - 1] if 1 <= loc.line <= len(self.spec.lines) else None
        return SpecError(loc, message, line)

    def emit(self, loc: Loc, code: str, width: int, args=(), imm=()) -> Word:
        if len(self.ops) >= MAX_OPS:
            raise self.error(loc, f"function grows beyond {MAX_OPS} operations (runaway loop?)")
        origin = Origin(loc.file, loc.line, loc.col, self.where, self.round)
        self.ops.append(Op(code, width, tuple(args), tuple(imm), origin))
        return Word(len(self.ops) - 1, width)

    def const(self, loc: Loc, value: int, width: int) -> Word:
        return self.emit(loc, "const", width, (), (value & mask(width),))

    def to_word(self, loc: Loc, v, width: int, what: str = "value") -> Word:
        """Coerce an int to a constant word of ``width``; check a word's width."""
        if type(v) is bool:
            raise self.error(loc, f"a condition cannot be used as a u{width} {what}")
        if isinstance(v, int):
            if not 0 <= v <= mask(width):
                raise self.error(loc, f"constant {v:#x} does not fit in u{width}")
            return self.const(loc, v, width)
        if isinstance(v, Word):
            if v.width != width:
                raise self.error(loc, f"width mismatch: expected u{width} {what}, got u{v.width}")
            return v
        raise self.error(loc, f"expected a u{width} {what}, got {describe(v)}")

    # -------------------------------------------------------------- the module
    def run(self) -> Module:
        fam = self.family
        for name, value in self.params.items():
            self.globals.names[name] = _Binding(value, False, False)
        if fam.gf_poly is not None:
            poly = self.eval_int(fam.gf_poly, self.globals, "the gf polynomial")
            if not 0x100 <= poly <= 0x1FF:
                raise self.error(fam.gf_poly.loc, f"gf polynomial {poly:#x} must have degree 8 (0x100..0x1ff)")
            self.gf_poly = poly
        for decl in fam.consts:
            self.globals.names[decl.name] = _Binding(self.lower_const(decl), False, False)
        for fn in fam.fns.values():
            if fn.name in BUILTINS:
                raise self.error(fn.loc, f"fn {fn.name} redefines a builtin")
        for part, what in (
            (fam.block, "block"),
            (fam.key, "key"),
            (fam.key_schedule, "key_schedule"),
            (fam.encrypt, "encrypt"),
            (fam.decrypt, "decrypt"),
        ):
            if part is None:
                raise self.error(
                    fam.loc,
                    f"family {fam.name} has no {what} (a family needs block, key, key_schedule, encrypt and decrypt)",
                )
        assert (
            fam.block is not None
            and fam.key is not None
            and fam.key_schedule is not None
            and fam.encrypt is not None
            and fam.decrypt is not None
        )  # checked just above
        block = self.layout(fam.block, "block")
        key = self.layout(fam.key, "key")
        functions: dict[str, Function] = {}
        key_arrays, functions["key_schedule"] = self.lower_key_schedule(fam.key_schedule, key)
        uses: dict[str, tuple[str, ...]] = {}
        for cf in (fam.encrypt, fam.decrypt):
            functions[cf.kind] = self.lower_cipher_fn(cf, block, key_arrays)
            uses[cf.kind] = cf.keys_names
        return Module(
            self.cipher,
            fam.name,
            dict(self.params),
            self.spec.path,
            block,
            key,
            key_arrays,
            dict(sorted(self.tables.items())),
            functions,
            uses,
        )

    def layout(self, t: S.TypeExpr, what: str) -> WordLayout:
        dims = [self.eval_int(d, self.globals, f"the {what} size") for d in t.dims]
        if len(dims) != 1:
            raise self.error(t.loc, f"the {what} must be a one-dimensional array of words, e.g. u32[4] little")
        if dims[0] < 1:
            raise self.error(t.loc, f"the {what} needs at least one word")
        width = self.width_of(t)
        if width > 8 and t.endian is None:
            raise self.error(t.loc, f"a u{width} {what} needs its byte order: 'u{width}[{dims[0]}] little' or 'big'")
        if width == 8 and t.endian is not None and isinstance(t.scalar, str):  # word(w) families may say it
            raise self.error(t.loc, f"byte order '{t.endian}' means nothing for a u8 {what}")
        return WordLayout(width, dims[0], t.endian or "little")

    def width_of(self, t: S.TypeExpr) -> int:
        """u8/u16/u32/u64, or word(w) with w a compile-time expression of the family's parameters."""
        if isinstance(t.scalar, str):
            return int(t.scalar[1:])
        w = self.eval_int(t.scalar, self.globals, "a word width")
        if w not in (8, 16, 32, 64):
            raise self.error(t.scalar.loc, f"word({w}): widths are 8, 16, 32 or 64")
        return w

    def shape(self, t: S.TypeExpr, scope: _Scope) -> tuple[int, ...]:
        dims = tuple(self.eval_int(d, scope, "an array size") for d in t.dims)
        for d, e in zip(dims, t.dims):
            if d < 1 or d > MAX_ITERATIONS:
                raise self.error(e.loc, f"array size {d} out of range")
        return dims

    def lower_const(self, decl):
        if isinstance(decl, S.SboxDecl):
            value = self.eval(decl.value, self.globals)
            if isinstance(value, ConstTable):
                table = ConstTable(decl.name, value.width, value.values, value.inverse_of)
            else:
                vals = self.const_values(decl.value.loc, value)
                if any(isinstance(x, tuple) for x in vals):
                    raise self.error(decl.loc, f"S-box {decl.name} must be a flat list of numbers")
                bits = SBOX_BITS.get(len(vals), 8)
                table = ConstTable(decl.name, bits, vals)
            if len(table.values) not in SBOX_BITS:
                raise self.error(
                    decl.loc,
                    f"S-box {decl.name} has {len(table.values)} entries; an S-box needs "
                    "exactly 256 (8-bit, indexed by a byte) or 16 (4-bit, applied to "
                    "every nibble of a word)",
                )
            if any(not 0 <= x < 1 << table.width for x in table.values):
                what = "a byte" if table.width == 8 else "4 bits"
                raise self.error(decl.loc, f"S-box {decl.name} has an entry that does not fit in {what}")
            return table
        if decl.type is None:  # an untyped const is a compile-time integer (or array of them)
            value = self.eval(decl.value, self.globals)
            self.const_values(decl.value.loc, value)
            return value
        shape = self.shape(decl.type, self.globals)
        if decl.type.endian is not None:
            raise self.error(decl.type.loc, "a const needs no byte order")
        value = self.eval(decl.value, self.globals)
        vals = self.const_values(decl.value.loc, value)
        self.check_shape(decl.loc, vals, shape, decl.name)
        flat = _flatten(vals)
        width = self.width_of(decl.type)
        if any(not 0 <= x <= mask(width) for x in flat):
            raise self.error(decl.loc, f"const {decl.name} has an entry that does not fit in u{width}")
        return ConstTable(decl.name, width, vals)

    def const_values(self, loc: Loc, value):
        if type(value) is bool:
            raise self.error(loc, "expected numbers, got a condition")
        if isinstance(value, int):
            return value
        if isinstance(value, Arr):
            return tuple(self.const_values(loc, v) for v in value.items)
        if isinstance(value, ConstTable):
            return value.values
        raise self.error(loc, f"a const must be known at compile time, got {describe(value)}")

    def check_shape(self, loc: Loc, vals, shape: tuple[int, ...], name: str):
        if not shape:
            if isinstance(vals, tuple):
                raise self.error(loc, f"{name}: expected a number, got a list")
            return
        if not isinstance(vals, tuple) or len(vals) != shape[0]:
            got = len(vals) if isinstance(vals, tuple) else "a number"
            raise self.error(loc, f"{name}: expected {shape[0]} entries, got {got}")
        for v in vals:
            self.check_shape(loc, v, shape[1:], name)

    # -------------------------------------------------------------- entry functions
    def start_function(self, name: str):
        self.ops = []
        self.where = name
        self.round = None
        self.loop_depth = 0

    def input_array(self, loc: Loc, name: str, width: int, shape: tuple[int, ...]):
        if not shape:
            return self.emit(loc, "input", width, (), (name,))
        return Arr(tuple(self.input_array(loc, f"{name}[{i}]", width, shape[1:]) for i in range(shape[0])))

    def lower_key_schedule(self, ks: S.KeySchedule, key: WordLayout):
        self.start_function("key_schedule")
        scope = _Scope(self.globals)
        scope.names[ks.key_name] = _Binding(
            self.input_array(ks.loc, ks.key_name, key.width, (key.count,)), False, False
        )
        arrays: list[KeyArray] = []
        for out in ks.outputs:
            if out.name in scope.names or self.globals.lookup(out.name):
                raise self.error(out.loc, f"output {out.name} clashes with another name")
            if out.type is None:
                raise self.error(
                    out.loc, f"key_schedule output {out.name} needs a type, e.g. {out.name}: u32[rounds][6]"
                )
            if out.type.endian is not None:
                raise self.error(out.type.loc, "round keys need no byte order")
            shape = self.shape(out.type, scope)
            arrays.append(KeyArray(out.name, self.width_of(out.type), shape))
            scope.names[out.name] = _Binding(_unset_array(shape), True, True)
        self.exec_body(ks.body, scope)
        outputs: list[tuple[str, int]] = []
        for arr, out in zip(arrays, ks.outputs):
            value = scope.names[arr.name].value
            for name, item in zip(arr.flat_names(), _flatten_values(value)):
                if item is UNSET:
                    raise self.error(out.loc, f"key_schedule never assigns {name}")
                outputs.append((name, self.to_word(out.loc, item, arr.width, name).vid))
        return arrays, Function("key_schedule", self.ops, outputs)

    def lower_cipher_fn(self, cf: S.CipherFn, block: WordLayout, key_arrays: list[KeyArray]) -> Function:
        self.start_function(cf.kind)
        by_name = {a.name: a for a in key_arrays}
        scope = _Scope(self.globals)
        state = self.input_array(cf.loc, cf.block_name, block.width, (block.count,))
        scope.names[cf.block_name] = _Binding(state, True, True)
        for name in cf.keys_names:
            if name not in by_name:
                raise self.error(
                    cf.loc,
                    f"{cf.kind} takes round keys '{name}', but key_schedule outputs "
                    + ", ".join(repr(n) for n in by_name),
                )
            if name in scope.names:
                raise self.error(cf.loc, f"'{name}' appears twice among {cf.kind}'s parameters")
            ka = by_name[name]
            scope.names[name] = _Binding(self.input_array(cf.loc, ka.name, ka.width, ka.shape), False, False)
        self.exec_body(cf.body, scope)
        final = scope.names[cf.block_name].value
        assert isinstance(final, Arr)  # the block binding is typed: assignments keep it an array
        outputs = [
            (f"{cf.block_name}[{i}]", self.to_word(cf.loc, w, block.width, "block word").vid)
            for i, w in enumerate(final.items)
        ]
        return Function(cf.kind, self.ops, outputs)

    # -------------------------------------------------------------- statements
    def exec_body(self, body, scope: _Scope):
        for stmt in body:
            self.exec_stmt(stmt, scope)

    def exec_stmt(self, st, scope: _Scope):
        if isinstance(st, S.Let):
            if scope.lookup(st.name) is not None:
                raise self.error(st.loc, f"'{st.name}' is already defined")
            value = self.eval(st.value, scope)
            typed = st.type is not None
            if st.type is not None:
                value = self.conform(st.loc, value, self.width_of(st.type), self.shape(st.type, scope), st.name)
            elif isinstance(value, Arr):
                value = Arr(value.items)  # arrays are values: copying the binding copies the array
            scope.names[st.name] = _Binding(value, st.mutable, typed)
        elif isinstance(st, S.Assign):
            self.exec_assign(st, scope)
        elif isinstance(st, S.For):
            start = self.eval_int(st.start, scope, "a loop bound")
            stop = self.eval_int(st.stop, scope, "a loop bound")
            outer = self.round is None  # the outermost loop, even inside a fn, numbers the rounds
            self.loop_depth += 1
            for i in range(start, stop):
                self.iterations += 1
                if self.iterations > MAX_ITERATIONS:
                    raise self.error(st.loc, f"more than {MAX_ITERATIONS} loop iterations")
                if outer:
                    self.round = i
                inner = _Scope(scope)
                inner.names[st.var] = _Binding(i, False, False)
                self.exec_body(st.body, inner)
            self.loop_depth -= 1
            if outer:
                self.round = None
        elif isinstance(st, S.If):
            for cond, body in st.branches:
                if self.eval_cond(cond, scope):
                    self.exec_body(body, _Scope(scope))
                    return
            if st.otherwise is not None:
                self.exec_body(st.otherwise, _Scope(scope))
        elif isinstance(st, S.Return):
            if self.call_depth == 0:
                raise self.error(st.loc, "return is only allowed inside fn")
            raise _Return(self.eval(st.value, scope))
        else:  # pragma: no cover
            raise self.error(st.loc, f"internal: unknown statement {type(st).__name__}")

    def exec_assign(self, st: S.Assign, scope: _Scope):
        b = scope.lookup(st.target)
        if b is None:
            raise self.error(st.loc, f"unknown name '{st.target}'")
        if not b.mutable:
            raise self.error(
                st.loc, f"cannot assign to '{st.target}' (only var, the block and key_schedule outputs can change)"
            )
        idx = [self.eval_int(e, scope, "an index") for e in st.indices]
        old = b.value
        # walk to the slot
        path_vals = [old]
        for i, e in zip(idx, st.indices):
            cur = path_vals[-1]
            if not isinstance(cur, Arr):
                raise self.error(e.loc, f"cannot index {describe(cur)}")
            if not 0 <= i < len(cur.items):
                raise self.error(e.loc, f"index {i} out of range for {st.target} (length {len(cur.items)})")
            path_vals.append(cur.items[i])
        slot = path_vals[-1]
        value = self.eval(st.value, scope)
        if st.op != "=":
            if slot is UNSET:
                raise self.error(st.loc, f"'{st.op}' on a slot that was never assigned")
            value = self.binop(st.loc, st.op[:-1], slot, value)
        if slot is not UNSET or b.typed:
            value = self.conform_like(st.loc, value, slot, st.target)
        # rebuild the path
        for k in range(len(idx) - 1, -1, -1):
            items = list(cast(Arr, path_vals[k]).items)  # the walk above checked every step is an array
            items[idx[k]] = value
            value = Arr(tuple(items))
        b.value = value

    def conform(self, loc: Loc, value, width: int, shape: tuple[int, ...], name: str):
        """Make ``value`` a u{width} array of ``shape`` (ints become constants) or fail."""
        if not shape:
            return self.to_word(loc, value, width, f"for {name}")
        if not isinstance(value, Arr) or len(value.items) != shape[0]:
            raise self.error(loc, f"{name}: expected u{width}[{shape[0]}]..., got {describe(value)}")
        return Arr(tuple(self.conform(loc, v, width, shape[1:], name) for v in value.items))

    def conform_like(self, loc: Loc, value, like, name: str):
        """Assignment keeps a slot's type: same shape, same width (ints coerced to the width)."""
        if like is UNSET:
            return value
        if isinstance(like, Arr):
            if not isinstance(value, Arr) or len(value.items) != len(like.items):
                raise self.error(loc, f"cannot assign {describe(value)} to {name}, which is {describe(like)}")
            return Arr(tuple(self.conform_like(loc, v, l, name) for v, l in zip(value.items, like.items)))
        if isinstance(like, Word):
            return self.to_word(loc, value, like.width, f"for {name}")
        if (
            type(like) is bool
            or type(value) is bool
            or isinstance(value, (Word, Arr, ConstTable)) != isinstance(like, (Word, Arr, ConstTable))
        ):
            raise self.error(loc, f"cannot assign {describe(value)} to {name}, which is {describe(like)}")
        return value

    # -------------------------------------------------------------- expressions
    def eval_int(self, e: S.Expr, scope: _Scope, what: str) -> int:
        v = self.eval(e, scope)
        if type(v) is bool or not isinstance(v, int):
            raise self.error(e.loc, f"{what} must be a compile-time integer, got {describe(v)}")
        return v

    def eval_cond(self, e: S.Expr, scope: _Scope) -> bool:
        v = self.eval(e, scope)
        if type(v) is not bool:
            raise self.error(e.loc, f"a condition must be a compile-time comparison, got {describe(v)}")
        return v

    def eval(self, e: S.Expr, scope: _Scope):
        if isinstance(e, S.Num):
            return e.value
        if isinstance(e, S.Name):
            b = scope.lookup(e.ident)
            if b is None:
                if e.ident in self.family.fns or e.ident in BUILTINS:
                    raise self.error(e.loc, f"'{e.ident}' is a function; call it")
                raise self.error(e.loc, f"unknown name '{e.ident}'")
            if b.value is UNSET:
                raise self.error(e.loc, f"'{e.ident}' is read before it is assigned")
            return b.value
        if isinstance(e, S.BinOp):
            if e.op in ("and", "or"):
                left = self.eval_cond(e.left, scope)
                if e.op == "and":
                    return left and self.eval_cond(e.right, scope)
                return left or self.eval_cond(e.right, scope)
            return self.binop(e.loc, e.op, self.eval(e.left, scope), self.eval(e.right, scope))
        if isinstance(e, S.UnOp):
            if e.op == "not":
                return not self.eval_cond(e.operand, scope)
            if e.op == "-":
                return self.negate(e.loc, self.eval(e.operand, scope))
            return self.bitnot(e.loc, self.eval(e.operand, scope))
        if isinstance(e, S.Index):
            return self.index(e, self.eval(e.base, scope), self.eval(e.index, scope))
        if isinstance(e, S.Call):
            return self.call(e, scope)
        if isinstance(e, S.ArrayLit):
            items = tuple(self.eval(x, scope) for x in e.items)
            for x, item in zip(e.items, items):
                if item is UNSET:
                    raise self.error(x.loc, "an unassigned slot cannot be copied")
            return Arr(items)
        if isinstance(e, S.Comprehension):
            start = self.eval_int(e.start, scope, "a comprehension bound")
            stop = self.eval_int(e.stop, scope, "a comprehension bound")
            if scope.lookup(e.var) is not None:
                raise self.error(e.loc, f"'{e.var}' is already defined")
            elems = []
            for i in range(start, stop):
                self.iterations += 1
                if self.iterations > MAX_ITERATIONS:
                    raise self.error(e.loc, f"more than {MAX_ITERATIONS} loop iterations")
                inner = _Scope(scope)
                inner.names[e.var] = _Binding(i, False, False)
                elems.append(self.eval(e.item, inner))
            return Arr(tuple(elems))
        if isinstance(e, S.EachComprehension):
            source = self.eval(e.source, scope)
            if isinstance(source, ConstTable):
                source = _table_array(source)
            if not isinstance(source, Arr):
                raise self.error(
                    e.source.loc,
                    f"'for {e.var} in ...' needs an array, got {describe(source)} (or a range: for {e.var} in 0..n)",
                )
            if scope.lookup(e.var) is not None:
                raise self.error(e.loc, f"'{e.var}' is already defined")
            elems = []
            for x in source.items:
                if x is UNSET:
                    raise self.error(e.source.loc, "an unassigned slot cannot be read")
                inner = _Scope(scope)
                inner.names[e.var] = _Binding(x, False, False)
                elems.append(self.eval(e.item, inner))
            return Arr(tuple(elems))
        raise self.error(e.loc, f"internal: unknown expression {type(e).__name__}")  # pragma: no cover

    def negate(self, loc: Loc, v):
        """-x: an integer's negation, or 0 - x mod 2^w for a word."""
        if type(v) is bool:
            raise self.error(loc, "'-' cannot take a condition")
        if isinstance(v, int):
            return -v
        if isinstance(v, Word):
            return self.emit(loc, "sub", v.width, (self.const(loc, 0, v.width).vid, v.vid))
        if isinstance(v, Arr):
            return Arr(tuple(self.negate(loc, x) for x in v.items))
        raise self.error(loc, f"'-' cannot take {describe(v)}")

    def bitnot(self, loc: Loc, v):
        if isinstance(v, Word):
            return self.emit(loc, "not", v.width, (v.vid,))
        if isinstance(v, Arr):
            return Arr(tuple(self.bitnot(loc, x) for x in v.items))
        raise self.error(
            loc, f"'~' needs a word (an integer has no width: write u8(~x) or a hex mask), got {describe(v)}"
        )

    _INT_OPS: dict[str, Callable[[int, int], int]] = {  # comparisons give bool, an int
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "^": lambda a, b: a ^ b,
        "&": lambda a, b: a & b,
        "|": lambda a, b: a | b,
        "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }
    _WORD_OPS = {"^": "xor", "&": "and", "|": "or", "+": "add", "-": "sub"}

    def binop(self, loc: Loc, op: str, a, b):
        if type(a) is bool or type(b) is bool:
            if op in ("==", "!=") and type(a) is bool and type(b) is bool:
                return (a == b) if op == "==" else (a != b)
            raise self.error(loc, f"'{op}' cannot take a condition (use and/or/not)")
        if isinstance(a, ConstTable) and isinstance(b, Arr):
            a = _table_array(a)  # a const array is a value too: MK ^ FK, element by element
        if isinstance(b, ConstTable) and isinstance(a, Arr):
            b = _table_array(b)
        if isinstance(a, Arr) or isinstance(b, Arr):
            if op in ("<<<", ">>>", "<<", ">>"):
                raise self.error(
                    loc,
                    f"'{op}' on an array: rotate each element in a comprehension, or the "
                    "whole array with rotl_be/rotr_be",
                )
            if not (isinstance(a, Arr) and isinstance(b, Arr)):
                raise self.error(
                    loc,
                    f"'{op}' between {describe(a)} and {describe(b)}: both sides must be "
                    "arrays of the same length (or index the array)",
                )
            if len(a.items) != len(b.items):
                raise self.error(loc, f"'{op}' between arrays of lengths {len(a.items)} and {len(b.items)}")
            return Arr(tuple(self.binop(loc, op, x, y) for x, y in zip(a.items, b.items)))
        if isinstance(a, ConstTable) or isinstance(b, ConstTable):
            t = a if isinstance(a, ConstTable) else b
            other = b if t is a else a
            raise self.error(
                loc,
                f"'{op}' between table {t.name} and {describe(other)}: index the table first "
                f"({t.name}[x]), or combine it element by element with an array of "
                f"{len(t.values)} words",
            )
        if isinstance(a, int) and isinstance(b, int):
            return self.int_binop(loc, op, a, b)
        # at least one word
        if op in ("<<<", ">>>", "<<", ">>"):
            if not isinstance(a, Word):
                raise self.error(loc, f"'{op}' needs a word on the left, got {describe(a)}")
            if not isinstance(b, int):
                raise self.error(
                    loc,
                    f"a {'rotation' if len(op) == 3 else 'shift'} amount must be a compile-time "
                    f"integer, got {describe(b)}",
                )
            w = a.width
            if not 0 <= b < w:
                kind = "rotation" if len(op) == 3 else "shift"
                raise self.error(loc, f"{kind} by {b} is out of range for u{w} (0..{w - 1})")
            if b == 0:
                return a
            if op == "<<<":
                return self.emit(loc, "rotl", w, (a.vid,), (b,))
            if op == ">>>":
                return self.emit(loc, "rotl", w, (a.vid,), (w - b,))
            return self.emit(loc, "shl" if op == "<<" else "shr", w, (a.vid,), (b,))
        if op not in self._WORD_OPS:
            if op in ("*", "/", "%"):
                raise self.error(loc, f"'{op}' is not defined on words (GF(2^8) multiplication is gmul(x, c))")
            raise self.error(
                loc, f"'{op}' compares compile-time values; {describe(a)} {op} {describe(b)} is only known at run time"
            )
        if isinstance(a, Word) and isinstance(b, Word) and a.width != b.width:
            raise self.error(
                loc, f"width mismatch: u{a.width} {op} u{b.width} (convert one side with u8(), u32(), ...)"
            )
        width = a.width if isinstance(a, Word) else b.width
        wa = self.to_word(loc, a, width, "operand")
        wb = self.to_word(loc, b, width, "operand")
        return self.emit(loc, self._WORD_OPS[op], width, (wa.vid, wb.vid))

    def int_binop(self, loc: Loc, op: str, a: int, b: int):
        if op in self._INT_OPS:
            r = self._INT_OPS[op](a, b)
        elif op in ("/", "%"):
            if b == 0:
                raise self.error(loc, "division by zero")
            r = a // b if op == "/" else a % b
        elif op in ("<<", ">>"):
            if not 0 <= b <= MAX_INT_BITS:
                raise self.error(loc, f"shift by {b} is out of range")
            r = a << b if op == "<<" else a >> b
        else:
            raise self.error(
                loc, f"'{op}' needs a word with a width; {a} is an untyped integer (write u8({a}) or u32({a}))"
            )
        if type(r) is not bool and abs(r).bit_length() > MAX_INT_BITS:
            raise self.error(loc, "compile-time integer grows too large")
        return r

    def index(self, e: S.Index, base, idx):
        if isinstance(base, Arr):
            if type(idx) is bool or not isinstance(idx, int):
                raise self.error(
                    e.index.loc,
                    f"an array index must be a compile-time integer, got {describe(idx)} "
                    "(only tables can be indexed at run time)",
                )
            if not 0 <= idx < len(base.items):
                raise self.error(e.index.loc, f"index {idx} out of range (length {len(base.items)})")
            item = base.items[idx]
            if item is UNSET:
                raise self.error(e.loc, "read of a round-key slot before it is assigned")
            return item
        if isinstance(base, ConstTable):
            if isinstance(idx, int) and type(idx) is not bool:
                if not 0 <= idx < len(base.values):
                    raise self.error(
                        e.index.loc, f"index {idx} out of range for {base.name} (length {len(base.values)})"
                    )
                item = base.values[idx]
                if isinstance(item, tuple):
                    return ConstTable(f"{base.name}[{idx}]", base.width, item)
                return self.const(e.loc, item, base.width)
            if isinstance(idx, Word):
                return self.lookup(e, base, idx)
            raise self.error(e.index.loc, f"cannot index a table with {describe(idx)}")
        raise self.error(e.loc, f"cannot index {describe(base)}")

    def lookup(self, e: S.Index, table: ConstTable, idx: Word) -> Word:
        if any(isinstance(v, tuple) for v in table.values):
            raise self.error(e.loc, f"table {table.name} has more than one dimension; index it with constants first")
        if table.width == 4:
            return self.nibble_lookup(e, table, idx)
        if len(table.values) != 1 << idx.width:
            raise self.error(
                e.loc,
                f"table {table.name} has {len(table.values)} entries but is indexed by a "
                f"u{idx.width} ({1 << idx.width} values)",
            )
        self.register_table(e.loc, table, idx.width)
        return self.emit(e.loc, "lut", table.width, (idx.vid,), (table.name,))

    def nibble_lookup(self, e: S.Index, table: ConstTable, x: Word) -> Word:
        """A 4-bit S-box on every nibble of a word: per byte, ``lut(b & 15) | lut(b >> 4) << 4`` (the lut of a
        4-bit table takes a u8 below 16 and gives a u8 below 16); wider words are split into bytes first.

            S4[x] (x: u8)  ->  %1 = and.u8 %0, 15   %2 = lut.u8 @S4 %1   %3 = shr.u8 %0, 4
                               %4 = lut.u8 @S4 %3   %5 = shl.u8 %4, 4    %6 = or.u8 %2, %5"""
        self.register_table(e.loc, table, 4)
        loc = e.loc
        if x.width > 8:
            acc = None
            for k in range(x.width // 8):
                b = self.emit(loc, "shr", x.width, (x.vid,), (8 * k,)) if k else x
                y = self.nibble_lookup(e, table, self.emit(loc, "trunc", 8, (b.vid,)))
                z = self.emit(loc, "zext", x.width, (y.vid,))
                if k:
                    z = self.emit(loc, "shl", x.width, (z.vid,), (8 * k,))
                acc = z if acc is None else self.emit(loc, "or", x.width, (acc.vid, z.vid))
            assert acc is not None  # a word wider than 8 bits has at least two bytes
            return acc
        lo = self.emit(loc, "and", 8, (x.vid, self.const(loc, 0xF, 8).vid))
        hi = self.emit(loc, "shr", 8, (x.vid,), (4,))
        lo = self.emit(loc, "lut", 8, (lo.vid,), (table.name,))
        hi = self.emit(loc, "lut", 8, (hi.vid,), (table.name,))
        hi = self.emit(loc, "shl", 8, (hi.vid,), (4,))
        return self.emit(loc, "or", 8, (lo.vid, hi.vid))

    def register_table(self, loc: Loc, table: ConstTable, in_width: int) -> None:
        """Adds a table to the module (a derived inverse brings its base along, for the exhaustive check)."""
        base = table.inverse_of
        if base is not None:
            self.register_table(loc, base, in_width)
        known = self.tables.get(table.name)
        if known is None:
            self.tables[table.name] = Table(
                table.name, in_width, max(table.width, 8), tuple(table.values), base.name if base is not None else None
            )
        elif known.values != tuple(table.values):  # pragma: no cover - names are unique per family
            raise self.error(loc, f"internal: two tables named {table.name}")

    # -------------------------------------------------------------- calls
    def call(self, e: S.Call, scope: _Scope):
        if e.func in self.family.fns:
            return self.call_user(e, self.family.fns[e.func], scope)
        handler = getattr(self, f"builtin_{e.func}", None)
        if handler is None:
            raise self.error(e.loc, f"unknown function '{e.func}'")
        return handler(e, [self.eval(a, scope) for a in e.args])

    def call_user(self, e: S.Call, fn: S.FnDecl, scope: _Scope):
        if len(e.args) != len(fn.params):
            raise self.error(e.loc, f"{fn.name} takes {len(fn.params)} arguments, got {len(e.args)}")
        if self.call_depth >= MAX_CALL_DEPTH:
            raise self.error(e.loc, f"calls nested deeper than {MAX_CALL_DEPTH} (recursion?)")
        inner = _Scope(self.globals)
        for p, a in zip(fn.params, e.args):
            value = self.eval(a, scope)
            if p.type is not None:
                value = self.conform(
                    a.loc,
                    value,
                    self.width_of(p.type),
                    self.shape(p.type, self.globals),
                    f"argument {p.name} of {fn.name}",
                )
            elif value is UNSET:  # pragma: no cover - reads of unset slots fail earlier
                raise self.error(a.loc, "an unassigned slot cannot be passed")
            inner.names[p.name] = _Binding(value, False, True)
        saved_where, saved_depth = self.where, self.loop_depth
        self.where = f"{self.where}>{fn.name}"
        self.call_depth += 1
        self.loop_depth = 0
        try:
            self.exec_body(fn.body, inner)
        except _Return as r:
            result = r.value
        else:
            raise self.error(fn.loc, f"fn {fn.name} ends without return")
        finally:
            self.where, self.call_depth, self.loop_depth = saved_where, self.call_depth - 1, saved_depth
        return self.conform(
            e.loc, result, self.width_of(fn.ret), self.shape(fn.ret, self.globals), f"result of {fn.name}"
        )

    def _args(self, e: S.Call, args: list, n: int):
        if len(args) != n:
            raise self.error(e.loc, f"{e.func} takes {n} argument{'s' if n != 1 else ''}, got {len(args)}")
        return args

    def _words(self, e: S.Call, v, what: str) -> list[Word]:
        if not isinstance(v, Arr) or not v.items or not all(isinstance(x, Word) for x in v.items):
            raise self.error(e.loc, f"{e.func} needs {what}, got {describe(v)}")
        widths = {x.width for x in v.items}
        if len(widths) != 1:
            raise self.error(e.loc, f"{e.func}: the array mixes widths {sorted(widths)}")
        return list(v.items)

    def builtin_gmul(self, e: S.Call, args):
        x, c = self._args(e, args, 2)
        if self.gf_poly is None:
            raise self.error(
                e.loc, "gmul needs the field: declare 'gf 0x11b;' (the reduction polynomial) in the family"
            )
        if type(c) is bool or not isinstance(c, int) or not 0 <= c <= 0xFF:
            raise self.error(e.args[1].loc, "gmul's constant must be a compile-time integer 0..255")
        if isinstance(x, Arr):
            return Arr(tuple(self.builtin_gmul(e, [v, c]) for v in x.items))
        if isinstance(x, int) and type(x) is not bool:
            if not 0 <= x <= 0xFF:
                raise self.error(e.args[0].loc, f"gmul operand {x:#x} does not fit in a byte")
            return gf_mul(x, c, self.gf_poly)
        w = self.to_word(e.args[0].loc, x, 8, "gmul operand")
        if c == 1:
            return w
        if c == 0:
            return self.const(e.loc, 0, 8)
        return self.emit(e.loc, "gmul", 8, (w.vid,), (c, self.gf_poly))

    def builtin_inverse(self, e: S.Call, args):
        (t,) = self._args(e, args, 1)
        if not isinstance(t, ConstTable) or any(isinstance(v, tuple) for v in t.values):
            raise self.error(e.loc, f"inverse needs an S-box, got {describe(t)}")
        n = len(t.values)
        if n != 1 << t.width or sorted(t.values) != list(range(n)):
            seen: dict[int, int] = {}
            for i, v in enumerate(t.values):
                if v in seen:
                    raise self.error(
                        e.loc,
                        f"S-box {t.name} is not a permutation ({t.name}[{seen[v]}] = "
                        f"{t.name}[{i}] = {v:#04x}), so it has no inverse",
                    )
                seen[v] = i
            raise self.error(
                e.loc, f"S-box {t.name} is not a permutation of 0..{(1 << t.width) - 1}, so it has no inverse"
            )
        inv = [0] * n
        for i, v in enumerate(t.values):
            inv[v] = i
        return ConstTable(f"{t.name}_inv", t.width, tuple(inv), inverse_of=t)

    def _rot_be(self, e: S.Call, args, left: bool):
        arr, n = self._args(e, args, 2)
        words = self._words(e, arr, "an array of words")
        w, length = words[0].width, len(words)
        total = w * length
        if type(n) is bool or not isinstance(n, int) or not 0 <= n < total:
            raise self.error(e.args[1].loc, f"{e.func} amount must be a compile-time integer in 0..{total - 1}")
        n = n if left else (total - n) % total
        q, r = divmod(n, w)
        out = []
        for j in range(length):
            hi = words[(j + q) % length]
            if r == 0:
                out.append(hi)
                continue
            lo = words[(j + q + 1) % length]
            a = self.emit(e.loc, "shl", w, (hi.vid,), (r,))
            b = self.emit(e.loc, "shr", w, (lo.vid,), (w - r,))
            out.append(self.emit(e.loc, "or", w, (a.vid, b.vid)))
        return Arr(tuple(out))

    def builtin_rotl_be(self, e, args):
        return self._rot_be(e, args, True)

    def builtin_rotr_be(self, e, args):
        return self._rot_be(e, args, False)

    def _pack(self, e: S.Call, args, little: bool):
        (arr,) = self._args(e, args, 1)
        words = self._words(e, arr, "an array of words")
        w = words[0].width
        total = w * len(words)
        if total not in (16, 32, 64):
            raise self.error(e.loc, f"{e.func} makes a u{total}; only u16, u32 and u64 exist")
        order = words if little else list(reversed(words))
        acc = None
        for k, x in enumerate(order):
            z = self.emit(e.loc, "zext", total, (x.vid,))
            if k:
                z = self.emit(e.loc, "shl", total, (z.vid,), (k * w,))
            acc = z if acc is None else self.emit(e.loc, "or", total, (acc.vid, z.vid))
        return acc

    def builtin_pack_le(self, e, args):
        return self._pack(e, args, True)

    def builtin_pack_be(self, e, args):
        return self._pack(e, args, False)

    def _unpack(self, e: S.Call, args, little: bool):
        x, n = self._args(e, args, 2)
        if not isinstance(x, Word):
            raise self.error(e.args[0].loc, f"{e.func} needs a word, got {describe(x)}")
        if type(n) is bool or not isinstance(n, int) or n < 2 or x.width % n or x.width // n not in (8, 16, 32):
            raise self.error(e.args[1].loc, f"{e.func}: cannot split u{x.width} into {n} equal words")
        w = x.width // n
        parts = []
        for k in range(n):
            v = self.emit(e.loc, "shr", x.width, (x.vid,), (k * w,)) if k else x
            parts.append(self.emit(e.loc, "trunc", w, (v.vid,)))
        return Arr(tuple(parts if little else reversed(parts)))

    def builtin_unpack_le(self, e, args):
        return self._unpack(e, args, True)

    def builtin_unpack_be(self, e, args):
        return self._unpack(e, args, False)

    def _perm(self, e: S.Call, p, n: int) -> list[int]:
        """The bit permutation argument: n distinct compile-time integers 0..n-1."""
        if isinstance(p, ConstTable):
            p = _table_array(p)
        if not isinstance(p, Arr) or any(type(v) is bool or not isinstance(v, int) for v in p.items):
            raise self.error(e.args[1].loc, f"{e.func} needs a compile-time array of bit positions, got {describe(p)}")
        perm = list(p.items)
        if len(perm) != n:
            raise self.error(
                e.args[1].loc, f"{e.func}: the permutation has {len(perm)} entries, the value has {n} bits"
            )
        seen: dict[int, int] = {}
        for i, v in enumerate(perm):
            if not 0 <= v < n:
                raise self.error(e.args[1].loc, f"{e.func}: entry {i} is {v}, not a bit position 0..{n - 1}")
            if v in seen:
                raise self.error(e.args[1].loc, f"{e.func}: not a permutation (entries {seen[v]} and {i} are both {v})")
            seen[v] = i
        return perm

    def _bitperm(self, e: S.Call, words: list[Word], perm: list[int], where) -> list[Word]:
        """Output bit perm[i] = input bit i; ``where(i)`` = (word, bit) of bit i of the whole value.

        Lowered to rotations and masks, one group per (source word, target word, rotation):
            bitperm(x: u8, [1, 2, 3, 0, 5, 6, 7, 4])  ->  %1 = rotl.u8 %0, 1   %2 = and.u8 %1, 0xee
                                                          %3 = rotl.u8 %0, 5   %4 = and.u8 %3, 0x11   %5 = or %2, %4
        On bit planes (the bitsliced schedule) every group folds into plane renaming."""
        w = words[0].width
        groups: dict[tuple[int, int, int], int] = {}
        for i, p in enumerate(perm):
            (sw, sb), (dw, db) = where(i), where(p)
            key = (dw, sw, (db - sb) % w)
            groups[key] = groups.get(key, 0) | 1 << db
        out: list[Word | None] = [None] * len(words)
        for (dw, sw, r), m in sorted(groups.items()):
            v = words[sw]
            if r:
                v = self.emit(e.loc, "rotl", w, (v.vid,), (r,))
            if m != mask(w):
                v = self.emit(e.loc, "and", w, (v.vid, self.const(e.loc, m, w).vid))
            prev = out[dw]
            out[dw] = v if prev is None else self.emit(e.loc, "or", w, (prev.vid, v.vid))
        return [x for x in out if x is not None]

    def builtin_bitperm(self, e, args):
        x, p = self._args(e, args, 2)
        if isinstance(x, Arr):
            raise self.error(
                e.args[0].loc,
                "bitperm permutes the bits of one word; for an array say how its "
                "bits are numbered: bitperm_be(X, P) (X as one big-endian integer, "
                "bit 0 = lowest bit of the last word) or bitperm_le(X, P)",
            )
        if not isinstance(x, Word):
            raise self.error(e.args[0].loc, f"bitperm needs a word, got {describe(x)}")
        perm = self._perm(e, p, x.width)
        return self._bitperm(e, [x], perm, lambda i: (0, i))[0]

    def _bitperm_array(self, e, args, big: bool):
        x, p = self._args(e, args, 2)
        words = self._words(e, x, "an array of words")
        n, w = len(words), words[0].width
        perm = self._perm(e, p, n * w)
        if big:
            return Arr(tuple(self._bitperm(e, words, perm, lambda i: (n - 1 - i // w, i % w))))
        return Arr(tuple(self._bitperm(e, words, perm, lambda i: (i // w, i % w))))

    def builtin_bitperm_be(self, e, args):
        return self._bitperm_array(e, args, True)

    def builtin_bitperm_le(self, e, args):
        return self._bitperm_array(e, args, False)

    def builtin_len(self, e, args):
        (a,) = self._args(e, args, 1)
        if isinstance(a, Arr):
            return len(a.items)
        if isinstance(a, ConstTable):
            return len(a.values)
        raise self.error(e.loc, f"len needs an array, got {describe(a)}")

    def _cast(self, e: S.Call, args, width: int):
        (x,) = self._args(e, args, 1)
        if isinstance(x, Arr):
            return Arr(tuple(self._cast(e, [v], width) for v in x.items))
        if type(x) is bool:
            raise self.error(e.loc, f"cannot convert a condition to u{width}")
        if isinstance(x, int):
            return self.const(e.loc, x, width)  # an explicit cast of an integer keeps its low bits
        if not isinstance(x, Word):
            raise self.error(e.loc, f"cannot convert {describe(x)} to u{width}")
        if x.width == width:
            return x
        return self.emit(e.loc, "zext" if width > x.width else "trunc", width, (x.vid,))

    def builtin_u8(self, e, args):
        return self._cast(e, args, 8)

    def builtin_u16(self, e, args):
        return self._cast(e, args, 16)

    def builtin_u32(self, e, args):
        return self._cast(e, args, 32)

    def builtin_u64(self, e, args):
        return self._cast(e, args, 64)


# ----------------------------------------------------------------------------- helpers
def _unset_array(shape: tuple[int, ...]):
    if not shape:
        return UNSET
    return Arr(tuple(_unset_array(shape[1:]) for _ in range(shape[0])))


def _table_array(t: ConstTable) -> Arr:
    """A const array as an array value of compile-time integers (they take the other operand's width)."""
    return Arr(tuple(_table_array(ConstTable(t.name, t.width, v)) if isinstance(v, tuple) else v for v in t.values))


def _flatten(vals) -> list[int]:
    if isinstance(vals, tuple):
        return [x for v in vals for x in _flatten(v)]
    return [vals]


def _flatten_values(v) -> list:
    if isinstance(v, Arr):
        return [x for item in v.items for x in _flatten_values(item)]
    return [v]


def lower(spec: S.SpecFile, cipher: S.CipherDef, rounds: int | None = None) -> Module:
    """Lower the variant ``cipher`` of ``spec`` (optionally with another round count) to IR."""
    family = spec.families.get(cipher.family)
    lines = spec.lines

    def err(loc: Loc, msg: str) -> SpecError:
        return SpecError(loc, msg, lines[loc.line - 1] if 1 <= loc.line <= len(lines) else None)

    if family is None:
        raise err(cipher.loc, f"unknown family '{cipher.family}'")
    params: dict[str, int] = {}
    for name, expr, loc in cipher.args:
        if name not in family.params:
            raise err(loc, f"family {family.name} has no parameter '{name}' (it has: {', '.join(family.params)})")
        if name in params:
            raise err(loc, f"parameter '{name}' given twice")
        value = Lowering(spec, family, {}, cipher.name).eval(expr, _Scope())
        if type(value) is bool or not isinstance(value, int):
            raise err(expr.loc, f"parameter '{name}' must be an integer")
        params[name] = value
    missing = [p for p in family.params if p not in params]
    if missing:
        raise err(cipher.loc, f"{cipher.name} does not set {', '.join(missing)}")
    if rounds is not None:
        if "rounds" not in family.params:
            raise err(cipher.loc, f"family {family.name} has no 'rounds' parameter to override")
        params["rounds"] = rounds
    if "rounds" in params and params["rounds"] < 1:
        raise err(cipher.loc, f"rounds must be at least 1, got {params['rounds']}")
    low = Lowering(spec, family, params, cipher.name)
    try:
        return low.run()
    except RecursionError:
        raise err(cipher.loc, "expressions nested too deeply") from None
