"""Finding and running nvcc: compile CUDA sources (cached by content hash) and read ptxas's report.

    find_nvcc()                         -> Path or None (CIPHERSPEC_NVCC, PATH, /usr/local/cuda*/bin,
                                           the PyPI wheel nvidia-cuda-nvcc: site-packages/nvidia/cu13/bin)
    compile_cubin(cu_path, "sm_90")     -> Report(arch, kernels={name: KernelUsage})
    build_library(cu_path, out_so)      -> shared library for this machine's GPU (sm_90 + PTX); flavours=1|2
                                           compiles one kernel flavour only, ab=False no A/B baseline kernel
                                           (what `cipherspec build` ships); parts=[gcm.cu]: more translation
                                           units linked in (a spec family's GCM object)
    compile_object(cu_path), link_library([objects], out_so)   -> the same in steps (the build's job graph)

The cache (CIPHERSPEC_CACHE, default ~/.cache/cipherspec/nvcc) keys each result by the hash of
the source, the headers beside it, the nvcc version and the flags, so a test run recompiles only
what changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .cache import cache_root
from .errors import BuildError, ToolError

ARCHS = ("sm_90", "sm_80")  # what CI compiles for: Hopper, and Ampere as the older arch


def _wheel_dirs() -> list[Path]:
    dirs = []
    for base in sys.path:
        for sub in ("cu13", "cu12", "cuda_nvcc"):
            d = Path(base or ".") / "nvidia" / sub / "bin"
            if (d / "nvcc").is_file():
                dirs.append(d)
    return dirs


def find_nvcc() -> Path | None:
    env = os.environ.get("CIPHERSPEC_NVCC")
    if env:
        return Path(env) if Path(env).is_file() else None
    hit = shutil.which("nvcc")
    if hit:
        return Path(hit)
    for d in sorted(Path("/usr/local").glob("cuda*/bin")):
        if (d / "nvcc").is_file():
            return d / "nvcc"
    dirs = _wheel_dirs()
    return dirs[0] / "nvcc" if dirs else None


def _env_for(nvcc: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{nvcc.parent}{os.pathsep}{env.get('PATH', '')}"  # ptxas, fatbinary beside nvcc
    return env


def nvcc_version(nvcc: Path) -> str:
    out = subprocess.run([str(nvcc), "--version"], capture_output=True, text=True, env=_env_for(nvcc))
    return out.stdout.strip().splitlines()[-1] if out.stdout else "unknown"


def cache_dir() -> Path:
    return cache_root("nvcc")


def _key(cu: Path, flags: list[str], nvcc: Path) -> str:
    h = hashlib.sha256()
    h.update(nvcc_version(nvcc).encode())
    h.update(" ".join(flags).encode())
    h.update(cu.read_bytes())
    for hdr in sorted(cu.parent.glob("*.h")):
        if hdr.stem == cu.stem:
            h.update(hdr.read_bytes())
    return h.hexdigest()[:24]


@dataclass
class KernelUsage:
    registers: int = 0
    stack: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    local: int = 0  # lmem bytes

    @property
    def clean(self) -> bool:
        return self.stack == 0 and self.spill_stores == 0 and self.spill_loads == 0 and self.local == 0


@dataclass
class Report:
    arch: str
    kernels: dict[str, KernelUsage] = field(default_factory=dict)
    text: str = ""
    functions: dict[str, KernelUsage] = field(default_factory=dict)  # called (.func) device functions: their own frames


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_REGS = re.compile(r"Used (\d+) registers")
_LMEM = re.compile(r"(\d+) bytes lmem")


def parse_report(text: str, arch: str) -> Report:
    rep = Report(arch, text=text)
    cur = None
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            cur = rep.kernels.setdefault(m.group(1), KernelUsage())
            continue
        m = _PROPS.search(line)
        if m and m.group(1) not in rep.kernels:  # a called function's frame (after its caller's): not the kernel's
            cur = rep.functions.setdefault(m.group(1), KernelUsage())
            continue
        if cur is None:
            continue
        m = _FRAME.search(line)
        if m:
            cur.stack, cur.spill_stores, cur.spill_loads = map(int, m.groups())
        m = _REGS.search(line)
        if m:
            cur.registers = int(m.group(1))
        m = _LMEM.search(line)
        if m:
            cur.local = int(m.group(1))
    return rep


def _run(cmd: list[str], nvcc: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, env=_env_for(nvcc))


def require_nvcc() -> Path:
    nvcc = find_nvcc()
    if nvcc is None:
        raise ToolError(
            "nvcc not found (install the CUDA toolkit, or `pip install nvidia-cuda-nvcc`, or set CIPHERSPEC_NVCC)"
        )
    return nvcc


_CUBIN_FLAGS = ["-O3", "-Xptxas", "-v", "-std=c++17"]


def _variant(flavours: int, ab: bool) -> list[str]:
    """The -D flags that pick what a source compiles: its kernel flavours (CS_FLAVOURS: 1 inline PTX, 2 plain C,
    3 both) and the device A/B's baseline kernels (CS_AB).  (3, True) adds none: the source's own defaults."""
    return ([f"-DCS_FLAVOURS={flavours}"] if flavours != 3 else []) + ([] if ab else ["-DCS_AB=0"])


def cubin_path(cu: Path, arch: str, flavours: int = 3, ab: bool = True) -> Path:
    """Where compile_cubin caches the cubin of this .cu's content (not of its name: another checkout's source
    of the same schedule name has its own)."""
    key = _key(cu, ["-cubin", f"-arch={arch}", *_CUBIN_FLAGS, *_variant(flavours, ab)], require_nvcc())
    return cache_dir() / f"{cu.stem}.{arch}.{key}.cubin"


def compile_cubin(cu: Path, arch: str, flavours: int = 3, ab: bool = True) -> Report:
    """nvcc -cubin for one arch with -Xptxas -v; the parsed report (cached).  ``flavours`` and ``ab`` as for
    build_library: (the schedule's flavour, False) compiles the kernels `cipherspec build` ships."""
    nvcc = require_nvcc()
    flags = ["-cubin", f"-arch={arch}", *_CUBIN_FLAGS, *_variant(flavours, ab)]
    key = _key(cu, flags, nvcc)
    hit = cache_dir() / f"{cu.stem}.{arch}.{key}.ptxas.txt"
    if hit.is_file():
        return parse_report(hit.read_text(), arch)
    out = cache_dir() / f"{cu.stem}.{arch}.{key}.cubin"
    res = _run([str(nvcc), *flags, "-I", str(cu.parent), "-o", str(out), str(cu)], nvcc)
    if res.returncode:
        raise BuildError(f"nvcc failed on {cu.name} for {arch}:\n{res.stderr[-4000:]}")
    text = res.stderr + res.stdout
    tmp = hit.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(hit)
    return parse_report(text, arch)


def split_threads() -> int:
    """Threads one nvcc's ptxas may use (``-Xptxas --split-compile``): every CPU, so the last library of a
    parallel build, or a build of one, keeps them all busy; CIPHERSPEC_NVCC_THREADS overrides it."""
    env = os.environ.get("CIPHERSPEC_NVCC_THREADS", "")
    return int(env) if env.isdigit() and int(env) > 0 else max(1, os.cpu_count() or 1)


def _gencode(arch: str | None) -> str:
    """sm_90 plus its PTX (CIPHERSPEC_CUDA_ARCH or ``arch`` for another)."""
    num = (arch or os.environ.get("CIPHERSPEC_CUDA_ARCH", "sm_90")).split("_")[1]
    return f"-gencode=arch=compute_{num},code=[sm_{num},compute_{num}]"


def _library_flags(arch: str | None, flavours: int, ab: bool) -> list[str]:
    return ["-Xcompiler", "-fPIC", "-O3", "-std=c++17", _gencode(arch)] + _variant(flavours, ab)


def _speed() -> list[str]:
    # ptxas compiles the kernels on several threads: the same SASS (bench/cuda/sass_same.py), so it stays out
    # of the cache key.  Not nvcc's --split-compile: splitting cicc's optimizer moved registers and
    # instructions in some kernels (SM4's gcm_long, the GCM join kernel), the same counts but not the same code
    return ["-Xptxas", f"--split-compile={split_threads()}"]


def _place(hit: Path, out: Path) -> Path:
    """The cached file at ``out`` (unless it is there already)."""
    if out != hit and not (out.is_file() and out.read_bytes() == hit.read_bytes()):
        # a new file renamed into place: a process that has the old one mapped keeps its inode
        # (copying over it in place truncates pages under that process: SIGBUS/SIGSEGV)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        shutil.copyfile(hit, tmp)
        tmp.replace(out)
    return out


def _produce(hit: Path, nvcc: Path, before: list[str], after: list[str], what: str) -> Path:
    """``hit`` (a cache entry), made by ``nvcc <before> -o <a temporary> <after>`` unless it is there; the temporary
    is renamed into place, so a concurrent build never reads half a file."""
    if not hit.is_file():
        tmp = hit.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        res = _run([str(nvcc), *before, "-o", str(tmp), *after], nvcc)
        if res.returncode:
            raise BuildError(f"nvcc failed {what}:\n{res.stderr[-4000:]}")
        tmp.replace(hit)
    return hit


def compile_object(cu: Path, arch: str | None = None, flavours: int = 3, ab: bool = True) -> Path:
    """nvcc -c of one translation unit of a library (build_library's flags), cached by content alone: a spec
    family's GCM object, one text for its members (generator/ptx/source.py's parts), compiles once for them all
    whatever its file is called."""
    nvcc = require_nvcc()
    flags = ["-c", *_library_flags(arch, flavours, ab)]
    key = _key(cu, flags, nvcc)
    hit = cache_dir() / f"obj.{key}.o"
    return _produce(hit, nvcc, [*flags, *_speed(), "-I", str(cu.parent)], [str(cu)], f"compiling {cu.name}")


def link_library(objects: list[Path], out: Path, arch: str | None = None) -> Path:
    """The shared library of compiled objects (compile_object's; their names are their content's keys), cached."""
    nvcc = require_nvcc()
    flags = ["-shared", "-Xcompiler", "-fPIC", _gencode(arch)]
    key = hashlib.sha256(" ".join([nvcc_version(nvcc), *flags, *(o.name for o in objects)]).encode()).hexdigest()[:24]
    hit = cache_dir() / f"{out.stem}.{key}.so"
    return _place(_produce(hit, nvcc, flags, [str(o) for o in objects], f"linking {out.name}"), out)


def build_library(
    cu: Path, out: Path, arch: str | None = None, flavours: int = 3, ab: bool = True, parts: tuple[Path, ...] = ()
) -> Path:
    """A shared library of the .cu for ``arch`` (default: sm_90 plus PTX), cached by content.  ``flavours``:
    the kernel flavours compiled in (the source's CS_FLAVOURS: 1 inline PTX, 2 plain C, 3 both); `cipherspec
    build` ships only the schedule's default one, the runtime (tests, benchmarks) builds both.  ``ab``: the
    device A/B's baseline kernels too (the source's CS_AB; `cipherspec build` leaves them out).  ``parts``: other
    translation units of the library (a spec family's GCM object), each compiled apart and linked in."""
    if parts:
        objects = [compile_object(c, arch, flavours, ab) for c in (cu, *parts)]
        return link_library(objects, out, arch)
    nvcc = require_nvcc()
    flags = ["-shared", *_library_flags(arch, flavours, ab)]
    key = _key(cu, flags, nvcc)
    hit = cache_dir() / f"{cu.stem}.{key}.so"
    return _place(_produce(hit, nvcc, [*flags, *_speed(), "-I", str(cu.parent)], [str(cu)], f"building {cu.name}"), out)


def report_json(rep: Report) -> str:
    return json.dumps({k: vars(v) for k, v in sorted(rep.kernels.items())}, indent=1)
