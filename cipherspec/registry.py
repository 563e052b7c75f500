"""Finds cipher specs and turns a cipher name into a lowered, optimized IR module.

The shipped specs live in cipherspec/ciphers/*.cs; ``extra`` paths add a
researcher's own spec files.  A Registry caches what it parsed and lowered;
there is no process-wide state — make one and pass it around.

    reg = Registry()
    reg.names()                       -> ["aes128", "aes192", ...]
    reg.module("cham64_128", rounds=80) -> Module (after the full pipeline)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from . import syntax as S
from .errors import SpecError, UsageError
from .ir import Module
from .lower import lower
from .parse import parse_file
from .pipeline import optimize

SPEC_DIR = Path(__file__).with_name("ciphers")


def shipped_spec_files() -> list[Path]:
    return sorted(SPEC_DIR.glob("*.cs"))


class Registry:
    def __init__(self, extra: Sequence[str | Path] = ()):
        self.files: list[S.SpecFile] = []
        self.defs: dict[str, tuple[S.SpecFile, S.CipherDef]] = {}
        self._lowered: dict[tuple[str, int | None], Module] = {}
        self._optimized: dict[tuple[str, int | None], Module] = {}
        for path in list(shipped_spec_files()) + [Path(p) for p in extra]:
            self.add_file(path)

    def add_file(self, path: Path) -> S.SpecFile:
        spec = parse_file(path)
        for cdef in spec.ciphers:
            if cdef.name in self.defs:
                other = self.defs[cdef.name][1]
                raise SpecError(
                    cdef.loc, f"cipher {cdef.name} is already defined at {other.loc}", spec.lines[cdef.loc.line - 1]
                )
            self.defs[cdef.name] = (spec, cdef)
        self.files.append(spec)
        return spec

    def names(self) -> list[str]:
        return sorted(self.defs)

    def definition(self, name: str) -> tuple[S.SpecFile, S.CipherDef]:
        if name not in self.defs:
            raise UsageError(f"unknown cipher '{name}' (known: {', '.join(self.names())})")
        return self.defs[name]

    def lowered(self, name: str, rounds: int | None = None) -> Module:
        key = (name, rounds)
        if key not in self._lowered:
            spec, cdef = self.definition(name)
            self._lowered[key] = lower(spec, cdef, rounds)
        return self._lowered[key]

    def module(self, name: str, rounds: int | None = None) -> Module:
        """The cipher after the whole pass pipeline (what the interpreter and backends use)."""
        key = (name, rounds)
        if key not in self._optimized:
            self._optimized[key] = optimize(self.lowered(name, rounds))
        return self._optimized[key]
