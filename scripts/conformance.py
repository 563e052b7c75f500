"""Runs the whole conformance matrix (tests/conformance/*.cs on every target) and prints it; with --write,
records it in tests/conformance/matrix.json and docs/language.md's table.  Needs the tools CI has (the aarch64
cross compiler, qemu-aarch64, nvcc).

    PYTHONPATH=. python3 scripts/conformance.py [--write] [--only NAME_SUBSTRING]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

import conformance as M


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="record the result in matrix.json and docs/language.md")
    ap.add_argument("--only", default="", help="run only variants whose name contains this")
    args = ap.parse_args()
    matrix = M.load_matrix()
    for _, name in M.variants():
        if args.only not in name:
            continue
        row = matrix.setdefault(name, {})
        for col in M.COLUMNS:
            row[col] = M.run_cell(name, col)
            print(f"{name:18} {col:16} {row[col]}", flush=True)
    known = {n for _, n in M.variants()}
    matrix = {k: v for k, v in matrix.items() if k in known}
    if args.write:
        M.write(matrix)
    else:
        print(M.render(matrix))
    return 0


if __name__ == "__main__":
    sys.exit(main())
