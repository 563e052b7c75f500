"""Shared fixtures (one registry per test session, the shared vectors, the reference ciphers) and the
layer markers: every test is marked with its directory's name (unit, golden, error, property,
differential), so `pytest -m "not differential"` selects by layer; tests marked `gpu` skip without a
GPU (tools.require_gpu)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).with_name("support")))

from paths import VECTORS  # noqa: E402
from tools import require_gpu  # noqa: E402

LAYERS = ("unit", "golden", "error", "property", "differential", "docs")
TESTS = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        layer = item.path.relative_to(TESTS).parts[0]
        if layer not in LAYERS:
            raise pytest.UsageError(f"{item.nodeid}: tests live in one of tests/{{{','.join(LAYERS)}}}/")
        item.add_marker(layer)
    # the `slow` tests (nvcc, bitsliced builds: minutes each on an empty cache) first, so `-n 2` does not end on
    # one worker compiling while the other idles; stable, so the order is the same in every xdist worker
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu"):
        require_gpu()


@pytest.fixture(scope="session")
def registry():
    from shipped import shipped_registry

    return shipped_registry()


@pytest.fixture(scope="session")
def vectors() -> Path:
    if not VECTORS.is_dir():
        pytest.fail(f"shared vectors not found at {VECTORS} (the project expects ../shared beside it)")
    return VECTORS


@pytest.fixture(scope="session")
def make_ref(registry):
    from driver.targets import make_cipher

    cache = {}

    def make(name: str, rounds: int | None = None):
        if (name, rounds) not in cache:
            cache[(name, rounds)] = make_cipher(registry, name, rounds, "ref")
        return cache[(name, rounds)]

    return make


def pytest_terminal_summary(terminalreporter):
    """Kernel variants the C tests compiled but this CPU cannot run (each checked to be refused)."""
    from cpu import ABSENT

    if ABSENT:
        by_variant: dict[str, list[str]] = {}
        for lib, variant in sorted(ABSENT):
            by_variant.setdefault(variant, []).append(lib)
        terminalreporter.write_sep("-", "C kernel variants compiled but absent on this CPU (refused, not run)")
        for variant, libs in sorted(by_variant.items()):
            terminalreporter.write_line(
                f"{variant}: {len(libs)} libraries ({', '.join(libs[:6])}{', ...' if len(libs) > 6 else ''})"
            )
