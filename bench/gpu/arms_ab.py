"""What the library-against-library device A/Bs share (ctr_ab.py, gcm_fused_ab.py, gcm_tc_ab.py): each arm's library of a cipher,
as `cipherspec build --target cuda` wrote it, loaded side by side in one process; its outputs checked; then each
route timed, the arms alternating batch by batch, the median of the batches (the first round a warm-up).

    rows = run(arms, ["aes128"], check, routes, reps=10, batches=7, say=print_route)
    -> [{"cipher": "aes128", "schedule": .., "device": "NVIDIA H200", "check": {arm: "equal"},
         "<route>": {arm: ms a call}, ..}]

main() is a script's whole command line (--arm NAME=DIR ..., --ciphers, --reps, --batches, --out): the run, the
table, status 1 where an arm's output differed.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.registry import Registry  # noqa: E402
from generator.c import BACKEND as C_BACKEND  # noqa: E402
from generator.ptx.build import schedule_for  # noqa: E402
from generator.ptx.source import generate  # noqa: E402
from runtime.cuda_target import CudaCipher  # noqa: E402


def gcm_timed(c: CudaCipher, *args) -> Callable[[int, object], None]:
    """A route's call(reps, ms) through the library's gcm_util_time(*args, reps, ms): CUDA events around reps GCM
    calls (gcm.cu.j2: one long message, a batch described on the host, or records in device memory)."""
    return lambda n, ms: c.check(c.fn("gcm_util_time")(*args, n, ms), "GCM timing")


def load(reg: Registry, name: str, out_dir: Path) -> CudaCipher:
    """The library `cipherspec build` wrote into out_dir for ``name``'s default schedule, described by the header
    written beside it (another tree's library may hold a round-key struct of another size than this tree's)."""
    module = reg.module(name)
    sched = schedule_for(module, None)
    src = generate(module, sched, flavours=(sched.flavour,))
    so, h = out_dir / f"lib{src.name}.so", out_dir / f"{src.name}.h"
    if not so.is_file() or not h.is_file():
        raise SystemExit(f"{so}: not built (cipherspec build {name} --target cuda -o {out_dir})")
    src = replace(src, h=h.read_text())
    lib = ctypes.CDLL(str(so.resolve()), mode=ctypes.RTLD_LOCAL)
    return CudaCipher(module, sched, src, lib=lib)


def run(
    arms: dict[str, str],
    ciphers: list[str],
    check: Callable,
    routes: Callable,
    reps: int,
    batches: int,
    say: Callable[[str, str, dict[str, float]], None],
) -> list[dict]:
    """Per cipher: ``check(c, c_library, rng)`` -> "equal" or what differs, for each arm; ``routes(c, rng, stack)``
    -> {route: call(reps, ms)} (device buffers entered into ``stack``, released after the cipher's timing); each
    route's ms a call per arm; ``say(cipher, route, {arm: ms})`` after each route."""
    reg = Registry()
    rows = []
    for name in ciphers:
        cl = C_BACKEND.load(reg, name, None, None)
        libs = {arm: load(reg, name, Path(d)) for arm, d in arms.items()}
        first = next(iter(libs.values()))
        row: dict = {"cipher": name, "schedule": first.schedule_name, "device": None}
        row["check"] = {arm: check(c, cl, np.random.default_rng(5)) for arm, c in libs.items()}
        print(name, row["check"], flush=True)
        with contextlib.ExitStack() as stack:
            calls = {arm: routes(c, np.random.default_rng(9), stack) for arm, c in libs.items()}
            row["device"] = first.device["name"]
            ms = (ctypes.c_float * 1)()
            for route in next(iter(calls.values())):
                got: dict[str, list[float]] = {arm: [] for arm in arms}
                for b in range(batches + 1):
                    for arm in arms:
                        calls[arm][route](reps, ms)
                        if b:
                            got[arm].append(ms[0] / reps)
                row[route] = {arm: statistics.median(v) for arm, v in got.items()}
                say(name, route, row[route])
        rows.append(row)
    return rows


def write(rows: list[dict], arms: list[str], out: Path, stem: str, unit: str, cell: Callable[[str, float], str]) -> str:
    """``rows`` as out/<stem>.json and a table out/<stem>.md (each route's ``cell(route, ms)`` per arm, then the
    last arm's time over the first's); the table returned."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(rows, indent=1))
    lines = [
        f"| cipher | route | {' | '.join(f'{n} {unit}' for n in arms)} | {arms[-1]} / {arms[0]} (time) |",
        "|---|---|" + "---:|" * (len(arms) + 1),
    ]
    for row in rows:
        for route, v in row.items():
            if isinstance(v, dict) and route != "check":
                cells = " | ".join(cell(route, v[n]) for n in arms)
                lines.append(f"| {row['cipher']} | {route} | {cells} | {v[arms[-1]] / v[arms[0]]:.3f} |")
    table = "\n".join(lines) + "\n"
    (out / f"{stem}.md").write_text(table)
    return table


def main(argv: list[str], doc: str, ciphers: str, reps: int, check, routes, stem: str, unit: str, cell) -> int:
    """A script's command line: ``check`` and ``routes`` as for run; ``cell(route, ms)`` a time in ``unit``."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--arm", action="append", required=True, help="NAME=DIR (cipherspec build's output)")
    ap.add_argument("--ciphers", default=ciphers)
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--batches", type=int, default=7)
    ap.add_argument("--out", default="/tmp/cipherspec-gpu")
    a = ap.parse_args(argv)
    arms = dict(x.split("=", 1) for x in a.arm)

    def say(name: str, route: str, v: dict[str, float]) -> None:
        print(name, route, {k: f"{cell(route, ms)} {unit}" for k, ms in v.items()}, flush=True)

    rows = run(arms, a.ciphers.split(","), check, routes, a.reps, a.batches, say)
    print(write(rows, list(arms), Path(a.out), stem, unit, cell), end="")
    return 0 if all(v == "equal" for r in rows for v in r["check"].values()) else 1
