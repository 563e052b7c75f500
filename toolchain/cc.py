"""Compile generated sources with a C/C++/CUDA compiler, cached by content.

Generic on purpose: any compiler driver that takes ``-o OUT`` (cc, clang --target=..., aarch64 gcc,
nvcc).  The cache key is a SHA-256 over the source texts, the compiler's identity (its --version
and -dumpmachine output), the flags and the output kind, so a generator change, a flag change or
a compiler upgrade all rebuild.  Builds are atomic (a temp dir renamed into place) and locked, so
parallel test workers build each artefact once.

    tc = Toolchain(cc="cc", flags=("-O3", "-march=native"))
    lib = compile_cached({"src/lea128.c": text, "include/lea128.h": h}, ["src/lea128.c"],
                         kind="shared", toolchain=tc, include_dirs=["include"])   -> Path to .so
    obj = compile_cached(files, ["src/lea128.c"], "object", tc, ["include"], ["-DX=1"])   -> Path to .o
    so = link_cached([obj1, obj2], "shared", tc, ["-Wl,--gc-sections"])       (objects of kind "object")

Cache directory: $CIPHERSPEC_CACHE, else ~/.cache/cipherspec.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .cache import cache_root
from .errors import BuildError

KINDS = {
    "shared": ("lib.so", ("-shared", "-fPIC")),
    "object": ("out.o", ("-c",)),
    "exe": ("a.out", ()),
    "static": ("lib.a", ("-c",)),
}


@dataclass(frozen=True)
class Toolchain:
    cc: str = "cc"
    flags: tuple[str, ...] = ()
    link_flags: tuple[str, ...] = ()
    ar: str = "ar"
    env: tuple[tuple[str, str], ...] = field(default=())

    @staticmethod
    def host(flags: tuple[str, ...] = ("-std=c99", "-O3", "-march=native")) -> "Toolchain":
        """The host compiler: $CC (default cc); $CIPHERSPEC_CFLAGS replaces the default flags."""
        extra = os.environ.get("CIPHERSPEC_CFLAGS")
        return Toolchain(cc=os.environ.get("CC", "cc"), flags=tuple(shlex.split(extra)) if extra else flags)


def cache_dir() -> Path:
    return cache_root()


@functools.cache
def compiler_id(cc: str) -> str:
    """What identifies a compiler for caching: its --version banner and target triple."""
    try:
        v = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=60)
        m = subprocess.run([cc, "-dumpmachine"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BuildError(f"compiler '{cc}' cannot run: {e}") from None
    return (v.stdout.splitlines() or [""])[0] + " / " + m.stdout.strip()


def run_tool(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    except OSError as e:
        raise BuildError(f"cannot run {cmd[0]}: {e.strerror}") from None
    if p.returncode != 0:
        msg = "\n".join((p.stderr or p.stdout).strip().splitlines()[:20])
        raise BuildError(f"{' '.join(cmd[:1] + cmd[-4:])} failed (exit {p.returncode}):\n{msg}")


def compile_tree(
    root: Path,
    mains: list[str],
    kind: str,
    toolchain: Toolchain,
    out: Path,
    include_dirs: Sequence[str] = (),
    extra_args: Sequence[str] = (),
) -> Path:
    """Compiles the sources ``mains`` under ``root`` into ``out`` (no cache)."""
    if kind not in KINDS:
        raise ValueError(f"unknown output kind {kind!r}")
    incs = [f"-I{root / d}" for d in include_dirs]
    env = dict(os.environ, **dict(toolchain.env)) if toolchain.env else None
    srcs = [str(root / m) for m in mains]
    if kind == "static":
        objs = []
        for i, s in enumerate(srcs):
            obj = out.with_name(f"{out.stem}.{i}.o")
            run_tool([toolchain.cc, *toolchain.flags, *incs, *extra_args, "-c", s, "-o", str(obj)], root, env)
            objs.append(str(obj))
        run_tool([toolchain.ar, "rcsD", str(out), *objs], root, env)
        for o in objs:
            os.unlink(o)
        return out
    _, kind_flags = KINDS[kind]
    run_tool(
        [toolchain.cc, *toolchain.flags, *kind_flags, *incs, *extra_args, *srcs, *toolchain.link_flags, "-o", str(out)],
        root,
        env,
    )
    return out


def cache_key(
    sources: dict[str, str],
    mains: list[str],
    kind: str,
    toolchain: Toolchain,
    include_dirs: list[str],
    extra_args: list[str],
) -> str:
    blob = json.dumps(
        {
            "sources": sorted(sources.items()),
            "mains": list(mains),
            "kind": kind,
            "cc": compiler_id(toolchain.cc),
            "flags": list(toolchain.flags),
            "link": list(toolchain.link_flags),
            "env": list(toolchain.env),
            "inc": list(include_dirs),
            "extra": list(extra_args),
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def compile_cached(
    sources: dict[str, str],
    mains: list[str],
    kind: str,
    toolchain: Toolchain,
    include_dirs: Sequence[str] = (),
    extra_args: Sequence[str] = (),
    cache: Path | None = None,
) -> Path:
    """Writes ``sources`` (relative path -> text) into a cache entry and compiles ``mains`` there, once."""
    key = cache_key(sources, mains, kind, toolchain, list(include_dirs), list(extra_args))

    def make(tmp: Path) -> None:
        for rel, text in sources.items():
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        compile_tree(tmp, mains, kind, toolchain, tmp / KINDS[kind][0], list(include_dirs), list(extra_args))

    return _cached_entry(cache or cache_dir(), key, KINDS[kind][0], make)


def link_cached(
    objects: list[Path], kind: str, toolchain: Toolchain, extra_args: Sequence[str] = (), cache: Path | None = None
) -> Path:
    """Links object files (e.g. from ``compile_cached(..., "object", ...)``) into a static archive (``ar``), a
    shared library or an executable, once per distinct set of object contents, toolchain and flags.

        so = link_cached([a_o, b_o], "shared", tc, ["-Wl,--gc-sections"])
    """
    if kind not in ("static", "shared", "exe"):
        raise ValueError(f"link_cached makes a static or shared library or an executable, not {kind!r}")
    digests = [hashlib.sha256(Path(o).read_bytes()).hexdigest() for o in objects]
    blob = json.dumps(
        {
            "objects": digests,
            "kind": kind,
            "cc": compiler_id(toolchain.cc),
            "flags": list(toolchain.flags),
            "link": list(toolchain.link_flags),
            "env": list(toolchain.env),
            "extra": list(extra_args),
            "ar": toolchain.ar,
            "members": "named",
        },
        sort_keys=True,
    )
    key = hashlib.sha256(blob.encode()).hexdigest()

    def make(tmp: Path) -> None:
        env = dict(os.environ, **dict(toolchain.env)) if toolchain.env else None
        if kind == "static":  # members named apart (every cached object is out.o): `ar x` gets them all
            members = []
            for i, o in enumerate(objects):
                members.append(tmp / f"m{i:03d}_{Path(o).parent.name[:12]}.o")
                shutil.copyfile(o, members[-1])
            run_tool([toolchain.ar, "rcsD", str(tmp / KINDS[kind][0]), *[m.name for m in members]], tmp, env)
            for m in members:
                m.unlink()
            return
        run_tool(
            [
                toolchain.cc,
                *toolchain.flags,
                *KINDS[kind][1],
                *[str(o) for o in objects],
                *extra_args,
                *toolchain.link_flags,
                "-o",
                str(tmp / KINDS[kind][0]),
            ],
            tmp,
            env,
        )

    return _cached_entry(cache or cache_dir(), key, KINDS[kind][0], make)


def _cached_entry(cache: Path, key: str, artefact_name: str, make) -> Path:
    """``cache/key[:2]/key/artefact_name``, made once by ``make(tmp_dir)`` under a lock and renamed into
    place (parallel test workers build each artefact once; an interrupted build leaves nothing)."""
    final = cache / key[:2] / key
    artefact = final / artefact_name
    if artefact.exists():
        return artefact
    final.parent.mkdir(parents=True, exist_ok=True)
    with open(final.parent / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if artefact.exists():  # another worker built it while we waited
            return artefact
        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=final.parent))
        try:
            make(tmp)
            if final.exists():
                shutil.rmtree(final)
            os.rename(tmp, final)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return artefact


@functools.cache
def target_machine(cc: str) -> str:
    """The compiler's target triple (``cc -dumpmachine``): x86_64-linux-gnu, aarch64-linux-gnu, ..."""
    return compiler_id(cc).rsplit(" / ", 1)[-1]
