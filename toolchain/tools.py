"""External tools: which Debian package provides each, and the one line that says what to install.

    missing_tools("qemu-s390x", "cc")  -> ["qemu-s390x"]          (those not on PATH)
    install_hint(["qemu-s390x"])       -> "Debian: qemu-user; bash scripts/setup.sh installs them"

The tests (tests/support/tools.py) and ``cipherspec test`` both read this table, so a missing tool is
named the same way everywhere.
"""

from __future__ import annotations

import shutil

# the Debian package that provides each tool (scripts/setup.sh installs them all)
PACKAGES = {
    "cc": "build-essential",
    "gcc": "build-essential",
    "pkg-config": "pkg-config",
    "clang": "clang",
    "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu",
    "qemu-aarch64": "qemu-user",
    "s390x-linux-gnu-gcc": "gcc-s390x-linux-gnu libc6-dev-s390x-cross",
    "qemu-s390x": "qemu-user",
    "llvm-mca": "llvm",
    "aarch64-linux-gnu-nm": "binutils-aarch64-linux-gnu",
    "openssl": "openssl",
    "valgrind": "valgrind",
    "g++": "g++",
}


def missing_tools(*tools: str) -> list[str]:
    """The tools of ``tools`` that are not on PATH, in order."""
    return [t for t in tools if shutil.which(t) is None]


def install_hint(tools: list[str]) -> str:
    """Where the missing ``tools`` come from, in one line."""
    packages = " ".join(dict.fromkeys(PACKAGES.get(t, t) for t in tools))
    return f"Debian: {packages}; bash scripts/setup.sh installs them"
