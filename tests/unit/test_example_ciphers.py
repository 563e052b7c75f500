"""The example ciphers (examples/ciphers/: PRESENT-80, SPECK-128/128), loaded through --spec only: their
designers' vectors on the interpreter, and the interpreter against independent plain-Python
implementations (tests/support/independent_examples.py) on random keys and blocks."""

from __future__ import annotations

import io

import independent_examples
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import ROOT
from shipped import shipped_registry

from cipherspec.registry import Registry
from driver import cli
from driver.targets import make_cipher

EXAMPLES = ROOT / "examples" / "ciphers"
SPECS = sorted(EXAMPLES.glob("*.cs"))
REG = Registry(extra=SPECS)


def test_every_example_has_vectors_and_an_independent_implementation():
    for spec in SPECS:
        assert spec.with_suffix(".txt").is_file(), spec
    names = set(REG.names()) - set(shipped_registry().names())
    assert names == set(independent_examples.CIPHERS)


@pytest.mark.parametrize("spec", SPECS, ids=[p.stem for p in SPECS])
def test_designers_vectors_on_the_interpreter(spec):
    out = io.StringIO()
    assert cli.run(["kat", str(spec.with_suffix(".txt")), "--spec", str(spec)], out=out) == 0, out.getvalue()
    assert " 0 failed" in out.getvalue()


def test_independent_implementations_match_the_vectors():
    assert independent_examples.present_encrypt(bytes(10), bytes(8)).hex() == "5579c1387b228445"
    assert (
        independent_examples.speck_encrypt(bytes(range(16)), bytes.fromhex("206d616465206974206571756976616c")).hex()
        == "180d575cdffe60786532787951985da6"
    )


@pytest.mark.parametrize("name", sorted(independent_examples.CIPHERS))
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_interpreter_matches_independent_implementation(name, data):
    ref = independent_examples.CIPHERS[name]
    c = make_cipher(REG, name, None, "ref")
    key = data.draw(st.binary(min_size=c.key_bytes, max_size=c.key_bytes), label="key")
    blocks = data.draw(st.lists(st.binary(min_size=c.block_bytes, max_size=c.block_bytes), min_size=1, max_size=4))
    rk = c.expand_key(key)
    want = b"".join(ref.encrypt(key, b) for b in blocks)
    assert c.encrypt_blocks(rk, b"".join(blocks)).tobytes() == want
    assert c.decrypt_blocks(rk, want).tobytes() == b"".join(blocks)
    assert ref.decrypt(key, want[: c.block_bytes]) == blocks[0]
