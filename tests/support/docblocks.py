"""The code blocks of README.md and docs/*.md, and running them (CONTRIBUTING.md, "Documentation", has the rules).

    ```console      run: each `$ ` line is a command (a trailing \\ continues it), the lines after it up to the
                    next `$ ` its expected output (stdout and stderr); `...` alone matches any lines, inside a
                    line any text; no lines shown: only the exit status is checked (0, or 2 where the shown
                    output has `cipherspec: error:`)
    ```python       run as a script (its asserts are the check); with `>>> ` lines, as a doctest (output compared)
    <!-- file: NAME -->           before a block: the block is written to NAME (for the commands after it)
    <!-- not run: WHY -->         before a block: not run, and why (a GPU, a fragment of a larger program)

A page's blocks run in order in one fresh directory (so a file made by one block is there for the next);
``../shared/vectors`` there is the repository's shared vectors.  `cipherspec` is the command under test: a
wrapper of ``python3 -m driver`` in a checkout, the installed command in the wheel check
(``python3 tests/support/docblocks.py --bin VENV/bin README.md``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE_LANGS = {"console", "sh", "bash", "shell", "python", "py", "c", "cs"}  # commands and code: run or say why
RUN_LANGS = {"console", "python"}
_NOT_RUN = re.compile(r"^<!--\s*not run:\s*(\S.*?)\s*-->$")
_FILE = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->$")


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence
    lang: str
    text: str
    not_run: str | None = None
    file: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path}:{self.line}"


def blocks(path: Path) -> list[Block]:
    lines = path.read_text().splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+)\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        start = i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].isspace() else lines[i].lstrip())
            i += 1
        i += 1
        prev = lines[start - 1].strip() if start else ""
        nr, fm = _NOT_RUN.match(prev), _FILE.match(prev)
        out.append(
            Block(
                path, start + 1, lang, "\n".join(body) + "\n", nr.group(1) if nr else None, fm.group(1) if fm else None
            )
        )
    return out


def unmarked(path: Path) -> list[str]:
    """Command and code blocks that neither run nor say why they do not."""
    return [
        f"{b.where}: ```{b.lang} block: make it ```console/```python, or put <!-- not run: WHY --> before it"
        for b in blocks(path)
        if b.lang in CODE_LANGS and b.lang not in RUN_LANGS and b.not_run is None and b.file is None
    ]


def commands(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of a console block."""
    out: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if out:
                out[-1][1].append(line.rstrip())
            i += 1
            continue
        cmd = line[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd + "\n" + lines[i]
        out.append((cmd, []))
        i += 1
    return out


def matches(expected: list[str], got: str) -> bool:
    pattern = ""
    for line in expected:
        if line.strip() == "...":
            pattern += r"(?:.*\n)*?"
        else:
            pattern += ".*".join(re.escape(part) for part in line.split("...")) + r"\n"
    text = "".join(line.rstrip() + "\n" for line in got.splitlines())
    return re.fullmatch(pattern, text) is not None


def dev_bin(where: Path) -> Path:
    """A directory with a `cipherspec` that runs this checkout's driver."""
    where.mkdir(parents=True, exist_ok=True)
    exe = where / "cipherspec"
    exe.write_text(
        f'#!/bin/sh\nPYTHONPATH="{ROOT}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" -m driver "$@"\n'
    )
    exe.chmod(0o755)
    return where


def run_page(
    path: Path, bin_dir: Path, python: str, workdir: Path, env_extra: dict[str, str] | None = None
) -> list[str]:
    """Runs every block of one page in ``workdir``; returns what failed (empty: all passed)."""
    cwd = workdir / "work"
    cwd.mkdir(parents=True, exist_ok=True)
    shared = ROOT.parent / "shared"
    if shared.is_dir() and not (workdir / "shared").exists():
        (workdir / "shared").symlink_to(shared)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", **(env_extra or {}))
    failures: list[str] = []
    for b in blocks(path):
        if b.file:
            (cwd / b.file).write_text(b.text)
            continue
        if b.not_run is not None or b.lang not in RUN_LANGS:
            continue
        if b.lang == "python":
            script = cwd / f"block_{b.line}.{'txt' if '>>> ' in b.text else 'py'}"
            script.write_text(b.text)
            argv = (
                [python, "-m", "doctest", "-o", "ELLIPSIS", script.name] if ">>> " in b.text else [python, script.name]
            )
            p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
            if p.returncode:
                failures.append(f"{b.where}: python block failed ({p.returncode}):\n{p.stdout}{p.stderr}")
            continue
        for cmd, expected in commands(b.text):
            p = subprocess.run(
                ["bash", "-o", "pipefail", "-c", cmd],
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=300,
            )
            want_rc = 2 if any(line.startswith("cipherspec: error:") for line in expected) else 0
            if p.returncode != want_rc:
                failures.append(f"{b.where}: `{cmd}` exited {p.returncode}, not {want_rc}:\n{p.stdout}")
            elif expected and not matches(expected, p.stdout):
                shown = "\n".join(expected)
                failures.append(f"{b.where}: `{cmd}` printed\n{p.stdout}\nthe page shows\n{shown}")
    return failures


def main(argv: list[str]) -> int:
    """python3 tests/support/docblocks.py [--bin DIR] [--python EXE] PAGE...: run the pages' blocks."""
    bin_dir, python, pages = None, sys.executable, []
    it = iter(argv)
    for a in it:
        if a == "--bin":
            bin_dir = Path(next(it)).resolve()
        elif a == "--python":
            python = next(it)
        else:
            pages.append(Path(a).resolve())
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, page in enumerate(pages):
            b = bin_dir or dev_bin(Path(tmp) / "bin")
            fails = run_page(page, b, python, Path(tmp) / f"page{n}")
            for f in fails:
                print(f"FAIL {f}", file=sys.stderr)
            failed += len(fails)
            print(f"{page.name}: {'ok' if not fails else f'{len(fails)} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
