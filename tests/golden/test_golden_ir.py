"""Golden IR: the canonical dump after key passes must not change unnoticed.

Regenerate on purpose with:  CIPHERSPEC_UPDATE_GOLDEN=1 python -m pytest tests/golden"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from paths import TOY_SPEC

from cipherspec.dump import format_module
from cipherspec.pipeline import optimize
from cipherspec.registry import Registry

DATA = Path(__file__).with_name("data")
CASES = [("toy4", p, None) for p in ("lower", "constfold", "cse", "xornet", "dce")] + [
    ("lea128", "dce", None),
    ("pipo64_128", "dce", ("encrypt",)),
    ("cham64_128", "dce", ("key_schedule", "encrypt")),
]


@pytest.fixture(scope="module")
def reg():
    return Registry(extra=[TOY_SPEC])


@pytest.mark.parametrize("cipher,after,functions", CASES, ids=[f"{c}-{a}" for c, a, _ in CASES])
def test_golden_dump(reg, cipher, after, functions):
    text = format_module(optimize(reg.lowered(cipher), upto=after), functions)
    text = text.replace(str(TOY_SPEC.parent), "<tests/data>")
    path = DATA / f"{cipher}.{after}.ir"
    if os.environ.get("CIPHERSPEC_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}: run with CIPHERSPEC_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"IR of {cipher} after {after} changed; if intended, update the golden files"


def test_origins_name_file_line_function_and_round(reg):
    fn = reg.module("lea128").functions["encrypt"]
    xor = next(op for op in fn.ops if op.code == "xor")
    assert str(xor.origin).startswith("lea.cs:")
    assert xor.origin.where == "encrypt" and xor.origin.round == 0
    last = [op for op in fn.ops if op.code == "rotl"][-1]
    assert last.origin.round == 23
    aria = reg.module("aria128").functions["encrypt"]
    assert any(">A" in op.origin.where for op in aria.ops if op.origin)  # inlined through fn A
