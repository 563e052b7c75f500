"""cipherspec: block-cipher specs compiled to NEON, CUDA/PTX and portable C, checked against an interpreter.

    import cipherspec
    lea = cipherspec.load("lea128")                 # target="c" | "ref" | "neon" | "cuda" | "openssl-provider"
    out, next_iv = lea.ctr(key, iv, data)
    cipherspec.build(["lea128"], target="c", output="out")
    cipherspec.kat(["lea128.txt"], target="c").ok

The API is in api.py (its docstring: errors and layering); the rest of the package is the core: the
language, the IR, its passes, the interpreter and the modes.
"""

import sys
import types

from .api import Cipher, KatResult, build, kat, load
from .errors import AuthenticationError, CipherspecError, KatError, SpecError, UsageError
from .version import __version__

__all__ = [
    "__version__",
    "AuthenticationError",
    "Cipher",
    "CipherspecError",
    "KatError",
    "KatResult",
    "SpecError",
    "UsageError",
    "build",
    "kat",
    "load",
]


class _Package(types.ModuleType):
    """``cipherspec.kat`` is the function: importing the core module cipherspec/kat.py (KAT file parsing,
    reached as ``from cipherspec.kat import ...``) must not replace it on the package."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "kat" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
