"""CPU and wall time of `cipherspec build --target cuda` from an empty cache, with the load average beside them.

    python3 bench/cuda/build_time.py --all                       every shipped cipher
    python3 bench/cuda/build_time.py --spec examples/ciphers/sm4.cs   every cipher of one spec file
    python3 bench/cuda/build_time.py --spec FILE --repo ../main  the same build by another checkout (before/after)
    python3 bench/cuda/build_time.py --cipher aes128             one shipped cipher
    python3 bench/cuda/build_time.py --cipher aes128 --keep DIR  ... its cache and libraries kept in DIR
    -> {"what": "sm4.cs", "ciphers": 1, "cpu_s": 61.2, "wall_s": 40.3, "load1_start": 1.9, "load1_end": 2.1, ...}

CPU is user+sys of the whole process tree (the driver, nvcc and everything nvcc runs: RUSAGE_CHILDREN), which
the other users of a shared machine do not change much; wall is only meaningful with the load average near 0
(on 2 cores the best wall is about CPU/2).  Each run gets a fresh CIPHERSPEC_CACHE (a temporary directory).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def spec_ciphers(repo: Path, spec: Path) -> list[str]:
    """The cipher names a spec file defines (read with that checkout's parser)."""
    code = "import sys; from cipherspec.parse import parse_file; print(' '.join(c.name for c in parse_file(sys.argv[1]).ciphers))"
    out = subprocess.run([sys.executable, "-c", code, str(spec.resolve())], cwd=repo, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"cannot read {spec}: {out.stderr.strip().splitlines()[-1:]}")
    return out.stdout.split()


def measure(repo: Path, args: list[str], what: str, ciphers: int, keep: Path | None = None) -> dict:
    """``keep``: build into keep/cache and keep/out (left there, e.g. for bench/cuda/sass_same.py), not temporaries."""
    if keep is not None:
        (keep / "cache").mkdir(parents=True)  # (fails if there: an empty cache is the point)
        (keep / "out").mkdir()
    with (
        tempfile.TemporaryDirectory() if keep is None else _Kept(keep / "cache") as cache,
        tempfile.TemporaryDirectory() if keep is None else _Kept(keep / "out") as out,
    ):
        env = dict(os.environ, CIPHERSPEC_CACHE=cache)
        cmd = [sys.executable, "-m", "driver", "build", *args, "--target", "cuda", "-o", out]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        load0 = os.getloadavg()[0]
        t0 = time.monotonic()
        res = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        libs = len(list(Path(out).glob("*.so")))
    if res.returncode:
        raise SystemExit(f"build failed ({what}):\n{res.stderr[-3000:]}")
    return {
        "what": what,
        "repo": str(repo),
        "ciphers": ciphers,
        "libraries": libs,
        "cpu_s": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 1),
        "wall_s": round(wall, 1),
        "load1_start": round(load0, 2),
        "load1_end": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


class _Kept:
    """A directory that stays after the ``with`` (TemporaryDirectory's interface)."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> str:
        return str(self.path)

    def __exit__(self, *exc) -> None:
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="every shipped cipher (cipherspec build --all)")
    ap.add_argument("--spec", action="append", default=[], help="a spec file: build all its ciphers (repeatable)")
    ap.add_argument("--cipher", action="append", default=[], help="one shipped cipher (repeatable)")
    ap.add_argument("--repo", default=".", help="the checkout whose driver builds (default: this one)")
    ap.add_argument("--json", help="append each result as a JSON line to this file")
    ap.add_argument("--keep", help="build into KEEP/cache and KEEP/out and keep them (one build only)")
    a = ap.parse_args()
    repo = Path(a.repo).resolve()
    runs: list[tuple[list[str], str, int]] = []
    if a.all:
        runs.append((["--all"], "--all", 0))
    for name in a.cipher:
        runs.append(([name], name, 1))
    for spec in a.spec:
        names = spec_ciphers(repo, Path(spec))
        runs.append((["--spec", str(Path(spec).resolve()), *names], Path(spec).name, len(names)))
    for args, what, n in runs:
        row = measure(repo, args, what, n, Path(a.keep) if a.keep else None)
        line = json.dumps(row)
        print(line, flush=True)
        if a.json:
            with open(a.json, "a") as f:
                f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
