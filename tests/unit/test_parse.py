"""The parser: each grammar construct gives the syntax tree it should, with its position.

Small specs inline; rejected input is tests/error's job, the format round trip test_format's."""

from __future__ import annotations

import re

import pytest
from paths import ROOT

from cipherspec import syntax as S
from cipherspec.lower import lower
from cipherspec.parse import _Builder, _parser, parse_text

SPEC = """\
# a comment line
family demo(nk, rounds) {
  block u16[4] big;   # trailing comment
  key   word(8 * nk)[nk] little;
  gf 0x11b;
  const delta: u32[2] = [0xc3ef_e9db, 0b101];
  const shift = [1, 3];
  sbox S = [x for x in 0..256];
  sbox Si = inverse(S);
  fn F(x: u16, r) -> u16 = (x <<< r) ^ x;
  fn G(a: u16[2]) -> u16 {
    let t: u16 = a[0] + a[1];
    return t;
  }
  key_schedule(K) -> rk: u16[rounds][4], wk: u16[2] {
    var T = K;
    for i in 0..rounds {
      if i % 2 == 0 { T[0] ^= 1; } else if i == 1 { T[1] <<<= 3; } else { T[0] = T[1]; }
    }
  }
  encrypt(X, rk, wk) { }
  decrypt(X, rk) { }
}
cipher demo2 = demo(nk = 2, rounds = 4);
cipher demo_none = demo();
"""


@pytest.fixture(scope="module")
def spec():
    return parse_text(SPEC, "demo.cs")


def sx(e) -> str:
    """An expression as a prefix S-expression: (op left right), ([] base index), (call f args...)."""
    if isinstance(e, S.Num):
        return str(e.value)
    if isinstance(e, S.Name):
        return e.ident
    if isinstance(e, S.BinOp):
        return f"({e.op} {sx(e.left)} {sx(e.right)})"
    if isinstance(e, S.UnOp):
        return f"({e.op} {sx(e.operand)})"
    if isinstance(e, S.Index):
        return f"([] {sx(e.base)} {sx(e.index)})"
    if isinstance(e, S.Call):
        return f"({' '.join([e.func] + [sx(a) for a in e.args])})"
    if isinstance(e, S.ArrayLit):
        return "[" + " ".join(sx(a) for a in e.items) + "]"
    if isinstance(e, S.Comprehension):
        return f"(for {e.var} {sx(e.start)} {sx(e.stop)} {sx(e.item)})"
    raise AssertionError(type(e))


EXPR_AT = "family f() { fn g(a, b, c, d, i, j, k, x, S) -> u8 { let v = "


def expr(text: str) -> S.Expr:
    """One expression, parsed in a let statement of a minimal family (names are resolved while parsing)."""
    tree = parse_text(EXPR_AT + text + "; return v; } }", "e.cs")
    return tree.families["f"].fns["g"].body[0].value


def test_family_and_cipher_lines(spec):
    fam = spec.families["demo"]
    assert (fam.name, fam.params, fam.loc.line, fam.loc.col) == ("demo", ("nk", "rounds"), 2, 1)
    (c2, c0) = spec.ciphers
    assert (c2.name, c2.family) == ("demo2", "demo")
    assert [(n, sx(v)) for n, v, _ in c2.args] == [("nk", "2"), ("rounds", "4")]
    assert (c2.loc.line, c2.args[1][2].line, c2.args[1][2].col) == (24, 24, 29)
    assert (c0.name, c0.args) == ("demo_none", ())
    assert spec.path == "demo.cs" and spec.lines[0] == "# a comment line"


def test_block_key_and_types(spec):
    fam = spec.families["demo"]
    assert (fam.block.scalar, fam.block.dims, fam.block.endian) == ("u16", (S.Num(fam.block.dims[0].loc, 4),), "big")
    assert (fam.block.loc.line, fam.block.loc.col) == (3, 9)
    assert sx(fam.key.scalar) == "(* 8 nk)" and [sx(d) for d in fam.key.dims] == ["nk"] and fam.key.endian == "little"
    assert sx(fam.gf_poly) == "283"


def test_consts_sboxes_and_fns(spec):
    fam = spec.families["demo"]
    delta, shift, s, si = fam.consts
    assert isinstance(delta, S.ConstDecl) and delta.type.scalar == "u32" and sx(delta.value) == f"[{0xC3EFE9DB} 5]"
    assert isinstance(shift, S.ConstDecl) and shift.type is None and sx(shift.value) == "[1 3]"
    assert isinstance(s, S.SboxDecl) and sx(s.value) == "(for x 0 256 x)"
    assert isinstance(si, S.SboxDecl) and sx(si.value) == "(inverse S)"
    f, g = fam.fns["F"], fam.fns["G"]
    assert [(p.name, p.type.scalar if p.type else None) for p in f.params] == [("x", "u16"), ("r", None)]
    # an expression-bodied fn is one Return located at its expression (a binary one: at its operator)
    assert len(f.body) == 1 and isinstance(f.body[0], S.Return) and sx(f.body[0].value) == "(^ (<<< x r) x)"
    assert (f.body[0].loc.line, f.body[0].loc.col) == (10, 38)
    assert g.params[0].type.dims[0].value == 2 and g.ret.scalar == "u16"
    let, ret = g.body
    assert isinstance(let, S.Let) and not let.mutable and let.type.scalar == "u16"
    assert sx(let.value) == "(+ ([] a 0) ([] a 1))"
    assert isinstance(ret, S.Return) and (ret.loc.line, ret.loc.col) == (13, 5)


def test_key_schedule_and_cipher_functions(spec):
    fam = spec.families["demo"]
    ks = fam.key_schedule
    assert ks.key_name == "K" and [o.name for o in ks.outputs] == ["rk", "wk"]
    assert [sx(d) for d in ks.outputs[0].type.dims] == ["rounds", "4"] and ks.outputs[1].type.dims[0].value == 2
    enc = fam.encrypt
    assert (enc.kind, enc.block_name, enc.keys_names, enc.body) == ("encrypt", "X", ("rk", "wk"), ())
    assert (fam.decrypt.kind, fam.decrypt.keys_names) == ("decrypt", ("rk",))


def test_statements(spec):
    var, loop = spec.families["demo"].key_schedule.body
    assert isinstance(var, S.Let) and var.mutable and var.type is None and sx(var.value) == "K"
    assert isinstance(loop, S.For) and (loop.var, sx(loop.start), sx(loop.stop)) == ("i", "0", "rounds")
    (cond,) = loop.body
    assert isinstance(cond, S.If) and (cond.loc.line, cond.loc.col) == (18, 7)
    (c1, b1), (c2, b2) = cond.branches
    assert (sx(c1), sx(c2)) == ("(== (% i 2) 0)", "(== i 1)")
    assert [(a.target, [sx(i) for i in a.indices], a.op, sx(a.value)) for a in b1 + b2 + cond.otherwise] == [
        ("T", ["0"], "^=", "1"),
        ("T", ["1"], "<<<=", "3"),
        ("T", ["0"], "=", "([] T 1)"),
    ]
    assert (b1[0].loc.line, b1[0].loc.col) == (18, 23)


@pytest.mark.parametrize(
    "text,tree",
    [
        ("a ^ b & c", "(^ a (& b c))"),
        ("a | b ^ c", "(| a (^ b c))"),
        ("a << 1 + 2", "(<< a (+ 1 2))"),
        ("a + b * c % d", "(+ a (% (* b c) d))"),
        ("a - b - c", "(- (- a b) c)"),  # left-associative
        ("a <<< 3 >>> 2", "(>>> (<<< a 3) 2)"),
        ("~a ^ -b", "(^ (~ a) (- b))"),
        ("(a ^ b) & c", "(& (^ a b) c)"),
        ("a & b == c", "(== (& a b) c)"),  # Python's order: comparisons below bitwise
        ("i % 2 == 0 and not j < 3 or k != 1", "(or (and (== (% i 2) 0) (not (< j 3))) (!= k 1))"),
        ("a[1][j + 1]", "([] ([] a 1) (+ j 1))"),
        ("gmul(x[0], 3) ^ S[x[1]]", "(^ (gmul ([] x 0) 3) ([] S ([] x 1)))"),
        ("[x[(j + 4) % 16] for j in 0..16]", "(for j 0 16 ([] x (% (+ j 4) 16)))"),
        ("[]", "[]"),
        ("[1, [2, 3]]", "[1 [2 3]]"),
        ("0x1_f + 0b1_01 + 1_000 + 0", "(+ (+ (+ 31 5) 1000) 0)"),
    ],
)
def test_expression_trees(text, tree):
    assert sx(expr(text)) == tree


def test_positions_point_at_the_operator_and_the_start():
    e = expr("a ^ (b <<< 3)")
    col = len(EXPR_AT) + 1  # columns are 1-based
    assert (e.loc.line, e.loc.col) == (1, col + 2)  # the '^'
    assert (e.left.loc.col, e.right.loc.col) == (col, col + 7)  # 'a' and the '<<<'
    tree = parse_text("family f() {\n  fn g(x) -> u8 {\n\treturn\n   x;\n  }\n}\n", "p.cs")
    ret = tree.families["f"].fns["g"].body[0]
    assert (ret.loc.line, ret.loc.col, ret.value.loc.line, ret.value.loc.col) == (3, 2, 4, 4)
    assert ret.loc.file == "p.cs"


def test_every_grammar_rule_has_a_builder_method():
    """The transformer refuses unknown rules at run time; this finds a missing one before a spec does."""
    names = {
        r.alias or r.origin.name
        for r in _parser().rules
        if not r.origin.name.startswith("_") and (r.alias or not r.options.expand1)
    }
    assert "binop_xor" in names and "comprehension" in names and "word_width" in names
    missing = sorted(n for n in names if not callable(getattr(_Builder, n, None)))
    assert not missing, f"grammar rules without a _Builder method: {missing}"


def test_grammar_header_example_is_valid():
    """The example at the top of grammar.lark parses, lowers, and decrypts what it encrypts."""
    from cipherspec.blockcipher import RefCipher

    header = []
    for line in (ROOT / "cipherspec" / "grammar.lark").read_text().splitlines():
        if not line.startswith("//"):
            break
        header.append(line)
    example = "\n".join(m.group(1) for m in map(re.compile(r"^//   (.*)$").match, header) if m)
    tree = parse_text(example, "grammar.lark")
    (cdef,) = tree.ciphers
    m = lower(tree, cdef)
    ref = RefCipher(m)
    import numpy as np

    rng = np.random.default_rng(1)
    rk = ref.expand_key(rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes())
    x = rng.integers(0, 256, (8, ref.block_bytes), dtype=np.uint8)
    y = ref.encrypt_blocks(rk, x)
    assert (y != x).any() and (ref.decrypt_blocks(rk, y) == x).all()
