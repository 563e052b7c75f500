"""parse -> format -> parse gives the same tree (locations aside), and formatting is idempotent."""

from __future__ import annotations

import dataclasses

import pytest
from paths import ROOT, TOY_SPEC

from cipherspec.errors import Loc
from cipherspec.format import format_spec
from cipherspec.parse import parse_text
from cipherspec.registry import Registry, shipped_spec_files

FILES = (
    list(shipped_spec_files())
    + [TOY_SPEC, ROOT / "tests" / "data" / "aria_diffusion.cs"]
    + sorted((ROOT / "examples" / "ciphers").glob("*.cs"))
    + sorted((ROOT / "tests" / "conformance").glob("*.cs"))
)


def strip(obj):
    """A location-free view of a syntax tree, for comparison."""
    if isinstance(obj, Loc):
        return None
    if dataclasses.is_dataclass(obj):
        return (type(obj).__name__,) + tuple(
            strip(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name not in ("loc", "path", "lines")
        )
    if isinstance(obj, dict):
        return tuple((k, strip(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return tuple(strip(x) for x in obj)
    return obj


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_round_trip(path):
    tree = parse_text(path.read_text(), str(path))
    text = format_spec(tree)
    again = parse_text(text, "formatted.cs")
    assert strip(again) == strip(tree)
    assert format_spec(again) == text


def test_formatted_specs_compute_the_same(tmp_path):
    """The formatted LEA file defines the same ciphers (same IR up to origins)."""
    from cipherspec.dump import format_module

    src = next(p for p in shipped_spec_files() if p.name == "lea.cs")
    out = tmp_path / "lea_fmt.cs"
    out.write_text(format_spec(parse_text(src.read_text(), str(src))).replace("cipher lea", "cipher fmt_lea"))
    reg = Registry(extra=[out])
    for v in ("128", "256"):
        a = format_module(reg.module(f"lea{v}"), with_origin=False).split("\n", 1)[1]
        b = format_module(reg.module(f"fmt_lea{v}"), with_origin=False).split("\n", 1)[1]
        assert a == b
