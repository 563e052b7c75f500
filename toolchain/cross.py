"""Cross compilers and user-mode QEMU: the portable C libraries built for, and run on, other architectures.

    ARCHES["s390x"]              -> Cross("s390x", cc="s390x-linux-gnu-gcc", qemu="qemu-s390x")  (big-endian)
    tc = toolchain_for(ARCHES["s390x"])  -> Toolchain(cc="s390x-linux-gnu-gcc", flags=("-std=c99", "-O2"),
                                                    link_flags=("-static",)), or ToolError saying what to install
    run_emulated(ARCHES["s390x"], exe, stdin_bytes, ["-batch"]) -> stdout bytes (ToolError if the program fails)

AArch64 is the little-endian architecture the NEON kernels need anyway; s390x is the big-endian one,
where a byte-order slip in a load, a store or a counter shows at once.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .cc import Toolchain
from .errors import ToolError
from .tools import install_hint, missing_tools


@dataclass(frozen=True)
class Cross:
    arch: str
    cc: str
    qemu: str
    big_endian: bool = False

    def missing(self) -> list[str]:
        """The tools of this architecture not on PATH."""
        return missing_tools(self.cc, self.qemu)


ARCHES = {
    "aarch64": Cross("aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64"),
    "s390x": Cross("s390x", "s390x-linux-gnu-gcc", "qemu-s390x", big_endian=True),
}


def toolchain_for(cross: Cross) -> Toolchain:
    """Static -O2 builds for ``cross`` (QEMU user mode then needs no target libraries)."""
    absent = cross.missing()
    if absent:
        raise ToolError(f"{cross.arch} needs {' and '.join(absent)} ({install_hint(absent)})")
    return Toolchain(cc=cross.cc, flags=("-std=c99", "-O2"), link_flags=("-static",))


def run_emulated(cross: Cross, exe: Path, data: bytes, args: list[str] | None = None, timeout: float = 600) -> bytes:
    """stdout of ``exe args...`` run under ``cross.qemu`` with ``data`` on stdin; ToolError on a non-zero exit."""
    qemu = shutil.which(cross.qemu)
    if qemu is None:
        raise ToolError(f"running {exe.name} needs {cross.qemu} ({install_hint([cross.qemu])})")
    p = subprocess.run([qemu, str(exe), *(args or [])], input=data, capture_output=True, timeout=timeout)
    if p.returncode:
        raise ToolError(f"{exe.name} under {cross.qemu} exited with {p.returncode}: {p.stderr.decode()[-2000:]}")
    return p.stdout
