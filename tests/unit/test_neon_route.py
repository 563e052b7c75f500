"""The NEON emission route (issue 23, item 6): emit -> kernel (the driver, entered once per schedule) ->
the layout object's load / body / store; nothing below calls back into the route.

Checked two ways: statically (generator/neon's module imports form no cycle, and the layouts import
neither the driver nor emit) and by tracing one schedule's emission (sys.setprofile: every call into a
generator/neon module from another one, attributed to the nearest generator/neon frame below it)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from shipped import shipped_registry

from cipherspec.registry import Registry
from generator.neon.emit import emit
from generator.neon.schedules import parse

NEON = Path(__file__).resolve().parents[2] / "generator" / "neon"
PKG = "generator.neon."
ROUTE = ("emit", "kernel", "sliced", "packed", "layout")
LAYOUT_ENTRIES = {"check_sliced", "check_packed", "blocks", "load", "body", "store"}


def _imports() -> dict[str, set[str]]:
    """module -> generator/neon modules it imports (from . import x / from .x import y, any depth in the file)."""
    out: dict[str, set[str]] = {}
    for path in NEON.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
        out[path.stem] = deps - {path.stem}
    return out


def test_neon_imports_have_no_cycle():
    graph, state = _imports(), {}

    def visit(m, path):
        if state.get(m) == "done":
            return
        assert state.get(m) != "open", f"import cycle: {' -> '.join(path + [m])}"
        state[m] = "open"
        for d in sorted(graph.get(m, ())):
            visit(d, path + [m])
        state[m] = "done"

    for m in sorted(graph):
        visit(m, [])


def test_layouts_do_not_import_the_driver():
    graph = _imports()
    for m in ("sliced", "packed", "layout"):
        assert not graph[m] & {"kernel", "emit"}, f"{m} imports back up the route: {graph[m] & {'kernel', 'emit'}}"
    assert "kernel" in graph["emit"] and not graph["kernel"] & {"emit"}


def _trace(name: str, schedule: str) -> list[tuple[str | None, str, str, tuple[str, ...]]]:
    """Every entry into a generator/neon module during emit: (caller module, callee module, function,
    the generator/neon modules on the stack below, nearest first)."""
    reg = Registry(extra=[NEON.parents[1] / "tests" / "conformance" / "sbox8.cs"]) if name == "sbox8_u8" else None
    module = (reg or shipped_registry()).module(name)
    sched = parse(schedule, name, None)
    entries = []

    def mod(frame):
        n = frame.f_globals.get("__name__", "")
        return n[len(PKG) :] if n.startswith(PKG) else None

    def prof(frame, event, arg):
        if event != "call" or (callee := mod(frame)) is None or mod(frame.f_back) == callee:
            return
        stack, f = [], frame.f_back
        while f is not None:
            m = mod(f)
            if m and (not stack or stack[-1] != m):
                stack.append(m)
            f = f.f_back
        caller = stack[0] if stack else None
        if caller != callee:
            entries.append((caller, callee, frame.f_code.co_name, tuple(stack)))

    sys.setprofile(prof)
    try:
        emit(module, sched)
    finally:
        sys.setprofile(None)
    return entries


@pytest.mark.parametrize(
    "name,schedule,layout",
    [("lea128", "lea128_neon_b4_il2", "sliced"), ("sbox8_u8", "sbox8_u8_neon_packed_il1", "packed")],
)
def test_one_pass_through_the_layout_object(name, schedule, layout):
    entries = _trace(name, schedule)
    into_kernel = [(c, fn) for c, m, fn, _ in entries if m == "kernel"]
    assert into_kernel == [("emit", "build_kernels")], into_kernel  # the driver is entered once
    for caller, callee, fn, stack in entries:  # nothing re-enters a module of the route from below
        if callee in ROUTE:
            assert callee not in stack, f"{caller}.{fn} re-enters {callee} (stack {stack})"
    calls = [fn for c, m, fn, _ in entries if m == layout and c == "kernel" and fn != "<lambda>"]
    assert set(calls) <= LAYOUT_ENTRIES, calls  # (lambdas: remat recipes the allocator calls back)
    assert {c for c, m, _, _ in entries if m == layout} <= {"kernel", layout}
    per_kernel = [fn for fn in calls if fn in ("load", "body", "store")]
    assert per_kernel == ["load", "body", "store"] * (len(per_kernel) // 3) and len(per_kernel) >= 6
