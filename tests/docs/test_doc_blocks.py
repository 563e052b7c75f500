"""Every ```console and ```python block of README.md and docs/ runs, and prints what the page shows
(tests/support/docblocks.py: the marker rules, also in CONTRIBUTING.md).  One scratch directory per
page; the `cipherspec` command is this checkout's (python3 -m driver)."""

from __future__ import annotations

import sys

import pytest
from docblocks import RUN_LANGS, blocks, dev_bin, matches, run_page
from paths import ROOT

PAGES = [
    p
    for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    if any(b.lang in RUN_LANGS and b.not_run is None for b in blocks(p))
]


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory):
    return dev_bin(tmp_path_factory.mktemp("bin"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_blocks_run(page, bin_dir, tmp_path):
    failures = run_page(page, bin_dir, sys.executable, tmp_path, {"PYTHONPATH": str(ROOT)})
    assert not failures, "\n\n".join(failures)


def test_output_matching():
    assert matches(["a", "...", "z"], "a\nb\nc\nz\n") and matches(["a", "...", "z"], "a\nz")
    assert matches(["took ... s"], "took 0.3 s\n") and not matches(["took ... s"], "took 0.3 ms\nmore\n")
    assert not matches(["same"], "differ\n")


def test_a_wrong_page_fails(tmp_path, bin_dir):
    page = tmp_path / "p.md"
    page.write_text(
        "<!-- file: t.txt -->\n```text\nhello\n```\n"
        "```console\n$ cat t.txt\nhello\n$ cat t.txt\nbye\n$ false\n$ cipherspec nosuch\ncipherspec: error: ...\n```\n"
        "```python\nassert 1 == 2\n```\n"
    )
    failures = run_page(page, bin_dir, sys.executable, tmp_path / "w", {"PYTHONPATH": str(ROOT)})
    assert len(failures) == 3, failures
    assert "printed\nhello" in failures[0] and "exited 1, not 0" in failures[1] and "python block failed" in failures[2]
