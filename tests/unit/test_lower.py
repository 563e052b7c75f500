"""Lowering (syntax tree -> IR): loops unrolled, compile-time conditions and state resolved, fns
inlined, widths applied, arrays split into words, key arrays turned into inputs and outputs.

Small specs inline; each test states the IR ops (without origins, inputs left out) it expects.
Rejected specs are tests/error's job; the golden dumps in tests/golden cover whole ciphers."""

from __future__ import annotations

from cipherspec.dump import format_op
from cipherspec.ir import Module
from cipherspec.lower import lower
from cipherspec.parse import parse_text

TEMPLATE = """\
family t(rounds) {{
  block {block};
  key u32[2] little;
{decls}
  key_schedule(K) -> rk: u32[rounds][2] {{ for i in 0..rounds {{ rk[i] = K; }} }}
  encrypt(X, rk) {{
{body}
  }}
  decrypt(X, rk) {{ }}
}}
cipher t2 = t(rounds = {rounds});
"""


def module(text: str) -> Module:
    spec = parse_text(text, "t.cs")
    return lower(spec, spec.ciphers[0])


def encrypt(body: str, block: str = "u32[2] little", decls: str = "", rounds: int = 2) -> Module:
    """A family whose encrypt is ``body`` (X: the block; rk: u32[rounds][2], the key repeated)."""
    return module(TEMPLATE.format(block=block, decls=decls, body=body, rounds=rounds))


def ops(m: Module, fn: str = "encrypt") -> list[str]:
    """The function's ops as dump lines without origins, inputs left out, then its outputs."""
    f = m.functions[fn]
    return [format_op(i, op, False).strip() for i, op in enumerate(f.ops) if op.code != "input"] + [
        f"out {name} = %{v}" for name, v in f.outputs
    ]


def inputs(m: Module, fn: str = "encrypt") -> list[str]:
    return [f"%{v} {name}" for name, _, v in m.functions[fn].inputs()]


def test_round_loop_is_unrolled_and_each_op_knows_its_round():
    """lower.py's docstring example, op for op: one block word, one round-key word per round."""
    text = """family d(rounds) {
  block u32[1] little;
  key u32[1] little;
  key_schedule(K) -> rk: u32[rounds][1] { for i in 0..rounds { rk[i] = K; } }
  encrypt(X, rk) {
    for i in 0..rounds { X[0] = (X[0] ^ rk[i][0]) <<< 9; }
  }
  decrypt(X, rk) { }
}
cipher d2 = d(rounds = 2);
"""
    m = module(text)
    assert inputs(m) == ["%0 X[0]", "%1 rk[0][0]", "%2 rk[1][0]"]
    assert ops(m) == [
        "%3 = xor.u32 %0, %1",
        "%4 = rotl.u32 %3, 9",
        "%5 = xor.u32 %4, %2",
        "%6 = rotl.u32 %5, 9",
        "out X[0] = %6",
    ]
    origins = [op.origin for op in m.functions["encrypt"].ops[3:]]
    assert [(o.line, o.round, o.where) for o in origins] == [
        (6, 0, "encrypt"),
        (6, 0, "encrypt"),
        (6, 1, "encrypt"),
        (6, 1, "encrypt"),
    ]
    assert len(ops(module(text.replace("rounds = 2", "rounds = 5")))) == 10 + 1


def test_compile_time_conditions_keep_only_the_branch_taken():
    body = """    for i in 0..4 {
      if i % 2 == 0 and not i == 2 { X[0] = X[0] ^ X[1]; }
      else if i == 1 or rounds > 9 { X[1] = X[1] + X[0]; }
      else { X[0] = X[0] <<< i; }
    }"""
    # i = 0: xor;  i = 1: add;  i = 2: rotl by 2;  i = 3: rotl by 3
    assert ops(encrypt(body)) == [
        "%6 = xor.u32 %0, %1",
        "%7 = add.u32 %1, %6",
        "%8 = rotl.u32 %6, 2",
        "%9 = rotl.u32 %8, 3",
        "out X[0] = %9",
        "out X[1] = %7",
    ]
    # a condition on the family's parameters: the other variant takes the other branch
    body = "    if rounds == 2 { X[0] = X[0] ^ X[1]; } else { X[0] = X[0] - X[1]; }"
    assert ops(encrypt(body))[0] == "%6 = xor.u32 %0, %1"
    assert ops(encrypt(body, rounds=3))[0] == "%8 = sub.u32 %0, %1"


def test_compile_time_state_is_computed_by_the_compiler():
    """HIGHT's δ: an LFSR on a var holding an integer; only its values reach the IR, as constants."""
    body = "    var d = 0x5a;\n    for i in 0..3 { d = (d >> 1) | (((d ^ (d >> 3)) & 1) << 6); X[0] = X[0] ^ d; }"
    assert ops(encrypt(body)) == [
        "%6 = const.u32 0x6d",
        "%7 = xor.u32 %0, %6",
        "%8 = const.u32 0x36",
        "%9 = xor.u32 %7, %8",
        "%10 = const.u32 0x1b",
        "%11 = xor.u32 %9, %10",
        "out X[0] = %11",
        "out X[1] = %1",
    ]


def test_fns_are_inlined_with_their_call_chain_in_the_origin():
    decls = (
        "  fn F(x: u32, r) -> u32 = (x <<< r) ^ x;\n"
        "  fn G(x: u32) -> u32 {\n    let t = F(x, 1);\n    return F(t, 7) + t;\n  }"
    )
    m = encrypt("    X[0] = G(X[1]);", decls=decls)
    assert ops(m) == [
        "%6 = rotl.u32 %1, 1",
        "%7 = xor.u32 %6, %1",
        "%8 = rotl.u32 %7, 7",
        "%9 = xor.u32 %8, %7",
        "%10 = add.u32 %9, %7",
        "out X[0] = %10",
        "out X[1] = %1",
    ]
    assert [op.origin.where for op in m.functions["encrypt"].ops[6:]] == [
        "encrypt>G>F",
        "encrypt>G>F",
        "encrypt>G>F",
        "encrypt>G>F",
        "encrypt>G",
    ]


def test_width_rules():
    # an integer literal takes the other operand's width; >>> n is rotl by width - n
    assert ops(encrypt("    X[0] = (X[0] ^ 0xff) >>> 4;", block="u16[2] big")) == [
        "%6 = const.u16 0xff",
        "%7 = xor.u16 %0, %6",
        "%8 = rotl.u16 %7, 12",
        "out X[0] = %8",
        "out X[1] = %1",
    ]
    # u8()/u32() truncate and zero-extend; shifts keep the width
    assert ops(encrypt("    X[0] = u32(u8(X[1] >> 3));")) == [
        "%6 = shr.u32 %1, 3",
        "%7 = trunc.u8 %6",
        "%8 = zext.u32 %7",
        "out X[0] = %8",
        "out X[1] = %1",
    ]
    # word(w): one family, the width a parameter
    fam = (
        "family w(b) {\n  block word(b)[2] big;\n  key u8[2];\n"
        "  key_schedule(K) -> rk: u8[2] { rk = K; }\n"
        "  encrypt(X, rk) { X[0] = X[0] + X[1]; }\n  decrypt(X, rk) { }\n}\n"
    )
    for b in (16, 32):
        m = module(fam + f"cipher w{b} = w(b = {b});\n")
        assert (m.block.width, m.block.nbytes, ops(m)[0]) == (b, b // 4, f"%4 = add.u{b} %0, %1")


def test_array_operations_become_word_operations():
    # element-wise XOR of equal-length arrays
    assert ops(encrypt("    X = X ^ rk[1];")) == [
        "%6 = xor.u32 %0, %4",
        "%7 = xor.u32 %1, %5",
        "out X[0] = %6",
        "out X[1] = %7",
    ]
    # a permutation (literal or comprehension) is renaming: no ops at all
    assert ops(encrypt("    X = [X[1], X[0]];")) == ["out X[0] = %1", "out X[1] = %0"]
    assert ops(encrypt("    X = [X[(j + 1) % 4] for j in 0..4];", block="u8[4]")) == [
        "out X[0] = %1",
        "out X[1] = %2",
        "out X[2] = %3",
        "out X[3] = %0",
    ]
    # packing: bytes -> a word through zext/shl/or, little-endian
    assert ops(encrypt("    X[0] = u32(pack_le([u8(X[1]), u8(X[0])]));")) == [
        "%6 = trunc.u8 %1",
        "%7 = trunc.u8 %0",
        "%8 = zext.u16 %6",
        "%9 = zext.u16 %7",
        "%10 = shl.u16 %9, 8",
        "%11 = or.u16 %8, %10",
        "%12 = zext.u32 %11",
        "out X[0] = %12",
        "out X[1] = %1",
    ]


def test_tables_lookups_and_gf_multiplies():
    decls = (
        "  gf 0x11b;\n  sbox S = [(7 * x + 1) % 256 for x in 0..256];\n  sbox Si = inverse(S);\n"
        "  const C: u8[3] = [1, 2, 0x80];"
    )
    m = encrypt("    X[0] = S[X[1]] ^ gmul(X[2], 3);\n    X[3] = Si[X[3]] ^ C[2];", block="u8[4]", decls=decls)
    assert ops(m)[:6] == [
        "%8 = lut.u8 %1, @S",
        "%9 = gmul.u8 %2, 0x3 mod 0x11b",
        "%10 = xor.u8 %8, %9",
        "%11 = lut.u8 %3, @Si",
        "%12 = const.u8 0x80",
        "%13 = xor.u8 %11, %12",
    ]
    s, si = m.tables["S"], m.tables["Si"]
    assert (s.in_width, s.out_width, s.inverse_of, si.inverse_of) == (8, 8, None, "S")
    assert all(si.values[s.values[x]] == x for x in range(256))  # the derived inverse
    assert "C" not in m.tables  # indexed only at compile time: a constant, not a table


def test_key_arrays_become_outputs_and_inputs():
    """HIGHT's shape: two key arrays; encrypt reads both, decrypt one; each becomes flat named words."""
    text = """family k(rounds) {
  block u8[2];
  key u8[2];
  key_schedule(MK) -> wk: u8[2], sk: u8[rounds][2] {
    wk = [MK[1], MK[0]];
    for i in 0..rounds { sk[i] = [MK[0] + i, MK[1] ^ wk[0]]; }
  }
  encrypt(X, wk, sk) { X = X ^ wk; X = X ^ sk[1]; }
  decrypt(X, sk) { X = X ^ sk[0]; }
}
cipher k2 = k(rounds = 2);
"""
    m = module(text)
    assert [(a.name, a.width, a.shape) for a in m.key_arrays] == [("wk", 8, (2,)), ("sk", 8, (2, 2))]
    assert m.uses_keys == {"encrypt": ("wk", "sk"), "decrypt": ("sk",)}
    assert inputs(m, "key_schedule") == ["%0 MK[0]", "%1 MK[1]"]
    assert ops(m, "key_schedule") == [
        "%2 = const.u8 0x0",
        "%3 = add.u8 %0, %2",
        "%4 = xor.u8 %1, %1",
        "%5 = const.u8 0x1",
        "%6 = add.u8 %0, %5",
        "%7 = xor.u8 %1, %1",
        "out wk[0] = %1",
        "out wk[1] = %0",
        "out sk[0][0] = %3",
        "out sk[0][1] = %4",
        "out sk[1][0] = %6",
        "out sk[1][1] = %7",
    ]
    assert inputs(m) == [
        "%0 X[0]",
        "%1 X[1]",
        "%2 wk[0]",
        "%3 wk[1]",
        "%4 sk[0][0]",
        "%5 sk[0][1]",
        "%6 sk[1][0]",
        "%7 sk[1][1]",
    ]
    assert inputs(m, "decrypt") == ["%0 X[0]", "%1 X[1]", "%2 sk[0][0]", "%3 sk[0][1]", "%4 sk[1][0]", "%5 sk[1][1]"]
    assert ops(m, "decrypt") == ["%6 = xor.u8 %0, %2", "%7 = xor.u8 %1, %3", "out X[0] = %6", "out X[1] = %7"]
