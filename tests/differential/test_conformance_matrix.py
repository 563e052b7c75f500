"""The conformance matrix (tests/support/conformance.py): every construct of the language, one small spec
each (tests/conformance/*.cs, data for this test), every width and byte order, on ref, every C schedule, neon (QEMU) and
cuda (nvcc sm_90 with 0 spills, cores emulated on the CPU), against the interpreter.

The C bitsliced column runs for the widest variant of each spec file and byte order (its lowering is
width-generic; CIPHERSPEC_FULL_MATRIX=1 runs every cell).  A cell recorded "ok" in matrix.json must stay ok; a cell recorded unsupported must still be refused with
the same one-line error (so a newly working cell fails here until `python3 scripts/conformance.py
--write` records it: docs/language.md's table never claims less, or more, than is true); docs/language.md's table
must be the one rendered from matrix.json.
"""

from __future__ import annotations

import conformance as M
import pytest
from paths import ROOT
from tools import require, require_nvcc

MATRIX = M.load_matrix()
CELLS = M.ci_cells()  # the C bitsliced column for the widest variant of each spec and byte order


def _require(col: str) -> None:
    if col == "neon":
        require("aarch64-linux-gnu-gcc", "qemu-aarch64")
    if col == "cuda":
        require_nvcc()


@pytest.mark.parametrize("name,col", CELLS, ids=[f"{n}-{c.replace(' ', '-')}" for n, c in CELLS])
def test_cell(name, col):
    expected = MATRIX.get(name, {}).get(col)
    assert expected is not None, f"{name} / {col} is not in matrix.json: run python3 scripts/conformance.py --write"
    _require(col)
    got = M.run_cell(name, col)
    if expected == "ok":
        assert got == "ok", f"{name} on {col} was supported and now fails: {got}"
    elif got == "ok":
        pytest.fail(
            f"{name} on {col} now works (recorded: {expected}); record it: "
            "PYTHONPATH=. python3 scripts/conformance.py --write"
        )
    else:
        assert got == expected, f"{name} on {col}: the refusal changed"
        assert "\n" not in got


def test_unsupported_cells_name_target_and_construct():
    """Every refusal is one line that names the target (and docs/language.md lists it, see below)."""
    for name, row in MATRIX.items():
        for col, status in row.items():
            if status != "ok":
                target = col.split()[0]
                assert status.startswith("unsupported: ") and "\n" not in status, (name, col, status)
                assert target in status or col.startswith("c "), (name, col, status)


def test_manual_table_is_the_recorded_matrix():
    assert M.page_section() == M.render(MATRIX), (
        "docs/language.md's conformance table differs from tests/conformance/matrix.json: "
        "PYTHONPATH=. python3 scripts/conformance.py --write"
    )


def test_every_spec_variant_is_recorded():
    names = {n for _, n in M.variants()}
    assert names == set(MATRIX), sorted(names ^ set(MATRIX))
    assert (ROOT / "tests" / "conformance").is_dir()
