"""A KAT file's block (its fields with their line numbers) and a file's report: what kat.py and the
block kinds it hands off (aead_kat.py, drbg_kat.py) share, apart from kat.py so that none imports back.

    b = KatBlock("aes.txt", 3, {"Key": "00.."}, {"Key": 4});  b.hex("Key");  b.where("Key") == "aes.txt:4"
    FileReport("aes.txt", passed=3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import KatError


@dataclass
class KatBlock:
    path: str
    line: int  # first line of the block
    fields: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def where(self, name: str | None = None) -> str:
        return f"{self.path}:{self.lines.get(name, self.line) if name else self.line}"

    @property
    def is_drbg(self) -> bool:
        return "EntropyInput" in self.fields

    def hex(self, name: str) -> bytes:
        text = self.fields[name]
        if len(text) % 2:
            raise KatError(f"{self.where(name)}: {name} has an odd number of hex digits ({len(text)})")
        try:
            return bytes.fromhex(text)
        except ValueError:
            raise KatError(f"{self.where(name)}: {name} is not hex: {text[:40]!r}") from None

    def require(self, *names: str) -> None:
        for name in names:
            if name not in self.fields:
                raise KatError(f"{self.where()}: block has no {name} field")


@dataclass
class FileReport:
    path: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
