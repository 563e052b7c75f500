"""A fast start for the commands that run one cipher (encrypt, decrypt, drbg) on the C target.

Finding a cipher's library the normal way parses every spec file, lowers and optimizes the cipher and
generates its C, only to find the library in the build cache by the hash of that C: about a second, and
numpy, lark and Jinja imported, for a command that may then run for milliseconds.  This module remembers
the answer in a small entry of the build cache (a JSON manifest), keyed by a SHA-256 over everything that
decides it: the compiler's own files (cipherspec/, generator/, runtime/, toolchain/: code, grammar,
shipped specs, templates, defaults), the extra spec files, the cipher, rounds, target and schedule, and
the host compiler settings ($CC, the file it resolves to with its size and modification time,
$CIPHERSPEC_CFLAGS).  A change to any of them is another key, so an entry cannot go stale.  The entry
holds what loading the library needs (its path and SHA-256, the schedule it was built for, the block
and key sizes); on a hit the library's bytes must still hash to the recorded digest and the library must
name the recorded schedule, else it is a miss.  A hit parses, lowers, generates and imports nothing of
the compiler: it returns a runtime.c_library.CLibrary (ctypes only).  A miss takes the slow path (a
status line on a terminal: it may compile), returns the full CCipher and writes the entry.

    cipher = load_cipher(extra_specs, "lea128", rounds=None, target="c", schedule=None)

Cost of a hit (`python3 bench/cli/startup.py`; load 5, 2 shared cores): the key ~9 ms (reading and
hashing the ~0.9 MB of the compiler's ~185 files: kept, as the one check that the compiler is the one
that built the library), the library's digest, dlopen and the symbols together ~0.6 ms.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from runtime.c_library import CLibrary
from toolchain.cache import cache_root

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cipherspec", "generator", "runtime", "toolchain")
SUFFIXES = (".py", ".lark", ".cs", ".j2", ".json", ".c", ".h", ".S")
ENTRY_VERSION = 2  # 1: a pickle of (module, schedule, path)


def fingerprint(extra_specs, name: str, rounds: int | None, target: str, schedule: str | None) -> str | None:
    """The entry's key, or None when a spec file cannot be read (the slow path reports it)."""
    h = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        h.update(label.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

    for pkg in PACKAGES:  # os.walk, not Path.rglob: this runs on every start
        top = _package_dir(pkg)
        root = os.path.dirname(top)
        for folder, subdirs, files in os.walk(top):
            subdirs[:] = sorted(d for d in subdirs if d not in ("__pycache__", "_impl"))
            for file in sorted(f for f in files if f.endswith(SUFFIXES)):
                path = os.path.join(folder, file)
                with open(path, "rb") as f:
                    add(path[len(root) + 1 :], f.read())
    try:
        for spec in extra_specs:
            add(f"spec {Path(spec).resolve()}", Path(spec).read_bytes())
    except OSError:
        return None
    add("settings", json.dumps([ENTRY_VERSION, name, rounds, target, schedule, *_compiler()]).encode())
    return h.hexdigest()


def _package_dir(pkg: str) -> str:
    """Where a package's files are: beside driver/ in a checkout; in the wheel the core is the package that
    holds them (cipherspec/_impl/driver -> cipherspec), so its own folder is walked without _impl."""
    if pkg == "cipherspec" and not (ROOT / pkg).is_dir():
        return str(ROOT.parent)
    return str(ROOT / pkg)


def _compiler() -> list:
    """$CC, the file it runs (an upgrade replaces it) and $CIPHERSPEC_CFLAGS."""
    cc = os.environ.get("CC", "cc")
    found = shutil.which(cc)
    real = os.path.realpath(found) if found else None
    st = os.stat(real) if real else None
    return [cc, found, real, st and st.st_size, st and st.st_mtime_ns, os.environ.get("CIPHERSPEC_CFLAGS")]


def _entry(key: str) -> Path:
    return cache_root("quickload") / f"{key}.json"


def _digest(path) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _hit(key: str, name: str, rounds: int | None) -> CLibrary | None:
    try:
        e = json.loads(_entry(key).read_text())
        if e["cipher"] != name or e["rounds"] != rounds:
            return None  # (a second check of the key: the entry must be of the cipher asked for)
        if _digest(e["lib"]) != e["lib_sha256"]:
            return None  # the library was rebuilt or damaged since
        return CLibrary(Path(e["lib"]), name, e["block_bytes"], e["key_bytes"], e["schedule"])
    except Exception:  # no entry, a damaged one, a library gone or of another schedule: a miss
        return None


def _remember(key: str, cipher: CLibrary, rounds: int | None) -> None:
    entry = {
        "cipher": cipher.name,
        "rounds": rounds,
        "schedule": cipher.schedule_name,
        "block_bytes": cipher.block_bytes,
        "key_bytes": cipher.key_bytes,
        "lib": str(cipher.lib_path),
        "lib_sha256": _digest(cipher.lib_path),
    }
    try:
        path = _entry(key)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(entry, indent=1) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the fast start


def load_cipher(extra_specs, name: str, rounds: int | None = None, target: str = "c", schedule: str | None = None):
    """The cipher object of ``make_cipher`` (on a hit, its CLibrary part), through the entry when there is one."""
    key = fingerprint(extra_specs, name, rounds, target, schedule) if target == "c" else None
    if key is not None:
        cipher = _hit(key, name, rounds)
        if cipher is not None:
            return cipher
    from cipherspec.registry import Registry

    from .progress import working
    from .targets import make_cipher

    note = f"preparing {name} for target {target} (generated and compiled on first use, then cached)"
    with working(note if target != "ref" else None):
        cipher = make_cipher(Registry(extra=list(extra_specs)), name, rounds, target, schedule)
    if key is not None and isinstance(cipher, CLibrary):
        _remember(key, cipher, rounds)
    return cipher
