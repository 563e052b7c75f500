"""`cipherspec encrypt lea128 --mode ctr` over 1 GiB: wall time, MB/s and peak RSS of the command, against
the library's own CTR throughput measured in the same run.

    python3 bench/cli/bench.py [--mib 1024] [--reps 5] [--cipher lea128] [--out bench/results]

The command:  head -c SIZE /dev/zero | python3 -m driver encrypt CIPHER --mode ctr --key-file K --iv IV > /dev/null
(``python3 -m driver`` is the ``cipherspec`` command of this checkout).  Its wall time runs from the
fork of the process to its exit, so it includes the interpreter's start, imports and loading the
library; wall, peak RSS and CPU time are measured by tests/support/peak_rss.py around that process alone.  "startup" is the same command on
empty input; "streaming" is SIZE / (wall - startup).
The library: <cipher>_ctr of the same C library (the default schedule), called through ctypes on a
64 MiB buffer in place, SIZE bytes per measurement: the C function's own speed.  Library and command
runs alternate, so load from elsewhere hits both; the figures are medians.
Verification: one extra run of the command, its output piped into this process, must hash (SHA-256)
to the library's keystream over SIZE bytes of zeros; a mismatch stops the benchmark.
The commands inherit this process's environment; where it sets PYTHONDONTWRITEBYTECODE (this project's
sandbox does) each run compiles the command's modules from source, as no installed package does (pip
compiles them at install).  One more start-up figure is taken with bytecode cached (in a temporary
PYTHONPYCACHEPREFIX) to show that difference; the headline figures use the inherited environment.
Writes OUT/cli.md and OUT/cli.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from driver.quickload import load_cipher  # noqa: E402

PEAK_RSS = ROOT / "tests" / "support" / "peak_rss.py"
BUF = 64 << 20
KEY = bytes(range(16))
IV = bytes(range(0xF0, 0x100))


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def library_run(c, rk, size: int, digest=None) -> dict:
    """The C library's CTR over ``size`` bytes of zeros, 64 MiB per call, in place: MB/s (wall) and the
    CPU seconds of this thread (the zeroing between calls included: ~1% of it)."""
    buf = np.zeros(BUF, np.uint8)
    iv = np.frombuffer(IV, np.uint8).copy()
    t, cpu = time.perf_counter(), time.thread_time()
    for off in range(0, size, BUF):
        n = min(BUF, size - off)
        buf[:n] = 0
        c.crypt_into(rk, "ctr", "encrypt", buf, n, iv)
        if digest is not None:
            digest.update(buf[:n])
    return {"mbs": size / (time.perf_counter() - t) / 1e6, "cpu_s": time.thread_time() - cpu}


def command(cipher: str, keyfile: str) -> list[str]:
    return [sys.executable, "-m", "driver", "encrypt", cipher, "--mode", "ctr", "--key-file", keyfile, "--iv", IV.hex()]


def run_command(
    argv: list[str], size: int, source: str | None = None, verify: bool = False, env: dict | None = None
) -> dict:
    """Runs the command under tests/support/peak_rss.py (wall from fork to exit, peak RSS and CPU of that
    process alone: wait4 from this large process would report our own peak).  ``source`` None: SIZE zeros
    piped in from head; else the command reads that file (-i)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result"
        head = None if source else subprocess.Popen(["head", "-c", str(size), "/dev/zero"], stdout=subprocess.PIPE)
        p = subprocess.Popen(
            [sys.executable, "-S", "-I", str(PEAK_RSS), str(result), *argv, *(["-i", source] if source else [])],
            stdin=head.stdout if head else subprocess.DEVNULL,
            stdout=subprocess.PIPE if verify else subprocess.DEVNULL,
            cwd=ROOT,
            env=dict(env or os.environ, PYTHONPATH=str(ROOT)),
        )
        if head:
            head.stdout.close()
        digest = hashlib.sha256() if verify else None
        if verify:
            for block in iter(lambda: p.stdout.read(1 << 20), b""):
                digest.update(block)
        p.wait()
        if head:
            head.wait()
        status, maxrss, wall, cpu = result.read_text().split()
    if status != "0":
        raise SystemExit(f"the command failed: {argv}")
    return {
        "wall_s": float(wall),
        "maxrss_mib": int(maxrss) / 1024,
        "cpu_s": float(cpu),
        "sha256": digest.hexdigest() if verify else None,
    }


def summarize(runs: list[dict], startup: float, size: int, library: float) -> dict:
    wall = statistics.median(r["wall_s"] for r in runs)
    return {
        "wall_s": wall,
        "mbs": size / wall / 1e6,
        "streaming_mbs": size / (wall - startup) / 1e6,
        "ratio_end_to_end": size / wall / 1e6 / library,
        "ratio_streaming": size / (wall - startup) / 1e6 / library,
        "peak_rss_mib": max(r["maxrss_mib"] for r in runs),
        "cpu_s": statistics.median(r["cpu_s"] for r in runs),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cipher", default="lea128")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    size = a.mib << 20
    c = load_cipher([], a.cipher)  # builds the library if needed, and the command's fast-start entry
    rk = c.expand_key(KEY)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        keyfile, infile = os.path.join(tmp, "key"), os.path.join(tmp, "zeros")
        Path(keyfile).write_bytes(KEY)
        with open(infile, "wb") as f:
            f.truncate(size)  # SIZE zeros (sparse: read from the page cache, no disk)
        argv = command(a.cipher, keyfile)
        want = hashlib.sha256()
        library_run(c, rk, size, want)
        for source in (None, infile):
            got = run_command(argv, size, source, verify=True)
            if got["sha256"] != want.hexdigest():
                raise SystemExit(f"MISMATCH: the command's output {got['sha256']} != the library's {want.hexdigest()}")
        startup = [run_command(argv, 0) for _ in range(a.reps)]
        cached = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(tmp, "pyc"))
        cached.pop("PYTHONDONTWRITEBYTECODE", None)
        startup_pyc = [run_command(argv, 0, env=cached) for _ in range(a.reps + 1)][1:]  # the first one writes it
        lib, piped, filed = [], [], []
        for _ in range(a.reps):  # alternate, so that outside load hits all three
            lib.append(library_run(c, rk, size))
            piped.append(run_command(argv, size))
            filed.append(run_command(argv, size, infile))
    t0 = statistics.median(r["wall_s"] for r in startup)
    library = statistics.median(r["mbs"] for r in lib)
    res = {
        "cipher": a.cipher,
        "schedule": c.schedule_name,
        "bytes": size,
        "reps": a.reps,
        "machine": {
            "cpu": cpu_name(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "loadavg_before": load_before,
            "loadavg_after": os.getloadavg(),
            "dont_write_bytecode": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
        },
        "verified_sha256": want.hexdigest(),
        "library": lib,
        "startup": startup,
        "startup_bytecode_cached": startup_pyc,
        "pipe": piped,
        "file": filed,
        "summary": {
            "library_mbs": library,
            "library_cpu_s": statistics.median(r["cpu_s"] for r in lib),
            "startup_s": t0,
            "startup_rss_mib": max(r["maxrss_mib"] for r in startup),
            "startup_cpu_s": statistics.median(r["cpu_s"] for r in startup),
            "startup_pyc_s": statistics.median(r["wall_s"] for r in startup_pyc),
            "startup_pyc_cpu_s": statistics.median(r["cpu_s"] for r in startup_pyc),
            "pipe": summarize(piped, t0, size, library),
            "file": summarize(filed, t0, size, library),
        },
    }
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cli.json").write_text(json.dumps(res, indent=1) + "\n")
    (out / "cli.md").write_text(report(res))
    print(report(res))


def report(res: dict) -> str:
    s, m = res["summary"], res["machine"]
    mib = res["bytes"] >> 20
    rows = [
        (
            "library CTR (`crypt_into`, 64 MiB calls, one thread)",
            f"{s['library_mbs']:,.0f} MB/s",
            "100%",
            "",
            f"{s['library_cpu_s']:.2f} s",
        )
    ]
    for key, what in (("pipe", f"`head -c {mib}M /dev/zero \\| cipherspec ...`"), ("file", "`cipherspec ... -i FILE`")):
        v = s[key]
        rows.append(
            (
                f"command, {what}: end to end",
                f"{v['mbs']:,.0f} MB/s ({v['wall_s']:.2f} s)",
                f"{100 * v['ratio_end_to_end']:.0f}%",
                f"{v['peak_rss_mib']:.1f} MiB",
                f"{v['cpu_s']:.2f} s",
            )
        )
        rows.append(
            (
                f"command, {what}: streaming (wall - startup)",
                f"{v['streaming_mbs']:,.0f} MB/s",
                f"{100 * v['ratio_streaming']:.0f}%",
                "",
                "",
            )
        )
    rows.append(
        (
            "command on empty input (startup)",
            f"{s['startup_s'] * 1000:.0f} ms",
            "",
            f"{s['startup_rss_mib']:.1f} MiB",
            f"{s['startup_cpu_s']:.2f} s",
        )
    )
    if "startup_pyc_s" in s:
        rows.append(
            (
                "the same, bytecode cached (as installed)",
                f"{s['startup_pyc_s'] * 1000:.0f} ms",
                "",
                "",
                f"{s['startup_pyc_cpu_s']:.2f} s",
            )
        )
    lines = [
        f"# `cipherspec encrypt {res['cipher']} --mode ctr` over {mib} MiB vs the library's own CTR",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores shared with other jobs (load average "
        f"{m['loadavg_before'][0]:.1f} before, {m['loadavg_after'][0]:.1f} after), Python {m['python']}; "
        f"schedule `{res['schedule']}`; medians of {res['reps']} alternating runs "
        "(`python3 bench/cli/bench.py`)"
        + (
            "; PYTHONDONTWRITEBYTECODE=1 inherited: every run compiles the command's modules."
            if m.get("dont_write_bytecode")
            else "."
        ),
        "",
        f"Command: `python3 -m driver encrypt {res['cipher']} --mode ctr --key-file K --iv IV > /dev/null` "
        "(`python3 -m driver` is this checkout's `cipherspec`), its input piped from head or read with -i "
        "from a file in the page cache.  Wall from fork to exit (interpreter start, imports and loading "
        "the library included), peak RSS and CPU (user + system) of the command alone "
        "(tests/support/peak_rss.py).  Both inputs' outputs, in separate runs, hash to the library's "
        f"keystream (SHA-256 `{res['verified_sha256'][:16]}...`).",
        "",
        "| what | figure | of the library | peak RSS | CPU |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [f"| {' | '.join(r)} |" for r in rows]
    lines += ["", "Every run (library MB/s; piped: wall s / peak RSS MiB; file: wall s / peak RSS MiB):", ""]
    lines += [
        f"- run {i + 1}: {lib['mbs']:,.0f} MB/s; {p['wall_s']:.2f} s / {p['maxrss_mib']:.1f} MiB; "
        f"{f['wall_s']:.2f} s / {f['maxrss_mib']:.1f} MiB"
        for i, (lib, p, f) in enumerate(zip(res["library"], res["pipe"], res["file"]))
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
