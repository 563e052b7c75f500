"""Specs that must be rejected: the expected message, file:line:col, the source line and a caret.

Each case edits the toy cipher (tests/data/toy.cs) or is a complete small spec; the check goes
through ``cipherspec check`` (exit 2, nothing on stdout) and through the library (SpecError)."""

from __future__ import annotations

import io
import re

import pytest
from paths import TOY_SPEC

from cipherspec.errors import SpecError
from cipherspec.lower import lower
from cipherspec.parse import parse_text
from driver import cli

TOY = TOY_SPEC.read_text()


def _mini(body: str, block="u8[4]", key="u8[4]", extra="") -> str:
    """A complete small family around an encrypt body."""
    return (
        f"family m(rounds) {{\n  block {block};\n  key {key};\n{extra}"
        "  key_schedule(K) -> rk: u8[rounds][4] { for i in 0..rounds { rk[i] = K; } }\n"
        f"  encrypt(X, rk) {{\n{body}\n  }}\n  decrypt(X, rk) {{ }}\n}}\ncipher m1 = m(rounds = 2);\n"
    )


# (name, spec text, expected message regex, expected line, expected column or None)
CASES = [
    ("syntax: missing semicolon", _mini("    X[0] = X[1]\n    X[1] = X[2];"), r"unexpected 'X'; expected .*';'", 7, 5),
    ("syntax: stray character", _mini("    X[0] = X[1] $ X[2];"), r"unexpected character '\$'", 6, 17),
    ("syntax: unexpected end", "family m(rounds) {\n  block u8[4];\n", r"unexpected end of file", 2, None),
    ("malformed number", _mini("    X[0] = X[1] ^ 007;"), r"malformed number '007'", 6, 19),
    ("unknown name", _mini("    X[0] = X[1] ^ Y;"), r"unknown name 'Y'", 6, 19),
    ("unknown function", _mini("    X[0] = frob(X[1]);"), r"unknown function 'frob'", 6, 12),
    ("width mismatch", _mini("    X[0] = X[1] ^ u32(X[2]);"), r"width mismatch: u8 \^ u32", 6, 17),
    ("constant too wide", _mini("    X[0] = X[1] ^ 0x100;"), r"constant 0x100 does not fit in u8", 6, 17),
    ("rotation >= width", _mini("    X[0] = X[1] <<< 8;"), r"rotation by 8 is out of range for u8 \(0..7\)", 6, 17),
    ("shift >= width", _mini("    X[0] = X[1] >> 9;"), r"shift by 9 is out of range for u8", 6, 17),
    (
        "run-time rotation amount",
        _mini("    X[0] = X[1] <<< X[2];"),
        r"rotation amount must be a compile-time integer",
        6,
        17,
    ),
    ("index out of range", _mini("    X[0] = X[4];"), r"index 4 out of range \(length 4\)", 6, 14),
    ("run-time array index", _mini("    X[0] = X[X[1]];"), r"array index must be a compile-time integer", 6, 14),
    ("assign to round keys", _mini("    rk[0][0] = X[0];"), r"cannot assign to 'rk'", 6, 5),
    ("let is immutable", _mini("    let t = X[0];\n    t = X[1];"), r"cannot assign to 't'", 7, 5),
    ("redefinition", _mini("    let t = X[0];\n    let t = X[1];"), r"'t' is already defined", 7, 5),
    ("array vs word", _mini("    X[0] = X;"), r"expected a u8 for X, got u8\[4\]", 6, 5),
    ("block shape change", _mini("    X = [X[0], X[1]];"), r"cannot assign u8\[2\] to X, which is u8\[4\]", 6, 5),
    ("word multiplication", _mini("    X[0] = X[1] * X[2];"), r"'\*' is not defined on words", 6, 17),
    ("run-time condition", _mini("    if X[0] == 1 { X[1] = X[2]; }"), r"compares compile-time values", 6, 13),
    ("gmul without gf", _mini("    X[0] = gmul(X[1], 2);"), r"gmul needs the field: declare 'gf 0x11b;'", 6, 12),
    (
        "table too small for index",
        _mini(
            "    X[0] = T[X[1]];", extra="  const T: u8[16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];\n"
        ),
        r"table T has 16 entries but is indexed by a u8 \(256 values\)",
        7,
        12,
    ),
    (
        "S-box wrong size",
        _mini("    X[0] = X[1];", extra="  sbox S = [1, 2, 3];\n"),
        r"S-box S has 3 entries; an S-box needs exactly 256 \(8-bit, .*\) or 16 \(4-bit",
        4,
        3,
    ),
    (
        "S-box not a permutation",
        TOY.replace("0x63, 0x7c, 0x77", "0x63, 0x63, 0x77"),
        r"S-box S is not a permutation \(S\[0\] = S\[1\] = 0x63\), so it has no inverse",
        21,
        13,
    ),
    (
        "missing decrypt",
        "family m(rounds) {\n  block u8[4];\n  key u8[4];\n"
        "  key_schedule(K) -> rk: u8[4] { rk = K; }\n  encrypt(X, rk) { }\n}\ncipher m1 = m(rounds = 1);\n",
        r"family m has no decrypt",
        1,
        1,
    ),
    (
        "unassigned round key",
        _mini("    X[0] = X[1];").replace("for i in 0..rounds { rk[i] = K; }", "rk[0] = K;"),
        r"key_schedule never assigns rk\[1\]\[0\]",
        4,
        22,
    ),
    ("block byte order missing", _mini("", block="u32[4]"), r"a u32 block needs its byte order", 2, 9),
    (
        "unknown cipher parameter",
        _mini("").replace("m(rounds = 2)", "m(rounds = 2, nk = 4)"),
        r"family m has no parameter 'nk'",
        10,
        27,
    ),
    ("wrong key array", _mini("").replace("encrypt(X, rk)", "encrypt(X, ek)"), r"encrypt takes round keys 'ek'", 5, 3),
    ("runaway loop", _mini("    for i in 0..100000000 { X[0] = X[1]; }"), r"more than \d+ loop iterations", 6, 5),
    ("bad word width", _mini("", block="word(12)[4] little"), r"word\(12\): widths are 8, 16, 32 or 64", 2, 14),
    (
        "unknown name in a branch no variant takes",
        _mini("    if rounds > 99 { X[0] = Y; }"),
        r"unknown name 'Y'",
        6,
        29,
    ),
    (
        "unknown function in a dead branch",
        _mini("    if rounds > 99 { X[0] = frob(X[1]); }"),
        r"unknown function 'frob'",
        6,
        29,
    ),
    (
        "call arity",
        _mini("    X[0] = F(X[1], X[2]);", extra="  fn F(x: u8) -> u8 = x <<< 1;\n"),
        r"F takes 1 arguments, got 2",
        7,
        12,
    ),
    # 4-bit S-boxes, bit permutations, comprehensions over elements, arrays with const arrays
    (
        "4-bit S-box entry too wide",
        _mini(
            "    X[0] = S[X[1]];",
            extra="  sbox S = [0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd, 0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x10];\n",
        ),
        r"S-box S has an entry that does not fit in 4 bits",
        4,
        3,
    ),
    (
        "4-bit S-box not a permutation",
        _mini(
            "    X[0] = Si[X[1]];",
            extra="  sbox S = [0xc, 0xc, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd, 0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2];\n"
            "  sbox Si = inverse(S);\n",
        ),
        r"S-box S is not a permutation \(S\[0\] = S\[1\] = 0x0c\)",
        5,
        13,
    ),
    (
        "bitperm not a permutation",
        _mini("    X[0] = bitperm(X[1], [0, 0, 2, 3, 4, 5, 6, 7]);"),
        r"bitperm: not a permutation \(entries 0 and 1 are both 0\)",
        6,
        26,
    ),
    (
        "bitperm length",
        _mini("    X[0] = bitperm(X[1], [1, 0]);"),
        r"bitperm: the permutation has 2 entries, the value has 8 bits",
        6,
        26,
    ),
    (
        "bitperm position out of range",
        _mini("    X[0] = bitperm(X[1], [8, 1, 2, 3, 4, 5, 6, 7]);"),
        r"bitperm: entry 0 is 8, not a bit position 0..7",
        6,
        26,
    ),
    (
        "bitperm of an array",
        _mini("    X = bitperm(X, [1, 0]);"),
        r"bitperm permutes the bits of one word; .* bitperm_be\(X, P\)",
        6,
        17,
    ),
    (
        "bitperm run-time positions",
        _mini("    X[0] = bitperm(X[1], X);"),
        r"bitperm needs a compile-time array of bit positions, got u8\[4\]",
        6,
        26,
    ),
    (
        "bitperm_be length",
        _mini("    X = bitperm_be(X, [j for j in 0..8]);"),
        r"bitperm_be: the permutation has 8 entries, the value has 32 bits",
        6,
        23,
    ),
    (
        "comprehension over a word",
        _mini("    X = [x ^ 1 for x in X[0]];"),
        r"'for x in \.\.\.' needs an array, got u8 \(or a range: for x in 0..n\)",
        6,
        25,
    ),
    (
        "comprehension variable shadows",
        _mini("    let x = X[0];\n    X = [x ^ 1 for x in X];"),
        r"'x' is already defined",
        7,
        9,
    ),
    (
        "table with a word",
        _mini("    X[0] = T ^ X[1];", extra="  const T: u8[4] = [1, 2, 3, 4];\n"),
        r"'\^' between table T and u8: index the table first \(T\[x\]\), or combine it element by element",
        7,
        14,
    ),
    (
        "array with a const array of another length",
        _mini("    X = X ^ T;", extra="  const T: u8[2] = [1, 2];\n"),
        r"'\^' between arrays of lengths 4 and 2",
        7,
        11,
    ),
    (
        "const array entry too wide for the array",
        _mini("    X = X ^ T;", extra="  const T: u16[4] = [1, 2, 3, 0x100];\n"),
        r"constant 0x100 does not fit in u8",
        7,
        11,
    ),
]


def _check(text: str):
    spec = parse_text(text, "case.cs")
    for cdef in spec.ciphers:
        lower(spec, cdef)


@pytest.fixture
def small_loop_limit(monkeypatch):
    """The runaway-loop check fires at the same place whatever the limit; a small one keeps the test quick."""
    from cipherspec import lower as lower_mod

    monkeypatch.setattr(lower_mod, "MAX_ITERATIONS", 50_000)


@pytest.mark.parametrize("name,text,message,line,col", CASES, ids=[c[0] for c in CASES])
def test_rejected_with_location(small_loop_limit, name, text, message, line, col):
    with pytest.raises(SpecError) as info:
        _check(text)
    err = info.value
    assert re.search(message, err.message), err.message
    assert err.loc.line == line, str(err)
    if col is not None:
        assert err.loc.col == col, str(err)


_CLI_CASES = CASES[:9] + [c for c in CASES if c[0].startswith(("bitperm", "comprehension", "4-bit", "table with"))]


@pytest.mark.parametrize("name,text,message,line,col", _CLI_CASES, ids=[c[0] for c in _CLI_CASES])
def test_check_command_prints_location_line_and_caret(tmp_path, capsys, name, text, message, line, col):
    path = tmp_path / "case.cs"
    path.write_text(text)
    out = io.StringIO()
    assert cli.run(["check", str(path)], out=out) == 2
    assert out.getvalue() == ""  # nothing on stdout for a rejected spec
    err = capsys.readouterr().err
    first, *rest = err.rstrip("\n").split("\n")
    assert first.startswith(f"{path}:{line}:"), err
    assert re.search(message, first)
    src = text.splitlines()[line - 1] if line <= len(text.splitlines()) else None
    if src is not None and col is not None:
        assert rest[0].strip() == src.strip()
        assert rest[1].index("^") - 4 == col - 1  # the caret under the column
    assert "Traceback" not in err
