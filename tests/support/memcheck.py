"""valgrind memcheck as a constant-time check, shared by the C and NEON libraries' tests.

A harness marks the secret bytes undefined (VALGRIND_MAKE_MEM_UNDEFINED); memcheck then reports every
branch ("Conditional jump or move depends on uninitialised value(s)") and every memory address ("Use of
uninitialised value") computed from them, and exits with status 99.

    require_memcheck()                 -> "valgrind" (skips / fails without valgrind or its headers)
    memcheck(exe, {"VAR": "x"})        -> CompletedProcess (returncode 99: something depends on a secret)
"""

from __future__ import annotations

import os
import subprocess

from tools import missing, require

VALGRIND = ("valgrind", "--tool=memcheck", "--error-exitcode=99", "--track-origins=no", "-q")


def require_memcheck() -> str:
    require("valgrind", "cc")
    if not os.path.exists("/usr/include/valgrind/memcheck.h"):
        missing("valgrind's headers (valgrind/memcheck.h)", "Debian: valgrind")
    return "valgrind"


def memcheck(exe, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*VALGRIND, str(exe)], capture_output=True, text=True, env=dict(os.environ, **(env or {})), timeout=600
    )
