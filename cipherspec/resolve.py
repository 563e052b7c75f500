"""Name resolution over the syntax tree: every name is defined where it is used, in EVERY branch.

Lowering checks what it evaluates; a branch that no variant takes (``if nk == 6`` in a family
instantiated only with nk = 4) would otherwise hide a typo until someone adds that variant.

    family f(rounds) { ... encrypt(X, rk) { if rounds > 99 { X[0] = Y; } } }
    -> f.cs:3:40: error: unknown name 'Y'
"""

from __future__ import annotations

from . import syntax as S
from .errors import SpecError
from .lower import BUILTINS


class _Resolver:
    def __init__(self, spec: S.SpecFile, fam: S.Family):
        self.spec = spec
        self.fam = fam
        self.globals = set(fam.params) | {c.name for c in fam.consts}

    def error(self, loc, message):
        line = self.spec.lines[loc.line - 1] if 1 <= loc.line <= len(self.spec.lines) else None
        return SpecError(loc, message, line)

    def expr(self, e: S.Expr, scope: set):
        if isinstance(e, S.Name):
            if e.ident not in scope and e.ident not in self.globals:
                if e.ident in self.fam.fns or e.ident in BUILTINS:
                    raise self.error(e.loc, f"'{e.ident}' is a function; call it")
                raise self.error(e.loc, f"unknown name '{e.ident}'")
        elif isinstance(e, S.BinOp):
            self.expr(e.left, scope)
            self.expr(e.right, scope)
        elif isinstance(e, S.UnOp):
            self.expr(e.operand, scope)
        elif isinstance(e, S.Index):
            self.expr(e.base, scope)
            self.expr(e.index, scope)
        elif isinstance(e, S.Call):
            if e.func not in self.fam.fns and e.func not in BUILTINS:
                raise self.error(e.loc, f"unknown function '{e.func}'")
            for a in e.args:
                self.expr(a, scope)
        elif isinstance(e, S.ArrayLit):
            for a in e.items:
                self.expr(a, scope)
        elif isinstance(e, S.Comprehension):
            self.expr(e.start, scope)
            self.expr(e.stop, scope)
            self.expr(e.item, scope | {e.var})
        elif isinstance(e, S.EachComprehension):
            self.expr(e.source, scope)
            self.expr(e.item, scope | {e.var})

    def type(self, t: S.TypeExpr | None, scope: set):
        if t is None:
            return
        if not isinstance(t.scalar, str):
            self.expr(t.scalar, scope)
        for d in t.dims:
            self.expr(d, scope)

    def body(self, stmts, scope: set):
        scope = set(scope)
        for st in stmts:
            if isinstance(st, S.Let):
                self.type(st.type, scope)
                self.expr(st.value, scope)
                scope.add(st.name)
            elif isinstance(st, S.Assign):
                if st.target not in scope:
                    raise self.error(st.loc, f"unknown name '{st.target}'")
                for i in st.indices:
                    self.expr(i, scope)
                self.expr(st.value, scope)
            elif isinstance(st, S.For):
                self.expr(st.start, scope)
                self.expr(st.stop, scope)
                self.body(st.body, scope | {st.var})
            elif isinstance(st, S.If):
                for cond, b in st.branches:
                    self.expr(cond, scope)
                    self.body(b, scope)
                if st.otherwise is not None:
                    self.body(st.otherwise, scope)
            elif isinstance(st, S.Return):
                self.expr(st.value, scope)

    def run(self):
        fam = self.fam
        for c in fam.consts:
            self.expr(c.value, set())
        for fn in fam.fns.values():
            params = set()
            for p in fn.params:
                self.type(p.type, params)
                params.add(p.name)
            self.type(fn.ret, params)
            self.body(fn.body, params)
        if fam.key_schedule is not None:
            ks = fam.key_schedule
            outs = {o.name for o in ks.outputs}
            for o in ks.outputs:
                self.type(o.type, set())
            self.body(ks.body, {ks.key_name} | outs)
        for cf in (fam.encrypt, fam.decrypt):
            if cf is not None:
                self.body(cf.body, {cf.block_name, *cf.keys_names})


def resolve_names(spec: S.SpecFile) -> None:
    """Raises SpecError at the first unknown name of any family in the file."""
    for fam in spec.families.values():
        _Resolver(spec, fam).run()
