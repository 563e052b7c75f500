"""No two modules of the repository's packages import each other, directly or through others: the module
import graph (every import statement, at the top or inside a function; not those under
``if TYPE_CHECKING:``) has no cycle.  A function-level import that closes a cycle is still a cycle: it
only hides the order problem until that function runs.

    a.py: from .b import f        b.py: def g(): from .a import h      ->  FAIL a -> b -> a
"""

from __future__ import annotations

import ast
from pathlib import Path

from paths import ROOT

PACKAGES = ("toolchain", "cipherspec", "runtime", "generator", "driver")


def module_files(root: Path, packages=PACKAGES) -> dict[str, Path]:
    out = {}
    for pkg in packages:
        for f in sorted((root / pkg).rglob("*.py")):
            parts = list(f.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    return skip


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the repository modules it imports (``from pkg import mod`` counts as mod, else pkg)."""

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = _type_checking_nodes(tree)
        base = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                out.update(m for a in node.names if (m := known(a.name)))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    pkg = base
                    for _ in range(node.level - 1):
                        pkg = pkg.rpartition(".")[0]
                    full = f"{pkg}.{node.module}" if node.module else pkg
                else:
                    full = node.module or ""
                for a in node.names:
                    sub = f"{full}.{a.name}"
                    target = sub if sub in mods else known(full)
                    if target:
                        out.add(target)
        out.discard(name)
        graph[name] = out
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def test_no_module_level_import_cycle():
    graph = import_graph(module_files(ROOT))
    assert "cipherspec.drbg_limits" in graph["cipherspec.drbg"]  # the graph sees relative imports
    assert "generator.ptx.lop3" in graph["generator.ptx.wide"]
    found = cycles(graph)
    assert not found, "modules that import each other: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_check_can_fail(tmp_path):
    pkg = tmp_path / "toolchain"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import f\n")
    (pkg / "b.py").write_text("def g():\n    from toolchain import a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    graph = import_graph(module_files(tmp_path, ("toolchain",)))
    assert graph["toolchain.c"] == set()
    assert cycles(graph) == [["toolchain.a", "toolchain.b"]]
