"""The front door: README.md is a landing page (at most 250 lines), its links and the manual's resolve,
every command or code block either runs (tests/docs/test_doc_blocks.py) or says why not, and the
manual builds as a site with `mkdocs build --strict` (broken links fail it; docs/hooks.py checks
links to repository files outside docs/)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docblocks import blocks, unmarked
from paths import ROOT
from tools import missing

PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def require_module(name: str) -> None:
    """Skips without it; fails under CIPHERSPEC_REQUIRE_TOOLS=1 (CI), as a missing tool does."""
    if importlib.util.find_spec(name) is None:
        missing(f"the Python package {name}", "bash scripts/setup.sh (pip install '.[dev]')")


def test_readme_is_a_landing_page():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; the manual (docs/) takes the rest"
    text = "\n".join(lines)
    for page in ("docs/cli.md", "docs/python-api.md", "docs/language.md", "docs/benchmarks.md"):
        assert f"]({page})" in text, f"README.md does not link {page}"


def _slug(heading: str) -> str:
    text = re.sub(r"[`*]", "", heading.strip().lstrip("#").strip()).lower()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\- ]", "", text)).strip("-")  # as Python-Markdown's toc


def _anchors(page: Path) -> set[str]:
    out, fence = set(), False
    for line in page.read_text().splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            out.add(_slug(line))
    return out


def broken_links(page: Path) -> list[str]:
    bad, fence = [], False
    for n, line in enumerate(page.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for target in _LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue  # a URL: not checked (no network in CI)
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                bad.append(f"{page.relative_to(ROOT)}:{n}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                bad.append(f"{page.relative_to(ROOT)}:{n}: {target}: no heading #{anchor}")
    return bad


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_resolve(page):
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_block_runs_or_says_why(page):
    assert unmarked(page) == []


def test_the_checks_can_fail(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "# Title\n[a](missing.md) [b](p.md#title) [c](p.md#nope) [d](https://example.com)\n"
        "```sh\nrm -rf /\n```\n<!-- not run: an example -->\n```c\nint x;\n```\n```console\n$ true\n```\n"
    )
    root = ROOT
    try:
        globals()["ROOT"] = tmp_path
        assert [b.split(": ", 1)[1] for b in broken_links(page)] == [
            "missing.md: no such file",
            "p.md#nope: no heading #nope",
        ]
    finally:
        globals()["ROOT"] = root
    assert len(unmarked(page)) == 1 and "```sh" in unmarked(page)[0]
    assert [b.lang for b in blocks(page)] == ["sh", "c", "console"] and blocks(page)[1].not_run == "an example"


def test_the_manual_builds(tmp_path):
    require_module("mkdocs")
    p = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "site" / "python-api" / "index.html").is_file()


def test_the_hook_fails_on_a_missing_repository_file(tmp_path):
    require_module("mkdocs")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("[x](../nothing/here.md)\n")
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\nhooks:\n  - {ROOT / 'docs' / 'hooks.py'}\n")
    p = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode != 0 and "../nothing/here.md: no such file in the repository" in p.stdout + p.stderr
