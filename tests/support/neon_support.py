"""NEON tests need the aarch64 cross compiler and qemu-aarch64.  Without them a test skips with the
reason — unless CIPHERSPEC_REQUIRE_TOOLS=1 (CI), where a missing tool is a failure."""
from __future__ import annotations

import os
import shutil

import pytest

TOOLS = {"aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu", "qemu-aarch64": "qemu-user",
         "clang": "clang", "llvm-mca": "llvm"}


def require(*tools: str) -> None:
    missing = [t for t in tools if not shutil.which(t)]
    if not missing:
        return
    msg = (f"needs {', '.join(missing)} (Debian: {' '.join(TOOLS.get(t, t) for t in missing)}; "
           "bash scripts/setup.sh installs them)")
    if os.environ.get("CIPHERSPEC_REQUIRE_TOOLS") == "1":
        pytest.fail("CIPHERSPEC_REQUIRE_TOOLS=1 and the test " + msg)
    pytest.skip(msg)
