"""The import graph is layered: a module imports only from its own layer or below, and nobody imports
by name in strings (importlib), so this test sees every edge.

    toolchain (0)  <  cipherspec (1)  <  runtime (2)  <  generator (3)  <  driver (4)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from paths import ROOT

LAYERS = {"toolchain": 0, "cipherspec": 1, "runtime": 2, "generator": 3, "driver": 4}


def _modules():
    for pkg in LAYERS:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            yield pkg, path


def imported_packages(path: Path, pkg: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in the file; relative imports stay in ``pkg``."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.lineno, pkg if node.level else (node.module or "").split(".")[0]))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            out.append((node.lineno, "<importlib>"))
    return out


@pytest.mark.parametrize(
    "pkg,path", list(_modules()), ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, Path) else v
)
def test_no_import_reaches_up(pkg, path):
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for line, name in imported_packages(path, pkg)
        if name == "<importlib>" or LAYERS.get(name, -1) > LAYERS[pkg]
    ]
    assert not bad, "\n".join(bad)


def test_the_check_can_fail(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import os\nfrom generator.backends import BACKENDS\nfrom . import x\n")
    assert imported_packages(f, "runtime") == [(1, "os"), (2, "generator"), (3, "runtime")]
