"""valgrind memcheck as a constant-time check (the C libraries' tests and ``cipherspec test``).

A harness marks the secret bytes undefined (VALGRIND_MAKE_MEM_UNDEFINED, runtime/ct_harness.c); memcheck
then reports every branch ("Conditional jump or move depends on uninitialised value(s)") and every memory
address ("Use of uninitialised value") computed from them, and exits with status 99.

    missing_memcheck()                 -> None, or what to install (valgrind, or its headers)
    memcheck(exe, {"VAR": "x"})        -> CompletedProcess (returncode 99: something depends on a secret)
"""

from __future__ import annotations

import os
import subprocess

from .tools import install_hint, missing_tools

VALGRIND = ("valgrind", "--tool=memcheck", "--error-exitcode=99", "--track-origins=no", "-q")
HEADER = "/usr/include/valgrind/memcheck.h"
LEAKED = 99  # memcheck's exit status when something depends on a secret


def missing_memcheck() -> str | None:
    """None when valgrind, its headers and a C compiler are here; else what is missing and how to get it."""
    absent = missing_tools("valgrind", "cc")
    if absent:
        return f"needs {', '.join(absent)} ({install_hint(absent)})"
    if not os.path.exists(HEADER):
        return f"needs valgrind's headers ({HEADER}; {install_hint(['valgrind'])})"
    return None


def memcheck(exe, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*VALGRIND, str(exe)], capture_output=True, text=True, env=dict(os.environ, **(env or {})), timeout=timeout
    )
