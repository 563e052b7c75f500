"""AArch64 tools on an x86 host: find the cross compiler and QEMU, build static harnesses, run them.

    tools = find_tools()                 -> Tools(cc="aarch64-linux-gnu-gcc", qemu="qemu-aarch64") or raises
    exe = build_static(tools, {"k.S": asm, "k.h": hdr}, ["harness.c"], flags)   (cached by content hash)
    out = run_qemu(tools, exe, stdin_bytes)

Builds are cached under $CIPHERSPEC_CACHE (default ~/.cache/cipherspec)/neon/<sha256 of every input>.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cipherspec.errors import UsageError

SETUP_HINT = "install them with `bash scripts/setup.sh` (Debian: gcc-aarch64-linux-gnu qemu-user)"


@dataclass(frozen=True)
class Tools:
    cc: str
    qemu: str | None


def find_tools(need_qemu: bool = True) -> Tools:
    cc = shutil.which("aarch64-linux-gnu-gcc")
    qemu = shutil.which("qemu-aarch64") or shutil.which("qemu-aarch64-static")
    missing = [n for n, p in (("aarch64-linux-gnu-gcc", cc), ("qemu-aarch64", qemu if need_qemu else "ok")) if not p]
    if missing:
        raise UsageError(f"target neon needs {' and '.join(missing)}: {SETUP_HINT}")
    return Tools(cc, qemu)


def cache_dir() -> Path:
    base = os.environ.get("CIPHERSPEC_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "cipherspec")
    return Path(base) / "neon"


def build_static(tools: Tools, files: dict[str, str], sources: list[str], flags: list[str], name: str) -> Path:
    """Writes files into a cache directory keyed by their content and compiles sources into a static exe."""
    h = hashlib.sha256()
    for k in sorted(files):
        h.update(k.encode() + b"\0" + files[k].encode() + b"\0")
    h.update(" ".join(sources + flags + [tools.cc]).encode())
    d = cache_dir() / f"{name}-{h.hexdigest()[:16]}"
    exe = d / "harness"
    if exe.exists():
        return exe
    d.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=d.name + ".", dir=d.parent))
    try:
        for k, text in files.items():
            (tmp / k).write_text(text)
        cmd = [tools.cc, "-O2", "-static", "-o", str(tmp / "harness")] + flags + sources
        r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        if r.returncode:
            raise UsageError(f"aarch64 build failed ({' '.join(cmd)}):\n{r.stderr[-4000:]}")
        try:
            tmp.rename(d)
        except OSError:  # built concurrently by another process: theirs is as good
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return exe


def run_qemu(tools: Tools, exe: Path, data: bytes, timeout: float = 600, cpu: str | None = None,
             env: dict[str, str] | None = None) -> bytes:
    """stdout of exe fed data; cpu: a `qemu-aarch64 -cpu` model; env: variables added for the guest."""
    cmd = [tools.qemu] + (["-cpu", cpu] if cpu else []) + [str(exe)]
    r = subprocess.run(cmd, input=data, capture_output=True, timeout=timeout,
                       env={**os.environ, **env} if env else None)
    if r.returncode:
        raise UsageError(f"{exe.name} under qemu-aarch64 exited with {r.returncode}: {r.stderr.decode()[-2000:]}")
    return r.stdout
