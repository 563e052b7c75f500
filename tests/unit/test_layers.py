"""The import graph is layered: a module imports only from its own layer or below, and nobody imports
by name in strings (importlib), so this test sees every edge.

    toolchain (0)  <  cipherspec (1)  <  runtime (2)  <  generator (3)  <  driver (4)

One exception, the public API: cipherspec/api.py (``cipherspec.load``, ``build``, ``kat``) reaches the
driver, but only inside its functions (so ``import cipherspec`` loads no backend), and no module of the
layers below imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from paths import ROOT

LAYERS = {"toolchain": 0, "cipherspec": 1, "runtime": 2, "generator": 3, "driver": 4}
FACADE = "cipherspec/api.py"  # may import driver inside functions (the API the package name promises)


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
    rel = path.relative_to(ROOT).as_posix()
    lazy = function_level_lines(path) if rel == FACADE else set()
    bad = [
        f"{rel}:{line} imports {name}"
        for line, name in imported_packages(path, pkg)
        if name == "<importlib>" or (LAYERS.get(name, -1) > LAYERS[pkg] and line not in lazy)
    ]
    assert not bad, "\n".join(bad)


def function_level_lines(path: Path) -> set[int]:
    """Lines of the imports inside function bodies."""
    lines = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines |= {n.lineno for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return lines


def test_no_module_imports_the_facade():
    """cipherspec.api sits above everything: only cipherspec/__init__.py (re-exports) and __main__.py use it."""
    users = [
        str(path.relative_to(ROOT))
        for _, path in _modules()
        if path not in (ROOT / "cipherspec/__init__.py", ROOT / "cipherspec/__main__.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and (node.module or "") in ("api", "cipherspec.api")
    ]
    assert users == []
    lazy = function_level_lines(ROOT / FACADE)
    assert "driver" in {n for line, n in imported_packages(ROOT / FACADE, "cipherspec") if line in lazy}
