"""The wheel claims only the `cipherspec` import name, and works from a fresh venv: the command line,
a build, cipherspec.load("lea128").ctr equal to target="ref", and README.md's blocks with the installed
command (tests/support/wheelcheck.py: the steps, and why the venv sees nothing of the checkout)."""

from __future__ import annotations

import importlib.util

import pytest
from tools import missing
from wheelcheck import check, setup_rewrite


def require_module(name: str) -> None:
    """Skips without it; fails under CIPHERSPEC_REQUIRE_TOOLS=1 (CI), as a missing tool does."""
    if importlib.util.find_spec(name) is None:
        missing(f"the Python package {name}", "bash scripts/setup.sh (pip install '.[dev]')")


@pytest.mark.slow  # a wheel build, a venv and README's blocks: started first under -n 2
def test_the_wheel_installs_one_name_and_runs(tmp_path):
    require_module("wheel")
    log = "\n".join(check(tmp_path, readme=True))
    assert "site-packages: ['cipherspec', 'deps.pth'] + ['cipherspec-0.1.0.dist-info']" in log
    assert "ctr equals ref:" in log and "README.md: ok" in log


def test_the_import_rewrite():
    rewrite = setup_rewrite()
    source = (
        "from generator.c import build\ndef f():\n    import driver\nimport toolchain.cache as c\n"
        "from cipherspec.errors import UsageError\nimport generatorx\n"
    )
    assert rewrite(source, "sample.py") == (
        "from cipherspec._impl.generator.c import build\n"
        "def f():\n"
        "    from cipherspec._impl import driver\n"
        "import cipherspec._impl.toolchain.cache as c\n"
        "from cipherspec.errors import UsageError\n"
        "import generatorx\n"
    )
    with pytest.raises(SystemExit, match="sample.py:1: cannot rewrite the import of driver.cli"):
        rewrite("import driver.cli\n", "sample.py")  # binds `driver`: a form the build refuses
