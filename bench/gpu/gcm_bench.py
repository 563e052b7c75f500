"""GCM vs CTR on one GPU, same library, same run (issue 21's GPU row): device-resident throughput of
  - CTR (the library's ctr_dev, XOR into the output: what GCM's keystream half does),
  - GCM, one long message (gcm_encrypt_dev: the fused CTR+GHASH kernel, the finish, the staging of the key,
    IV and AAD the call makes),
  - GCM, a batch of 16 KiB records (gcm_batch_dev: 13-byte AAD and a 96-bit IV each, 16 keys, one launch;
    the call's host work -- descriptors, their copy -- included),
  - the same records described in device memory (gcm_records_dev: no host work per record),
each timed with CUDA events over `reps` back-to-back calls, the median of `batches` batches (the first one
warms up).  Writes gcm-bench.json and gcm-bench.md (the table) under --out.

    python3 bench/gpu/gcm_bench.py --out $OUT [--size 1073741824] [--ciphers aes128,aria128,lea128,lea128:ilp1_t128]
        [--ab]   (batch and records also under the CIPHERSPEC_GCM_AB values of AB below -- the former records'
                  hashing kernel, the former finish --, alternating with the current one batch by batch)
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.registry import Registry  # noqa: E402
from generator.ptx import BACKEND as CUDA_BACKEND  # noqa: E402

RECORD = 16384


def _median_ms(call, reps: int, batches: int) -> float:
    ms = (ctypes.c_float * 1)()
    out = []
    for b in range(batches + 1):
        call(reps, ms)
        if b:
            out.append(ms[0] / reps)
    return statistics.median(out)


# CIPHERSPEC_GCM_AB values each call is also timed with under --ab ("" = the current kernels): t0 the former
# records' hashing kernel (tgb_records<1, 2>), v1 the former finish
AB = {
    "gcm_batch": ("", "t0", "v1"),
    "gcm_records": ("", "t0", "v1"),
}


def _median_ab(call, reps: int, batches: int, envs: tuple[str, ...]) -> list[float]:
    """ms a call for each CIPHERSPEC_GCM_AB value of envs (the library reads the variable at every call),
    alternating batch by batch, the first round a warm-up."""
    ms = (ctypes.c_float * 1)()
    out: list[list[float]] = [[] for _ in envs]
    for b in range(batches + 1):
        for env, o in zip(envs, out):
            os.environ["CIPHERSPEC_GCM_AB"] = env
            call(reps, ms)
            if b:
                o.append(ms[0] / reps)
    os.environ.pop("CIPHERSPEC_GCM_AB", None)
    return [statistics.median(o) for o in out]


def bench_cipher(name: str, size: int, reps: int, batches: int, sched: str | None, ab: bool = False) -> dict:
    reg = Registry()
    c = CUDA_BACKEND.load(reg, name, None, sched)
    rng = np.random.default_rng(7)
    host = rng.integers(0, 256, size, dtype=np.uint8)
    key = rng.bytes(c.key_bytes)
    rk, k = c.expand_key(key), c.gcm_key(key)
    iv16 = np.frombuffer(rng.bytes(12) + bytes(4), np.uint8).copy()
    aad = rng.bytes(13)
    nrec = size // RECORD
    keys = [c.gcm_key(rng.bytes(c.key_bytes)) for _ in range(16)]
    table = np.concatenate(keys).astype(np.uint32)
    arr, aad_all, total = c.gcm_plan([(r % 16, rng.bytes(12), rng.bytes(13), RECORD, 16) for r in range(nrec)])
    aad_arr = np.frombuffer(aad_all, np.uint8).copy()
    row: dict = {"cipher": name, "schedule": c.schedule_name, "bytes": size, "records": nrec}
    with c.device_buffer(size) as din, c.device_buffer(size) as dout, c.device_buffer(16 * max(nrec, 1)) as dtag:
        din.upload(host)
        with c.device_buffer(table.nbytes) as dkeys, c.device_buffer(arr.nbytes + aad_arr.nbytes) as dmeta:
            dkeys.upload(table.view(np.uint8))
            dmeta.upload(np.concatenate([arr.view(np.uint8), aad_arr]))

            def ctr(n, ms):
                c.check(
                    c.fn("util_time")(
                        rk.ctypes.data,
                        1,
                        0,
                        iv16.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)),
                        din.ptr,
                        dout.ptr,
                        size,
                        0,
                        n,
                        ms,
                    ),
                    "CTR timing",
                )

            def gcm_long(n, ms):
                c.check(
                    c.fn("gcm_util_time")(
                        k.ctypes.data, None, None, 0, aad, len(aad), din.ptr, dout.ptr, size, dtag.ptr, 0, n, ms
                    ),
                    "GCM timing",
                )

            def gcm_batch(n, ms):
                c.check(
                    c.fn("gcm_util_time")(
                        None,
                        dkeys.ptr,
                        arr.ctypes.data,
                        nrec,
                        aad_arr.ctypes.data,
                        0,
                        din.ptr,
                        dout.ptr,
                        total,
                        dtag.ptr,
                        1,
                        n,
                        ms,
                    ),
                    "GCM batch timing",
                )

            def gcm_records(n, ms):
                c.check(
                    c.fn("gcm_util_time")(
                        None,
                        dkeys.ptr,
                        dmeta.ptr,
                        nrec,
                        dmeta.ptr + arr.nbytes,
                        0,
                        din.ptr,
                        dout.ptr,
                        RECORD,
                        dtag.ptr,
                        2,
                        n,
                        ms,
                    ),
                    "GCM records timing",
                )

            calls = (("ctr", ctr), ("gcm_long", gcm_long), ("gcm_batch", gcm_batch), ("gcm_records", gcm_records))
            for what, call in calls:
                t = time.time()
                if ab and what in AB:
                    ms, *others = _median_ab(call, reps, batches, AB[what])
                    for env, mo in zip(AB[what][1:], others):
                        row[f"{what}_{env}_ms"] = mo
                        row[f"{what}_{env}_gbps"] = 8 * size / mo / 1e6
                        print(f"{name} {what} (CIPHERSPEC_GCM_AB={env}): {mo:.3f} ms, {8 * size / mo / 1e6:.0f} Gbps")
                else:
                    ms = _median_ms(call, reps, batches)
                row[what + "_ms"] = ms
                row[what + "_gbps"] = 8 * size / ms / 1e6  # Gbit/s
                print(
                    f"{name} {what}: {ms:.3f} ms, {row[what + '_gbps']:.0f} Gbps ({time.time() - t:.1f} s)", flush=True
                )
            dkeys.upload(np.zeros(table.nbytes, np.uint8))
    row["gcm_long_vs_ctr"] = row["gcm_long_gbps"] / row["ctr_gbps"]
    row["gcm_batch_vs_ctr"] = row["gcm_batch_gbps"] / row["ctr_gbps"]
    row["gcm_records_vs_ctr"] = row["gcm_records_gbps"] / row["ctr_gbps"]
    for what, envs in AB.items():
        for env in envs[1:]:
            if f"{what}_{env}_gbps" in row:
                row[f"{what}_{env}_vs_ctr"] = row[f"{what}_{env}_gbps"] / row["ctr_gbps"]
    row["device"] = c.device
    return row


def table(rows: list[dict]) -> str:
    lines = [
        "| cipher | schedule | CTR Gbps | GCM long Gbps | long/CTR | batch 16 KiB (host descr.) Gbps | /CTR "
        "| records 16 KiB (device descr.) Gbps | /CTR |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['cipher']} | {r['schedule']} | {r['ctr_gbps']:.0f} | {r['gcm_long_gbps']:.0f} | "
            f"{r['gcm_long_vs_ctr']:.2f} | {r['gcm_batch_gbps']:.0f} | {r['gcm_batch_vs_ctr']:.2f} | "
            f"{r['gcm_records_gbps']:.0f} | {r['gcm_records_vs_ctr']:.2f} |"
        )
    if any("gcm_batch_v1_gbps" in r for r in rows):  # the A/B (--ab): same process, alternating batch by batch
        cols = [(w, e) for w, envs in AB.items() for e in envs]
        lines += [
            "",
            "A/B, alternating in one process (CIPHERSPEC_GCM_AB; current = the kernels as built): t0 the former",
            "records' hashing kernel (one packing chain), v1 the former finish; Gbps (/CTR):",
            "",
            "| cipher | " + " | ".join(f"{w[4:]}: {e or 'current'}" for w, e in cols) + " |",
            "|---|" + "---|" * len(cols),
        ]
        for r in rows:
            cells = [
                f"{r[f'{w}_{e}_gbps' if e else f'{w}_gbps']:.0f} ({r[f'{w}_{e}_vs_ctr' if e else f'{w}_vs_ctr']:.2f})"
                if (f"{w}_{e}_gbps" if e else f"{w}_gbps") in r
                else "-"
                for w, e in cols
            ]
            lines.append(f"| {r['cipher']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/cipherspec-gpu")
    ap.add_argument("--size", type=int, default=1 << 30)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--batches", type=int, default=3)
    ap.add_argument("--ciphers", default="aes128,aria128,lea128")
    ap.add_argument("--schedule", default=None)
    ap.add_argument("--ab", action="store_true", help="also the CIPHERSPEC_GCM_AB variants (AB)")
    a = ap.parse_args()
    rows = []
    for job in a.ciphers.split(","):  # name or name:schedule
        n, _, sched = job.partition(":")
        rows.append(bench_cipher(n, a.size, a.reps, a.batches, sched or a.schedule, a.ab))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gcm-bench.json").write_text(json.dumps(rows, indent=1))
    md = (
        f"device: {rows[0]['device']['name']}, {a.size} bytes per call, {a.reps} calls x {a.batches} batches\n\n"
        + table(rows)
    )
    (out / "gcm-bench.md").write_text(md + "\n")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
