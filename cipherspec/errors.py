"""The one family of errors cipherspec reports to users.

Every user-facing failure is a ``CipherspecError``; the CLI prints ``str(err)``
and exits with status 2.  Anything else escaping is a bug in cipherspec.
"""

from __future__ import annotations

from typing import NamedTuple


class Loc(NamedTuple):
    """A position in a source file (1-based line and column).  A NamedTuple, not a dataclass: this module
    is on every command's start-up, and dataclasses imports inspect (~10 ms)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class CipherspecError(Exception):
    """Base of every error meant for the user (bad spec, bad KAT file, bad argument)."""


class SpecError(CipherspecError):
    """A syntax or semantic error in a cipher spec, with its location and source line."""

    def __init__(self, loc: Loc | None, message: str, source_line: str | None = None):
        super().__init__(message)
        self.loc = loc
        self.message = message
        self.source_line = source_line

    def __str__(self) -> str:
        if self.loc is None:
            return f"error: {self.message}"
        text = f"{self.loc}: error: {self.message}"
        if self.source_line is not None:
            caret = " " * (max(self.loc.col, 1) - 1) + "^"
            text += f"\n    {self.source_line.rstrip()}\n    {caret}"
        return text


class KatError(CipherspecError):
    """A malformed known-answer-test file (``file:line: message``)."""


class UsageError(CipherspecError):
    """A bad command-line or API argument: unknown cipher, wrong key length, bad input length."""


class AuthenticationError(CipherspecError):
    """An AEAD decryption or MAC verification whose tag does not match.  The message is always the same
    ("authentication failed"), whatever was wrong, so that the error says nothing about the data."""

    def __init__(self, message: str = "authentication failed"):
        super().__init__(message)
