"""Text -> syntax tree.  ``parse_text(text, path)`` returns a ``SpecFile`` or raises ``SpecError``.

The lark grammar lives in grammar.lark (LALR, positions propagated).  The
transformer below has one method per grammar rule and refuses any rule it does
not know, so a grammar change cannot silently produce a half-built tree.
"""

from __future__ import annotations

import functools
from pathlib import Path

import lark
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import syntax as S
from .errors import Loc, SpecError

_GRAMMAR = Path(__file__).with_name("grammar.lark")

# Readable names for the grammar's terminals in "expected ..." messages.
_PRETTY = {
    "NAME": "a name",
    "NUMBER": "a number",
    "SCALAR": "a type (u8/u16/u32/u64)",
    "ENDIAN": "'little' or 'big'",
    "CMP_OP": "a comparison",
    "OR_OP": "'|'",
    "XOR_OP": "'^'",
    "AND_OP": "'&'",
    "PLUS_OP": "'+'",
    "MINUS_OP": "'-'",
    "SHIFT_OP": "a shift or rotation",
    "MUL_OP": "'*', '/' or '%'",
    "ASSIGN_OP": "'=' or an update such as '^='",
    "$END": "end of file",
}


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(_GRAMMAR.read_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


def _terminal_text(parser: Lark, name: str) -> str:
    if name in _PRETTY:
        return _PRETTY[name]
    try:
        pattern = parser.get_terminal(name).pattern
    except KeyError:
        return name
    if isinstance(pattern, lark.lexer.PatternStr):
        return repr(pattern.value)
    return name.lower()


def _expected(parser: Lark, names) -> str:
    items = sorted({_terminal_text(parser, n) for n in names})
    if not items:
        return ""
    if len(items) > 8:
        items = items[:8] + ["..."]
    return "; expected " + ", ".join(items)


class _Builder(Transformer):
    """Builds syntax.* objects from the lark tree.  Unknown rules are refused."""

    def __init__(self, path: str):
        super().__init__(visit_tokens=False)
        self.path = path

    def __default__(self, data, children, meta):  # pragma: no cover - grammar/transformer drift
        raise SpecError(self._loc(meta), f"internal: no transformer for grammar rule {data!r}")

    def _loc(self, meta) -> Loc:
        if meta is None or getattr(meta, "empty", True):
            return Loc(self.path, 0, 0)
        return Loc(self.path, meta.line, meta.column)

    def _tok_loc(self, tok: Token) -> Loc:
        return Loc(self.path, tok.line or 0, tok.column or 0)  # lark sets both on every parsed token

    # ------------------------------------------------------------ expressions
    @v_args(meta=True)
    def number(self, meta, ch):
        text = str(ch[0])
        try:
            value = int(text, 0)  # Python's rules: 0x.., 0b.., underscores between digits, no leading zeros
        except ValueError:
            raise SpecError(self._loc(meta), f"malformed number {text!r}") from None
        return S.Num(self._loc(meta), value)

    @v_args(meta=True)
    def name(self, meta, ch):
        return S.Name(self._loc(meta), str(ch[0]))

    def _bin(self, meta, ch, op=None):
        """left OP right: the location is the operator's (where a caret helps most)."""
        left, op_tok, right = ch
        return S.BinOp(self._tok_loc(op_tok), op or str(op_tok), left, right)

    @v_args(meta=True)
    def binop_or(self, meta, ch):
        return self._bin(meta, ch)

    @v_args(meta=True)
    def binop_xor(self, meta, ch):
        return self._bin(meta, ch)

    @v_args(meta=True)
    def binop_and(self, meta, ch):
        return self._bin(meta, ch)

    @v_args(meta=True)
    def binop_shift(self, meta, ch):
        return self._bin(meta, ch)

    @v_args(meta=True)
    def binop_add(self, meta, ch):
        return self._bin(meta, ch)

    @v_args(meta=True)
    def binop_sub(self, meta, ch):
        return self._bin(meta, ch)

    @v_args(meta=True)
    def binop_mul(self, meta, ch):
        return self._bin(meta, ch)

    @v_args(meta=True)
    def compare(self, meta, ch):
        return self._bin(meta, ch)

    @v_args(meta=True)
    def bool_or(self, meta, ch):
        return S.BinOp(self._loc(meta), "or", ch[0], ch[1])

    @v_args(meta=True)
    def bool_and(self, meta, ch):
        return S.BinOp(self._loc(meta), "and", ch[0], ch[1])

    @v_args(meta=True)
    def bool_not(self, meta, ch):
        return S.UnOp(self._loc(meta), "not", ch[0])

    @v_args(meta=True)
    def unop_not(self, meta, ch):
        return S.UnOp(self._loc(meta), "~", ch[0])

    @v_args(meta=True)
    def unop_neg(self, meta, ch):
        return S.UnOp(self._loc(meta), "-", ch[-1])

    @v_args(meta=True)
    def index_expr(self, meta, ch):
        return S.Index(self._loc(meta), ch[0], ch[1])

    @v_args(meta=True)
    def call(self, meta, ch):
        name, args = ch
        return S.Call(self._loc(meta), str(name), tuple(args or ()))

    @v_args(meta=True)
    def array_lit(self, meta, ch):
        return S.ArrayLit(self._loc(meta), tuple(ch[0] or ()))

    @v_args(meta=True)
    def comprehension(self, meta, ch):
        item, var, start, stop = ch
        return S.Comprehension(self._loc(meta), item, str(var), start, stop)

    @v_args(meta=True)
    def each_comprehension(self, meta, ch):
        item, var, source = ch
        return S.EachComprehension(self._loc(meta), item, str(var), source)

    def args(self, ch):
        return list(ch)

    # ------------------------------------------------------------ types
    @v_args(meta=True)
    def type(self, meta, ch):
        scalar, *dims, endian = ch
        if isinstance(scalar, Token):
            scalar = str(scalar)
        return S.TypeExpr(self._loc(meta), scalar, tuple(dims), str(endian) if endian is not None else None)

    def word_width(self, ch):
        return ch[0]

    def dim(self, ch):
        return ch[0]

    @v_args(meta=True)
    def param(self, meta, ch):
        return S.Param(self._loc(meta), str(ch[0]), ch[1])

    def params(self, ch):
        return tuple(ch)

    # ------------------------------------------------------------ statements
    def body(self, ch):
        return tuple(ch)

    @v_args(meta=True)
    def let_stmt(self, meta, ch):
        return S.Let(self._loc(meta), str(ch[0]), ch[1], ch[2], mutable=False)

    @v_args(meta=True)
    def var_stmt(self, meta, ch):
        return S.Let(self._loc(meta), str(ch[0]), ch[1], ch[2], mutable=True)

    def lvalue(self, ch):
        return (ch[0], tuple(ch[1:]))

    def index(self, ch):
        return ch[0]

    @v_args(meta=True)
    def assign_stmt(self, meta, ch):
        (name_tok, indices), op, value = ch
        return S.Assign(self._loc(meta), str(name_tok), indices, str(op), value)

    @v_args(meta=True)
    def for_stmt(self, meta, ch):
        var, start, stop, body = ch
        return S.For(self._loc(meta), str(var), start, stop, body)

    def elif_part(self, ch):
        return (ch[0], ch[1])

    def else_part(self, ch):
        return ("else", ch[0])

    @v_args(meta=True)
    def if_stmt(self, meta, ch):
        cond, body, *elifs, else_part = ch
        otherwise = else_part[1] if else_part is not None else None
        return S.If(self._loc(meta), ((cond, body),) + tuple(elifs), otherwise)

    @v_args(meta=True)
    def return_stmt(self, meta, ch):
        return S.Return(self._loc(meta), ch[0])

    # ------------------------------------------------------------ declarations
    @v_args(meta=True)
    def block_decl(self, meta, ch):
        return ("block", self._loc(meta), ch[0])

    @v_args(meta=True)
    def key_decl(self, meta, ch):
        return ("key", self._loc(meta), ch[0])

    @v_args(meta=True)
    def gf_decl(self, meta, ch):
        return ("gf", self._loc(meta), ch[0])

    @v_args(meta=True)
    def const_decl(self, meta, ch):
        return S.ConstDecl(self._loc(meta), str(ch[0]), ch[1], ch[2])

    @v_args(meta=True)
    def sbox_decl(self, meta, ch):
        return S.SboxDecl(self._loc(meta), str(ch[0]), ch[1])

    @v_args(meta=True)
    def fn_decl(self, meta, ch):
        name, params, ret, body = ch
        return S.FnDecl(self._loc(meta), str(name), tuple(params or ()), ret, body)

    @v_args(meta=True)
    def fn_expr_decl(self, meta, ch):
        name, params, ret, expr = ch
        return S.FnDecl(self._loc(meta), str(name), tuple(params or ()), ret, (S.Return(expr.loc, expr),))

    @v_args(meta=True)
    def ks_decl(self, meta, ch):
        key_name, outputs, body = ch
        return S.KeySchedule(self._loc(meta), str(key_name), tuple(outputs), body)

    @v_args(meta=True)
    def enc_decl(self, meta, ch):
        return S.CipherFn(self._loc(meta), "encrypt", str(ch[0]), ch[1], ch[2])

    @v_args(meta=True)
    def dec_decl(self, meta, ch):
        return S.CipherFn(self._loc(meta), "decrypt", str(ch[0]), ch[1], ch[2])

    def names(self, ch):
        return tuple(str(c) for c in ch)

    @v_args(meta=True)
    def family(self, meta, ch) -> S.Family:
        name, params, *members = ch
        fam = S.Family(self._loc(meta), str(name), tuple(params or ()))
        seen: dict[str, Loc] = {}

        def once(key: str, loc: Loc):
            if key in seen:
                raise SpecError(loc, f"{key} is declared twice in family {fam.name} (first at {seen[key]})")
            seen[key] = loc

        for m in members:
            if isinstance(m, tuple):
                kind, loc, value = m
                once(kind, loc)
                if kind == "block":
                    fam.block = value
                elif kind == "key":
                    fam.key = value
                else:
                    fam.gf_poly = value
            elif isinstance(m, (S.ConstDecl, S.SboxDecl, S.FnDecl)):
                once(m.name, m.loc)
                if isinstance(m, S.FnDecl):
                    fam.fns[m.name] = m
                else:
                    fam.consts.append(m)
            elif isinstance(m, S.KeySchedule):
                once("key_schedule", m.loc)
                fam.key_schedule = m
            elif isinstance(m, S.CipherFn):
                once(m.kind, m.loc)
                setattr(fam, m.kind, m)
        return fam

    @v_args(meta=True)
    def named_arg(self, meta, ch):
        return (str(ch[0]), ch[1], self._loc(meta))

    def named_args(self, ch):
        return tuple(ch)

    @v_args(meta=True)
    def cipher_def(self, meta, ch):
        name, family, args = ch
        return S.CipherDef(self._loc(meta), str(name), str(family), tuple(args or ()))

    def start(self, ch):
        return list(ch)


def _line(lines: list[str], line: int) -> str | None:
    return lines[line - 1] if 1 <= line <= len(lines) else None


def parse_text(text: str, path: str = "<spec>") -> S.SpecFile:
    """Parse one spec file.  Raises SpecError (never anything else) on bad input."""
    lines = text.splitlines()
    parser = _parser()
    try:
        tree = parser.parse(text)
        items = _Builder(path).transform(tree)
    except UnexpectedCharacters as e:
        raise SpecError(
            Loc(path, e.line, e.column),
            f"unexpected character {e.char!r}" + _expected(parser, e.allowed or ()),
            _line(lines, e.line),
        ) from None
    except UnexpectedToken as e:
        tok = e.token
        what = "end of file" if tok.type == "$END" else repr(str(tok))
        line = tok.line if tok.line is not None else len(lines)
        col = tok.column if tok.column is not None else 1
        raise SpecError(
            Loc(path, line, col), f"unexpected {what}" + _expected(parser, e.expected), _line(lines, line)
        ) from None
    except UnexpectedEOF as e:
        raise SpecError(
            Loc(path, max(len(lines), 1), 1),
            "unexpected end of file" + _expected(parser, e.expected),
            _line(lines, len(lines)),
        ) from None
    except UnexpectedInput as e:  # pragma: no cover - other lark input errors
        raise SpecError(Loc(path, getattr(e, "line", 0) or 0, getattr(e, "column", 0) or 0), "syntax error") from None
    except VisitError as e:
        orig = e.orig_exc
        if isinstance(orig, SpecError):
            if orig.source_line is None and orig.loc is not None:
                orig.source_line = _line(lines, orig.loc.line)
            raise orig from None
        raise
    except RecursionError:
        raise SpecError(Loc(path, 1, 1), "expressions nested too deeply") from None

    families: dict[str, S.Family] = {}
    ciphers: list[S.CipherDef] = []
    for item in items:
        if isinstance(item, S.Family):
            if item.name in families:
                raise SpecError(item.loc, f"family {item.name} is defined twice", _line(lines, item.loc.line))
            families[item.name] = item
        else:
            ciphers.append(item)
    spec = S.SpecFile(path, lines, families, ciphers)
    from .resolve import resolve_names  # late import: resolve needs lower's builtin list

    resolve_names(spec)
    return spec


def parse_file(path: str | Path) -> S.SpecFile:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(
            Loc(str(path), 0, 0), f"cannot read spec: {e.strerror if isinstance(e, OSError) else e}"
        ) from None
    return parse_text(text, str(path))
