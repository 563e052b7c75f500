"""valgrind memcheck for the C and NEON libraries' tests: toolchain.valgrind, with a missing tool a skip
(a failure under CIPHERSPEC_REQUIRE_TOOLS=1).

    require_memcheck()                 -> "valgrind" (skips / fails without valgrind or its headers)
    memcheck(exe, {"VAR": "x"})        -> CompletedProcess (returncode 99: something depends on a secret)
"""

from __future__ import annotations

from tools import missing

from toolchain.valgrind import memcheck, missing_memcheck

__all__ = ["memcheck", "require_memcheck"]


def require_memcheck() -> str:
    why = missing_memcheck()
    if why is not None:
        missing("valgrind memcheck", why.removeprefix("needs "))
    return "valgrind"
