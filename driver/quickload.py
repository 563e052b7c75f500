"""A fast start for the commands that run one cipher (encrypt, decrypt, drbg) on the C target.

Finding a cipher's library the normal way parses every spec file, lowers and optimizes the cipher and
generates its C, only to find the library in the build cache by the hash of that C: about a second,
for a command that may then run for milliseconds.  This module remembers the answer in a small entry
of the build cache, keyed by a SHA-256 over everything that decides it: the compiler's own files
(cipherspec/, generator/, runtime/, toolchain/: code, grammar, shipped specs, templates, defaults),
the extra spec files, the cipher, rounds, target and schedule, and the host compiler settings ($CC,
where it is found, $CIPHERSPEC_CFLAGS).  A change to any of them is another key, so an entry cannot go
stale; an entry whose library has gone is a miss.  An entry holds the optimized module, the schedule and
the library's path, as a pickle in the same directory, and so the same trust, as the libraries loaded
from it.  On a hit nothing is parsed, lowered or generated (~20 ms instead of ~1 s).

    cipher = load_cipher(extra_specs, "lea128", rounds=None, target="c", schedule=None)
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from pathlib import Path

from runtime.c_target import CCipher
from toolchain.cache import cache_root

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cipherspec", "generator", "runtime", "toolchain")
SUFFIXES = (".py", ".lark", ".cs", ".j2", ".json", ".c", ".h", ".S")


def fingerprint(extra_specs, name: str, rounds: int | None, target: str, schedule: str | None) -> str | None:
    """The entry's key, or None when a spec file cannot be read (the slow path reports it)."""
    h = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        h.update(label.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

    root = str(ROOT)
    for pkg in PACKAGES:  # os.walk, not Path.rglob: this runs on every start (~10 ms for ~120 files)
        for folder, subdirs, files in os.walk(os.path.join(root, pkg)):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            for file in sorted(f for f in files if f.endswith(SUFFIXES)):
                path = os.path.join(folder, file)
                with open(path, "rb") as f:
                    add(path[len(root) + 1 :], f.read())
    try:
        for spec in extra_specs:
            add(f"spec {Path(spec).resolve()}", Path(spec).read_bytes())
    except OSError:
        return None
    cc = os.environ.get("CC", "cc")
    add(
        "settings",
        json.dumps(
            [name, rounds, target, schedule, cc, shutil.which(cc), os.environ.get("CIPHERSPEC_CFLAGS")]
        ).encode(),
    )
    return h.hexdigest()


def _entry(key: str) -> Path:
    return cache_root("quickload") / f"{key}.pickle"


def _hit(key: str, name: str, rounds: int | None) -> CCipher | None:
    try:
        module, schedule, lib = pickle.loads(_entry(key).read_bytes())
        if module.cipher != name or schedule.rounds != rounds or not Path(lib).is_file():
            return None  # (a second check of the key: the entry must be of the cipher asked for)
        return CCipher(module, schedule, Path(lib))
    except Exception:  # no entry, a damaged one, or a library that changed: a miss
        return None


def _remember(key: str, cipher: CCipher) -> None:
    try:
        entry = _entry(key)
        tmp = entry.with_name(f".{entry.name}.{os.getpid()}")
        tmp.write_bytes(pickle.dumps((cipher.module, cipher.schedule, str(cipher.lib_path))))
        os.replace(tmp, entry)
    except OSError:
        pass  # a read-only cache only costs the fast start


def load_cipher(extra_specs, name: str, rounds: int | None = None, target: str = "c", schedule: str | None = None):
    """The cipher object of ``make_cipher``, through the remembered entry when there is one."""
    key = fingerprint(extra_specs, name, rounds, target, schedule) if target == "c" else None
    if key is not None:
        cipher = _hit(key, name, rounds)
        if cipher is not None:
            return cipher
    from cipherspec.registry import Registry

    from .targets import make_cipher

    cipher = make_cipher(Registry(extra=list(extra_specs)), name, rounds, target, schedule)
    if key is not None and isinstance(cipher, CCipher):
        _remember(key, cipher)
    return cipher
