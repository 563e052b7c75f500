"""Syntax tree -> canonical spec text (``cipherspec fmt``).  parse(format(t)) == t, locations aside.

Parentheses where precedence needs them and wherever operators mix (``a ^ (b <<< 1)``, as a careful
author writes it); statements one per line, two-space indent.

    family f(rounds){block u8[4];key u8[4];...}   ->   family f(rounds) {
                                                         block u8[4];
                                                         key u8[4];
"""

from __future__ import annotations

from . import syntax as S

# binding strength, loosest first (as in grammar.lark: Python's order)
_LEVEL = {
    "or": 1,
    "and": 2,
    "==": 4,
    "!=": 4,
    "<": 4,
    "<=": 4,
    ">": 4,
    ">=": 4,
    "|": 5,
    "^": 6,
    "&": 7,
    "<<": 8,
    ">>": 8,
    "<<<": 8,
    ">>>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}
_UNARY = {"not": 3, "~": 11, "-": 11}


def _operand(e: S.Expr, parent_op: str, level: int) -> str:
    """A binary operand: parenthesized when precedence needs it OR when it mixes operators (readability)."""
    if isinstance(e, S.BinOp) and e.op != parent_op and parent_op not in ("and", "or"):
        return f"({expr(e)})"
    return expr(e, level)


def expr(e: S.Expr, outer: int = 0) -> str:
    if isinstance(e, S.Num):
        return hex(e.value) if e.value > 255 else str(e.value)
    if isinstance(e, S.Name):
        return e.ident
    if isinstance(e, S.BinOp):
        lvl = _LEVEL[e.op]
        right_lvl = lvl + 1  # left-associative: a right operand of the same level needs parentheses
        if e.op in ("==", "!=", "<", "<=", ">", ">="):  # comparisons do not chain
            text = f"{expr(e.left, lvl + 1)} {e.op} {expr(e.right, lvl + 1)}"
        else:
            text = f"{_operand(e.left, e.op, lvl)} {e.op} {_operand(e.right, e.op, right_lvl)}"
        return f"({text})" if lvl < outer else text
    if isinstance(e, S.UnOp):
        lvl = _UNARY[e.op]
        sep = " " if e.op == "not" else ""
        text = f"{e.op}{sep}{expr(e.operand, lvl)}"
        return f"({text})" if lvl < outer else text
    if isinstance(e, S.Index):
        return f"{expr(e.base, 12)}[{expr(e.index)}]"
    if isinstance(e, S.Call):
        return f"{e.func}({', '.join(expr(a) for a in e.args)})"
    if isinstance(e, S.ArrayLit):
        return "[" + ", ".join(expr(a) for a in e.items) + "]"
    if isinstance(e, S.Comprehension):
        return f"[{expr(e.item)} for {e.var} in {expr(e.start, 9)}..{expr(e.stop, 9)}]"
    if isinstance(e, S.EachComprehension):
        return f"[{expr(e.item)} for {e.var} in {expr(e.source)}]"
    raise TypeError(f"cannot format {type(e).__name__}")  # pragma: no cover


def type_(t: S.TypeExpr) -> str:
    scalar = t.scalar if isinstance(t.scalar, str) else f"word({expr(t.scalar)})"
    text = scalar + "".join(f"[{expr(d)}]" for d in t.dims)
    return f"{text} {t.endian}" if t.endian else text


def _param(p: S.Param) -> str:
    return f"{p.name}: {type_(p.type)}" if p.type is not None else p.name


def _body(stmts, indent: str) -> list[str]:
    out: list[str] = []
    for st in stmts:
        out += _stmt(st, indent)
    return out


def _block(head: str, stmts, indent: str) -> list[str]:
    return [f"{indent}{head} {{"] + _body(stmts, indent + "  ") + [f"{indent}}}"]


def _stmt(st: S.Stmt, indent: str) -> list[str]:
    if isinstance(st, S.Let):
        kw = "var" if st.mutable else "let"
        ann = f": {type_(st.type)}" if st.type is not None else ""
        return [f"{indent}{kw} {st.name}{ann} = {expr(st.value)};"]
    if isinstance(st, S.Assign):
        idx = "".join(f"[{expr(i)}]" for i in st.indices)
        return [f"{indent}{st.target}{idx} {st.op} {expr(st.value)};"]
    if isinstance(st, S.For):
        return _block(f"for {st.var} in {expr(st.start, 9)}..{expr(st.stop, 9)}", st.body, indent)
    if isinstance(st, S.If):
        lines: list[str] = []
        for k, (cond, body) in enumerate(st.branches):
            head = f"if {expr(cond)} {{" if k == 0 else f"}} else if {expr(cond)} {{"
            lines += [indent + head] + _body(body, indent + "  ")
        if st.otherwise is not None:
            lines += [indent + "} else {"] + _body(st.otherwise, indent + "  ")
        return lines + [indent + "}"]
    if isinstance(st, S.Return):
        return [f"{indent}return {expr(st.value)};"]
    raise TypeError(f"cannot format {type(st).__name__}")  # pragma: no cover


def format_spec(spec: S.SpecFile) -> str:
    out: list[str] = []
    for fam in spec.families.values():
        out.append(f"family {fam.name}({', '.join(fam.params)}) {{")
        out.append(f"  block {type_(fam.block)};") if fam.block else None
        out.append(f"  key {type_(fam.key)};") if fam.key else None
        out.append(f"  gf {expr(fam.gf_poly)};") if fam.gf_poly is not None else None
        for c in fam.consts:
            if isinstance(c, S.SboxDecl):
                out.append(f"  sbox {c.name} = {expr(c.value)};")
            else:
                ann = f": {type_(c.type)}" if c.type is not None else ""
                out.append(f"  const {c.name}{ann} = {expr(c.value)};")
        for fn in fam.fns.values():
            head = f"fn {fn.name}({', '.join(_param(p) for p in fn.params)}) -> {type_(fn.ret)}"
            out += _block(head, fn.body, "  ")
        if fam.key_schedule:
            ks = fam.key_schedule
            out += _block(f"key_schedule({ks.key_name}) -> {', '.join(_param(p) for p in ks.outputs)}", ks.body, "  ")
        for cf in (fam.encrypt, fam.decrypt):
            if cf:
                out += _block(f"{cf.kind}({cf.block_name}, {', '.join(cf.keys_names)})", cf.body, "  ")
        out.append("}")
        out.append("")
    for cipher in spec.ciphers:
        args = ", ".join(f"{n} = {expr(e)}" for n, e, _ in cipher.args)
        out.append(f"cipher {cipher.name} = {cipher.family}({args});")
    return "\n".join(out).rstrip() + "\n"
