"""AArch64 tools on an x86 host: find the cross compiler and QEMU, build static harnesses, run them.

    tools = find_tools()                 -> Tools(cc="aarch64-linux-gnu-gcc", qemu="qemu-aarch64") or raises
    exe = build_static(tools, {"k.S": asm, "k.h": hdr}, ["harness.c"], flags)   (cached by content hash)
    obj = cached_object(tools, "aes128_neon_key.c", text)   (one self-contained source, cached by content)
    out = run_qemu(tools, exe, stdin_bytes)
    static_library(cc, out_dir, ["k.S", "dispatch.c"], "libk.a")   (objects beside the sources)

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

from .cache import cache_root
from .errors import BuildError, ToolError

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
        raise ToolError(f"target neon needs {' and '.join(missing)}: {SETUP_HINT}")
    assert cc is not None  # not missing
    return Tools(cc, qemu)


def cache_dir() -> Path:
    return cache_root("neon")


def cached_object(tools: Tools, name: str, text: str) -> Path:
    """``cc -O2 -c`` of one self-contained C source (it includes no other generated file), cached by its
    content: a file shared by many builds (a cipher's key schedule) is compiled once."""
    h = hashlib.sha256(f"{name}\0{text}\0{tools.cc}".encode()).hexdigest()[:16]
    d = cache_dir() / "objects"
    obj = d / f"{Path(name).stem}-{h}.o"
    if obj.exists():
        return obj
    d.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=obj.stem + ".", dir=d))
    try:
        (tmp / name).write_text(text)
        cmd = [tools.cc, "-O2", "-c", "-o", str(tmp / "out.o"), name]
        r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        if r.returncode:
            raise BuildError(f"aarch64 build failed ({' '.join(cmd)}):\n{r.stderr[-4000:]}")
        os.replace(tmp / "out.o", obj)  # atomic: a concurrent build of the same object writes the same bytes
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return obj


def build_static(
    tools: Tools, files: dict[str, str], sources: list[str], flags: list[str], name: str, objects: tuple = ()
) -> Path:
    """Writes files into a cache directory keyed by their content and compiles sources (and links
    ``objects``, e.g. from cached_object) into a static exe."""
    h = hashlib.sha256()
    for k in sorted(files):
        h.update(k.encode() + b"\0" + files[k].encode() + b"\0")
    h.update(" ".join(sources + flags + [tools.cc] + [str(o) for o in objects]).encode())
    d = cache_dir() / f"{name}-{h.hexdigest()[:16]}"
    exe = d / "harness"
    if exe.exists():
        return exe
    d.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=d.name + ".", dir=d.parent))
    try:
        for k, text in files.items():
            (tmp / k).write_text(text)
        cmd = [tools.cc, "-O2", "-static", "-o", str(tmp / "harness")] + flags + sources + [str(o) for o in objects]
        r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        if r.returncode:
            raise BuildError(f"aarch64 build failed ({' '.join(cmd)}):\n{r.stderr[-4000:]}")
        try:
            tmp.rename(d)
        except OSError:  # built concurrently by another process: theirs is as good
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return exe


def run_qemu(
    tools: Tools,
    exe: Path,
    data: bytes,
    timeout: float = 600,
    cpu: str | None = None,
    env: dict[str, str] | None = None,
) -> bytes:
    """stdout of exe fed data; cpu: a `qemu-aarch64 -cpu` model; env: variables added for the guest."""
    if tools.qemu is None:  # tools from find_tools(need_qemu=False)
        raise ToolError(f"running {exe.name} needs qemu-aarch64: {SETUP_HINT}")
    cmd = [tools.qemu] + (["-cpu", cpu] if cpu else []) + [str(exe)]
    r = subprocess.run(
        cmd, input=data, capture_output=True, timeout=timeout, env={**os.environ, **env} if env else None
    )
    if r.returncode:
        raise ToolError(f"{exe.name} under qemu-aarch64 exited with {r.returncode}: {r.stderr.decode()[-2000:]}")
    return r.stdout


def static_library(cc: str, out_dir: Path, sources: list[str], lib: str) -> Path:
    """Compiles ``sources`` (in out_dir) with ``cc -O2 -c`` and archives them into out_dir/``lib``."""
    objs = []
    for src in sources:
        obj = out_dir / (Path(src).stem + ".o")
        r = subprocess.run([cc, "-O2", "-c", "-o", str(obj), str(out_dir / src)], capture_output=True, text=True)
        if r.returncode:
            raise BuildError(f"compiling {src} failed:\n{r.stderr[-3000:]}")
        objs.append(str(obj))
    path = out_dir / lib
    ar = shutil.which("aarch64-linux-gnu-ar") or shutil.which("llvm-ar")
    if ar:
        path.unlink(missing_ok=True)
        r = subprocess.run([ar, "rcsD", str(path)] + objs, capture_output=True, text=True)
        if r.returncode:
            raise BuildError(f"{ar} failed on {lib}:\n{r.stderr[-3000:]}")
    return path
