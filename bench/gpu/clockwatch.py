"""CTR keystream rate with the SM clock and board power sampled while the kernel runs (issue 25's roof share).

The SASS roof (sass.py) assumes the boost clock (1,980 MHz on the H200).  A kernel that keeps the ALU pipe busy
on 255 registers may draw the board to its power cap and run slower clocks; then "% of roof" mixes two causes.
This times 1 GiB device-resident CTR keystream (inline-PTX flavour, the library's util_time, as bench.py) for
each CIPHER:SCHEDULE in the order given (repeat one to see drift), while nvidia-smi samples the SM clock, power
and the clock-event reasons every 50 ms, and prints per arm: Gbps, SASS instructions a block, the roof at the
boost clock and at the median clock measured, and both shares.

    python3 bench/gpu/clockwatch.py --out DIR aria128:bs_rk-const_t128 aria128:bs_rk-shared_t128 ...
        -> one line each on stdout, DIR/clockwatch.json, DIR/clocks-<n>.csv (the raw samples)
    --lock FILE: each arm's timed loop (and its clock sampling) holds an exclusive lock on FILE, so that several
    clockwatch processes generate their libraries at once (the slow part) and time one at a time;
    --same FILE: before timing, append "cipher schedule sha256(keystream) sha256(xor)" (ctr_same.outputs; --same-group
    LABEL writes and seeds with LABEL instead of the cipher, for another spec of the same cipher)
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import ctr_same  # noqa: E402
import sass  # noqa: E402

from bench import Bench, group_of  # noqa: E402

FIELDS = ("timestamp", "clocks.sm", "power.draw", "temperature.gpu")
REASONS = ("clocks_event_reasons.active", "clocks_throttle_reasons.active")  # newer drivers, older drivers


def sampler(path: Path) -> subprocess.Popen:
    """nvidia-smi writing a CSV line every 50 ms (the first reasons field the driver knows)."""
    for reason in REASONS:
        q = ",".join((*FIELDS, reason))
        with open(path, "w") as fh:
            p = subprocess.Popen(
                ["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits", "-lms", "50"],
                stdout=fh,
                stderr=subprocess.STDOUT,
            )
        time.sleep(0.3)
        if p.poll() is None and "Field" not in path.read_text():
            return p
        p.kill()
        p.wait()
    raise SystemExit("nvidia-smi: no clock sampling")


def summary(path: Path, t0: float, t1: float) -> dict:
    """Samples taken while the timed loop ran (host wall clock t0..t1): median / min SM clock, median power, the
    clock-event reasons seen (OR of the bit masks)."""
    clocks, power, reasons = [], [], 0
    for line in path.read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 5:
            continue
        try:
            ts = time.mktime(time.strptime(parts[0].split(".")[0], "%Y/%m/%d %H:%M:%S"))
            if not t0 - 1 <= ts <= t1 + 1:
                continue
            clocks.append(float(parts[1]))
            power.append(float(parts[2]))
            reasons |= int(parts[4], 16) if parts[4].startswith("0x") else 0
        except ValueError:
            continue
    if not clocks:
        return {"samples": 0}
    return {
        "samples": len(clocks),
        "mhz_median": statistics.median(clocks),
        "mhz_min": min(clocks),
        "watts_median": statistics.median(power),
        "reasons": hex(reasons),
    }


@contextlib.contextmanager
def held(path: str | None):
    """An exclusive lock on ``path`` for the block (none when None)."""
    if path is None:
        yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--size-mib", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=150, help="launches per timed batch (1 GiB: ~0.4-0.5 s a batch)")
    ap.add_argument("--batches", type=int, default=3)
    ap.add_argument("--lock", help="a file locked while an arm is timed: processes generate at once, time in turn")
    ap.add_argument("--same", help="append each arm's output digests here first (ctr_same.py; under the lock)")
    ap.add_argument("--same-group", help="--same's label and seed (default: the cipher): equal outputs expected")
    ap.add_argument("arms", nargs="+", help="CIPHER:SCHEDULE")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    b = Bench(args.size_mib << 20, args.reps, args.batches)
    rng = np.random.default_rng(25)
    rows = []
    for n, arm in enumerate(args.arms):
        name, text = arm.split(":", 1)
        c = b.cipher(name, text)
        rk = c.expand_key(rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes())
        iv = rng.integers(0, 256, c.block_bytes, dtype=np.uint8).tobytes()
        dev = c.device
        csv = out / f"clocks-{n}.csv"
        with held(args.lock):  # (the 1 GiB buffers' upload too: nothing of this process on the GPU while another times)
            b.buffers(c)
            if args.same:  # (256 MiB + 37 bytes of keystream and an XOR: equal per cipher across schedules)
                group = args.same_group or name
                ks, xor = ctr_same.outputs(c, (256 << 20) + 37, np.random.default_rng(sum(group.encode())))
                with open(args.same, "a") as fh:
                    fh.write(f"{group} {c.schedule_name} {ks} {xor}\n")
            p = sampler(csv)
            t0 = time.time()
            ms = b.time(c, rk, iv, False, 0)
            t1 = time.time()
            p.terminate()
            p.wait()
        clk = summary(csv, t0, t1)
        gbps = b.size * 8 / (ms / 1e3) / 1e9
        funcs = b.sass_funcs(c)
        fname = sass.ctr_kernel(funcs, "ptx", False)
        mix = sass.loop_mix(funcs[fname], sass.ctr_trips(c.source.cu, "ptx"))
        blocks = c.sched.ilp * group_of(c.sched)
        boost = dev["clock_khz"] / 1e3
        roof, pipe = sass.roof_gbps(mix, blocks, c.block_bytes, dev["sms"], boost)
        at = roof * clk.get("mhz_median", boost) / boost
        row = {
            "arm": n,
            "cipher": name,
            "schedule": c.schedule_name,
            "gbps": gbps,
            "sass_per_block": sum(mix.values()) / blocks,
            "roof_boost_gbps": roof,
            "pipe": pipe,
            "pct_roof_boost": 100 * gbps / roof,
            "roof_at_clock_gbps": at,
            "pct_roof_at_clock": 100 * gbps / at,
            "boost_mhz": boost,
            **clk,
        }
        rows.append(row)
        print(
            f"{n}: {c.schedule_name:44s} {gbps:7.0f} Gbps | {row['sass_per_block']:6.1f} SASS/block | roof {roof:6.0f} "
            f"@{boost:.0f} MHz: {row['pct_roof_boost']:5.1f}% | SM clock median {clk.get('mhz_median', 0):.0f} "
            f"(min {clk.get('mhz_min', 0):.0f}) MHz, {clk.get('watts_median', 0):.0f} W, reasons {clk.get('reasons')} "
            f"| roof at that clock {at:6.0f}: {row['pct_roof_at_clock']:5.1f}%",
            flush=True,
        )
    (out / "clockwatch.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
