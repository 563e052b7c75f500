"""CTR_DRBG bulk from a plan on 1 and 2 GPUs with the kept threads' hand-over polling on and off (A/B, one run).

The two-GPU call hands device 1's part to a kept host thread and waits for it; with CIPHERSPEC_MG_SPIN_US=0 both
hand-overs sleep on a condition variable (a futex wake-up each), with the default window (runtime/cuda_multi.py
SPIN_US) the thread and the caller poll first.  Per size and setting: the median wall clock of --reps calls,
rounds of the two settings interleaved, every output's SHA-256 equal to the C DRBG's.  On the device:

    python3 bench/gpu/mg_handoff.py --out $OUT [--cipher lea128] [--mib 128,1024] [--reps 21]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from drbg_multi import MIB, Case, drbg_bench, median_time  # noqa: E402  (sets up sys.path for the project)

from cipherspec.registry import Registry  # noqa: E402
from generator.c import BACKEND as C_BACKEND  # noqa: E402
from generator.ptx import BACKEND as CUDA_BACKEND  # noqa: E402
from runtime import cuda_multi as cm  # noqa: E402


def context(g, devs: list[int], spin_us: int) -> cm.GpuSet:
    """A fresh context (not the target's cached one): the polling window is read when a context is made."""
    old = os.environ.get("CIPHERSPEC_MG_SPIN_US")
    os.environ["CIPHERSPEC_MG_SPIN_US"] = str(spin_us)
    try:
        gs = cm.GpuSet(g, cm.resolve_devices(devs, g.device_count()), cm.STREAMS)
    finally:
        if old is None:
            del os.environ["CIPHERSPEC_MG_SPIN_US"]
        else:
            os.environ["CIPHERSPEC_MG_SPIN_US"] = old
    gs.set_split_min(0 if len(devs) > 1 else cm.SPLIT_MIN)
    return gs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp")))
    ap.add_argument("--cipher", default="lea128")
    ap.add_argument("--mib", type=lambda s: [int(x) for x in s.split(",")], default=[128, 1024])
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    reg = Registry()
    db = drbg_bench()
    loop = db.loop_lib()
    c = C_BACKEND.load(reg, a.cipher, None, None)
    g = CUDA_BACKEND.load(reg, a.cipher, None, None)
    if g.device_count() < 2:
        print("one GPU: nothing to compare")
        return
    settings = {"spin 0": 0, f"spin {cm.SPIN_US}": cm.SPIN_US}
    rows = []
    for mib in a.mib:
        case = Case(db, c, g, mib * MIB)
        want, _ = case.reference(loop)
        case.reset()
        case.plan()
        for devs in ([0], [0, 1]):
            row: dict = {"cipher": a.cipher, "mib": mib, "gpus": len(devs)}
            sets = {k: context(g, devs, v) for k, v in settings.items()}
            times: dict[str, list[float]] = {k: [] for k in settings}
            first = sets["spin 0"].parts_multi(case.lens)
            bufs = {k: gs.alloc([int(case.ends[r]) for r in first]) for k, gs in sets.items()}
            try:
                for k, gs in sets.items():
                    gs.ctr_multi_dev(case.keys, case.vs, case.lens, bufs[k])  # warm-up: scratch grows once
                for _ in range(a.rounds):
                    for k, gs in sets.items():
                        times[k].append(
                            median_time(lambda: gs.ctr_multi_dev(case.keys, case.vs, case.lens, bufs[k]), a.reps)
                        )
                for k in settings:
                    row[k] = min(times[k])
                    row[f"{k} ok"] = hashlib.sha256(memoryview(bufs[k].download())).hexdigest() == want
            finally:
                for b in bufs.values():
                    b.close()
                for gs in sets.values():
                    gs.close()
            rows.append(row)
            print(
                f"{a.cipher} {mib:5d} MiB {len(devs)} GPU(s): "
                + ", ".join(f"{k} {row[k] * 1e3:.3f} ms ({'ok' if row[f'{k} ok'] else 'WRONG'})" for k in settings),
                flush=True,
            )
    for mib in a.mib:
        one = next(r for r in rows if r["mib"] == mib and r["gpus"] == 1)
        two = next(r for r in rows if r["mib"] == mib and r["gpus"] == 2)
        print(f"- {a.cipher} {mib} MiB, 2 GPUs vs 1: " + ", ".join(f"{k} x{one[k] / two[k]:.2f}" for k in settings))
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "mg_handoff.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
