"""Fuzzing the front end: random text and mutated real specs raise SpecError and nothing else."""

from __future__ import annotations

import pytest
from ci_scope import full_matrix
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import TOY_SPEC

from cipherspec import lower as lower_mod
from cipherspec.errors import SpecError
from cipherspec.lower import lower
from cipherspec.parse import parse_text
from cipherspec.registry import shipped_spec_files

SPECS = {p.name: p.read_text() for p in shipped_spec_files()}
SPECS["toy.cs"] = TOY_SPEC.read_text()
ALPHABET = st.sampled_from(
    list("{}[]();:=,.<>^&|~+-*/%#0123456789abcdefxu_ \n")
    + [
        "family",
        "cipher",
        "fn",
        "let",
        "var",
        "for",
        "in",
        "if",
        "else",
        "return",
        "sbox",
        "const",
        "block",
        "key",
        "u8",
        "u32",
        "rounds",
        "..",
        "<<<",
        "key_schedule",
        "encrypt",
        "decrypt",
        "inverse(",
        "gmul(",
        "little",
        "X",
        "rk",
    ]
)


def _front_end(text: str) -> None:
    try:
        spec = parse_text(text, "fuzz.cs")
        for cdef in spec.ciphers:
            lower(spec, cdef)
    except SpecError as e:
        str(e)  # the message itself must render


@pytest.fixture
def small_limits(monkeypatch):
    """Mutations can turn 'rounds = 24' into 'rounds = 244444': keep the fuzz fast, not the limits lax."""
    monkeypatch.setattr(lower_mod, "MAX_OPS", 20_000)
    monkeypatch.setattr(lower_mod, "MAX_ITERATIONS", 20_000)


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_random_token_soup(text):
    _front_end(text)


@settings(
    max_examples=150 if full_matrix() else 60,  # each lowers a spec: 0.3 s apiece on CI's 2 cores
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(name=st.sampled_from(sorted(SPECS)), data=st.data())
def test_mutated_specs(small_limits, name, data):
    text = SPECS[name]
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        pos = data.draw(st.integers(0, len(text)), label="pos")
        kind = data.draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]), label="kind")
        if kind == "delete":
            n = data.draw(st.integers(1, 12), label="n")
            text = text[:pos] + text[pos + n :]
        elif kind == "insert":
            text = text[:pos] + data.draw(ALPHABET, label="tok") + text[pos:]
        elif kind == "replace":
            text = text[:pos] + data.draw(ALPHABET, label="tok") + text[pos + 1 :]
        else:
            n = data.draw(st.integers(1, 40), label="n")
            text = text[:pos] + text[pos : pos + n] + text[pos:]
    _front_end(text)


def test_deep_nesting_is_a_spec_error():
    text = (
        "family f(rounds) { block u8[1]; key u8[1]; key_schedule(K) -> rk: u8[1][1] { rk[0][0] = "
        + "(" * 3000
        + "K[0]"
        + ")" * 3000
        + "; } encrypt(X, rk) { } decrypt(X, rk) { } }\ncipher c = f(rounds = 1);"
    )
    _front_end(text)
