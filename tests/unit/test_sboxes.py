"""Exhaustive S-box checks through the interpreter: every table with a derived inverse round-trips."""

from __future__ import annotations

import numpy as np
import pytest

from cipherspec.interp import Interpreter
from cipherspec.ir import Function, Op


def _all_tables(registry):
    seen = {}
    for name in registry.names():
        m = registry.module(name)
        for t in m.tables.values():
            seen[(m.family, t.name)] = (m, t)
    return seen


def test_every_derived_inverse_round_trips(registry):
    pairs = 0
    for (family, _tname), (m, t) in _all_tables(registry).items():
        if t.inverse_of is None:
            continue
        base = m.tables[t.inverse_of]
        fn = Function(
            "check",
            [Op("input", 8, (), ("x",)), Op("lut", 8, (0,), (base.name,)), Op("lut", 8, (1,), (t.name,))],
            [("y", 2), ("s", 1)],
        )
        x = np.arange(256, dtype=np.uint8)
        out = Interpreter(m.tables).run(fn, {"x": x})
        assert (out["y"] == x).all(), f"{family}: {t.name} is not the inverse of {base.name}"
        assert len(set(out["s"].tolist())) == 256
        pairs += 1
    assert pairs >= 3  # AES S/S^-1, ARIA SB1/SB3 and SB2/SB4 at least


def test_inverse_of_a_non_permutation_is_an_error():
    from paths import TOY_SPEC

    from cipherspec.errors import SpecError
    from cipherspec.lower import lower
    from cipherspec.parse import parse_text

    text = TOY_SPEC.read_text().replace("0x63, 0x7c", "0x63, 0x63")
    spec = parse_text(text, "toy.cs")
    with pytest.raises(SpecError, match=r"S-box S is not a permutation \(S\[0\] = S\[1\] = 0x63\)"):
        lower(spec, spec.ciphers[0])
