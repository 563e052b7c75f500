"""The wheel claims one import name, ``cipherspec``: its build step places the repository's other top-level
packages under ``cipherspec/_impl/`` and rewrites their absolute imports (the repository keeps
generator/, runtime/, driver/, toolchain/ at the top; an editable install maps them as they are).

    from generator.c import build        ->  from cipherspec._impl.generator.c import build
    import driver                        ->  from cipherspec._impl import driver
    import toolchain.cache as c          ->  import cipherspec._impl.toolchain.cache as c

Every file of those folders is copied (templates, C sources, JSON: nothing depends on package-data
lists), and the build fails on an import of them it could not rewrite.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
VENDORED = ("driver", "generator", "runtime", "toolchain")
_NAMES = "|".join(VENDORED)
_FROM = re.compile(rf"^(\s*)from ({_NAMES})(?=[.\s])", re.M)
_IMPORT = re.compile(rf"^(\s*)import ({_NAMES})\s*$", re.M)
_IMPORT_AS = re.compile(rf"^(\s*)import ((?:{_NAMES})\.[\w.]+) as (\w+)\s*$", re.M)


def rewrite(text: str, where: str) -> str:
    text = _FROM.sub(r"\1from cipherspec._impl.\2", text)
    text = _IMPORT.sub(r"\1from cipherspec._impl import \2", text)
    text = _IMPORT_AS.sub(r"\1import cipherspec._impl.\2 as \3", text)
    for node in ast.walk(ast.parse(text, where)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        left = [n for n in names if n.split(".")[0] in VENDORED]
        if left:
            raise SystemExit(f"{where}:{node.lineno}: cannot rewrite the import of {left[0]} for the wheel")
    return text


class VendorBuildPy(build_py):
    def run(self) -> None:
        lib = Path(self.build_lib)
        vendoring = not getattr(self, "editable_mode", False)
        if vendoring:  # a file removed from the source must not survive in build/ from an earlier build
            for old in ("cipherspec", *VENDORED):
                shutil.rmtree(lib / old, ignore_errors=True)
        super().run()
        if not vendoring:
            return
        impl = lib / "cipherspec" / "_impl"
        if impl.exists():
            shutil.rmtree(impl)
        impl.mkdir(parents=True)
        (impl / "__init__.py").write_text(
            '"""The compiler\'s backends, runtime, command line and tool runners (the repository\'s top-level\n'
            'generator/, runtime/, driver/, toolchain/), placed here by setup.py for the wheel."""\n'
        )
        for pkg in VENDORED:
            shutil.rmtree(lib / pkg, ignore_errors=True)
            shutil.copytree(HERE / pkg, impl / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for py in sorted((lib / "cipherspec").rglob("*.py")):
            py.write_text(rewrite(py.read_text(), str(py.relative_to(lib))))


setup(cmdclass={"build_py": VendorBuildPy})
