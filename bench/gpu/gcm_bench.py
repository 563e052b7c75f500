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
        [--ab]   (each call also under the CIPHERSPEC_GCM_AB values of AB below -- the long message's former first
                  hashing level, the keyed keystream's former launches, the resident keystream kernel, the former
                  records' hashing kernel --, alternating with the current one batch by batch)
        [--ab-full aes128]  (the ciphers that take every arm; the others the current kernels and AB_NEW's)
        [--phases]  (where one call's time goes: the library's phase marks, CUDA events on the call's stream,
                  the mean ms a call of each phase over back-to-back calls; each call's arms too under --ab)
        [--check]   (before timing: each call and arm's ciphertext and tags against the C library, at a smaller
                  size -- a 8 MiB message, 256 records of 16 KiB and 40 of other lengths under 16 keys)
"""

from __future__ import annotations

import argparse
import contextlib
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


# CIPHERSPEC_GCM_AB values each call is also timed with under --ab ("" = the current kernels): s0 a long
# message's key, descriptor and AAD staged by a copy the host waits for (the former staging), f0 its first hashing
# level by the former kernel (one packing chain, size arithmetic for every tile's copies); o0 the message staged
# before its CTR pass (the former order; now, encrypting, after it); p0 its whole key staged (now its powers of H
# alone: no kernel of the call reads the round keys there); e0 E(K, J0) made by the
# finish kernel (a core call there: the former finish) instead of by the CTR kernel (a long message) or the keyed
# keystream kernel (a batch); q0 the batch's keystream by the resident kernel (round keys in shared memory: the
# former keystream) instead of a launch a key with its round keys in constant memory (bitsliced layouts, up to 16
# keys); t0 the former records' hashing kernel (tgb_records<1, 2>); c0 the keyed route's former launches (a
# launch a key, its round keys copied into constant memory first) instead of one launch for every key with the
# warp's current key copied into shared memory and the records in memory order; l1 that one launch with the records
# key by key (the lists' order); g1 that one launch with each item's round keys read from the key table (bitsliced
# layouts whose CTR kernel runs free; elsewhere c0, l1 and g1 change nothing).
# The ciphers of --ab-full take every arm, the others the current kernels and AB_REST's arms (the device round's
# time limit)
AB = {
    "gcm_long": ("", "f0", "o0", "p0"),
    "gcm_batch": ("", "c0", "q0"),
    "gcm_records": ("", "c0", "l1", "g1", "q0", "t0"),
}
AB_REST = {"gcm_long": (), "gcm_batch": ("k1",), "gcm_records": ("k1",)}


def ab_arms(name: str, full: set[str]) -> dict[str, tuple[str, ...]]:
    """The A/B arms `name` is timed with: AB for the ciphers in `full`, else the current kernels and AB_REST's
    (k1: the keyed route where the CTR kernel runs in step, ARIA-128's former default; elsewhere k1 changes nothing)."""
    if name in full:
        return dict(AB)
    return {w: ("", *AB_REST[w]) for w in AB}


def check_outputs(c, name: str, reg, envs: set[str]) -> list[str]:
    """Each CIPHERSPEC_GCM_AB arm's long message (8 MiB + 5: the tensor-core route) and records (device
    descriptions: 256 of 16 KiB and 40 of 0..20,000 bytes, keys r % 16) against the C library's GCM: ciphertext
    and tags byte for byte.  Returns one line an arm."""
    from generator.c import BACKEND as C_BACKEND

    cl = C_BACKEND.load(reg, name, None, None)
    rng = np.random.default_rng(11)
    raw = [rng.bytes(c.key_bytes) for _ in range(16)]
    ks, rks = [c.gcm_key(k) for k in raw], [cl.expand_key(k) for k in raw]
    data, iv, aad = rng.bytes((8 << 20) + 5), rng.bytes(12), rng.bytes(13)
    want_long = cl.gcm_encrypt(rks[0], iv, aad, data, 16)
    lengths = [RECORD] * 256 + [int(x) for x in rng.integers(0, 20000, 40)]
    msgs = [(r % 16, rng.bytes(12), rng.bytes(13), rng.bytes(n), 16) for r, n in enumerate(lengths)]
    want = [cl.gcm_encrypt(rks[k], v, a, d, t) for k, v, a, d, t in msgs]
    lines = []
    for env in sorted(envs):
        os.environ["CIPHERSPEC_GCM_AB"] = env
        try:
            ok_long = c.gcm_encrypt(ks[0], iv, aad, data, 16) == want_long
            outs, tags = c.gcm_batch(ks, msgs, records=True)
            ok_rec = all((o, t) == w for o, t, w in zip(outs, tags, want))
        finally:
            os.environ.pop("CIPHERSPEC_GCM_AB", None)
        lines.append(
            f"{name} check (CIPHERSPEC_GCM_AB={env or '-'}): long 8 MiB+5 {'equal' if ok_long else 'DIFFERENT'}, "
            f"{len(msgs)} records {'equal' if ok_rec else 'DIFFERENT'} to the C library"
        )
        print(lines[-1], flush=True)
    return lines


def phases(c, call, env: str, calls: int = 4) -> dict[str, float]:
    """Mean ms a call of each marked phase (the library's cs_gcm_mark: from the mark before to this one, on the
    GPU's timeline, so a wait for the host counts too) over `calls` back-to-back calls after one warm-up call;
    "between calls": from a call's last mark to the next call's first."""
    marks = c.fn("gcm_util_marks")
    marks.restype = ctypes.c_int
    marks.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    names = (ctypes.c_char_p * 256)()
    ms = (ctypes.c_float * 256)()
    os.environ["CIPHERSPEC_GCM_AB"] = env
    try:
        call(1, (ctypes.c_float * 1)())
        marks(1, None, None, 0)
        call(calls, (ctypes.c_float * 1)())
        n = marks(0, names, ms, 256)
    finally:
        os.environ.pop("CIPHERSPEC_GCM_AB", None)
    if n < 0:
        raise SystemExit(f"gcm_util_marks failed: {n}")
    out: dict[str, float] = {}
    for i in range(1, n):
        label = names[i].decode()
        label = "between calls" if label == "enter" else label  # (calls - 1 of them)
        out[label] = out.get(label, 0.0) + ms[i] / (calls - 1 if label == "between calls" else calls)
    out["one call"] = sum(out.values())
    return out


# The records' key patterns timed besides r % 16 (--ab, the --ab-full ciphers): all under key 0 (the keyed route's
# records in order, one key), and 16 keys over contiguous runs of records (each key's records neighbours) -- against
# r % 16 (each key's records 256 KiB apart)
PATTERNS = {
    "gcm_records_1key": lambda r, n: 0,
    "gcm_records_runs": lambda r, n: 16 * r // max(n, 1),
}


def _records_call(c, keys_ptr: int, meta_ptr: int, desc_bytes: int, nrec: int, din, dout, dtag):
    """A timing call of nrec device-described 16 KiB records (descriptors at meta_ptr, their AAD after them)."""

    def call(n, ms):
        c.check(
            c.fn("gcm_util_time")(
                None, keys_ptr, meta_ptr, nrec, meta_ptr + desc_bytes, 16, din.ptr, dout.ptr, RECORD, dtag.ptr, 2, n, ms
            ),
            "GCM records timing",
        )

    return call


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


def bench_cipher(
    name: str,
    size: int,
    reps: int,
    batches: int,
    sched: str | None,
    ab: bool = False,
    split: bool = False,
    check: bool = False,
    ab_full: frozenset[str] = frozenset(),
) -> dict:
    arms = ab_arms(name, set(ab_full) if ab_full else {name})
    reg = Registry()
    c = CUDA_BACKEND.load(reg, name, None, sched)
    row: dict = {"cipher": name, "schedule": c.schedule_name, "bytes": size}
    if check:
        row["check"] = check_outputs(c, name, reg, {e for envs in arms.values() for e in envs} if ab else {""})
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
    row["records"] = nrec
    with (
        contextlib.ExitStack() as stack,
        c.device_buffer(size) as din,
        c.device_buffer(size) as dout,
        c.device_buffer(16 * max(nrec, 1)) as dtag,
    ):
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
                        16,  # the key table's size
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
                        16,  # the key table's size
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

            calls = [("ctr", ctr), ("gcm_long", gcm_long), ("gcm_batch", gcm_batch), ("gcm_records", gcm_records)]
            if ab and name in ab_full:  # the same records under other key patterns (where the keystream's time goes)
                for what, keyof in PATTERNS.items():
                    pat = arr.copy()
                    pat["key"] = [keyof(r, nrec) for r in range(nrec)]
                    dpat = stack.enter_context(c.device_buffer(pat.nbytes + aad_arr.nbytes))
                    dpat.upload(np.concatenate([pat.view(np.uint8), aad_arr]))
                    calls.append((what, _records_call(c, dkeys.ptr, dpat.ptr, pat.nbytes, nrec, din, dout, dtag)))
            for what, call in calls:
                t = time.time()
                if ab and what in arms and len(arms[what]) > 1:
                    ms, *others = _median_ab(call, reps, batches, arms[what])
                    for env, mo in zip(arms[what][1:], others):
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
                if split and what != "ctr":
                    for env in arms.get(what, ("",)) if ab else ("",):
                        ph = phases(c, call, env)
                        row[f"{what}_{env}_phases" if env else f"{what}_phases"] = ph
                        print(
                            f"{name} {what} phases (CIPHERSPEC_GCM_AB={env or '-'}), ms a call: "
                            + ", ".join(f"{k} {v:.3f}" for k, v in ph.items()),
                            flush=True,
                        )
            dkeys.upload(np.zeros(table.nbytes, np.uint8))
    row["gcm_long_vs_ctr"] = row["gcm_long_gbps"] / row["ctr_gbps"]
    row["gcm_batch_vs_ctr"] = row["gcm_batch_gbps"] / row["ctr_gbps"]
    row["gcm_records_vs_ctr"] = row["gcm_records_gbps"] / row["ctr_gbps"]
    for what, envs in arms.items():
        for env in envs[1:]:
            if f"{what}_{env}_gbps" in row:
                row[f"{what}_{env}_vs_ctr"] = row[f"{what}_{env}_gbps"] / row["ctr_gbps"]
    for what in PATTERNS:
        if f"{what}_gbps" in row:
            row[f"{what}_vs_ctr"] = row[f"{what}_gbps"] / row["ctr_gbps"]
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
    cols = [(w, e) for w in AB for e in (*AB[w], *(x for x in AB_REST[w] if x not in AB[w]))]
    if any(f"{w}_{e}_gbps" in r for r in rows for w, e in cols if e):  # the A/B (--ab)
        lines += [
            "",
            "A/B, alternating in one process (CIPHERSPEC_GCM_AB; current = the kernels as built): f0 the long",
            "message's former first hashing level, o0 the long message staged before its CTR pass (now after), p0",
            "its whole key staged (now its powers of H alone), c0 the keyed keystream's former launches (a launch a",
            "key, its round keys copied into constant memory; current: one launch for every key, the warp's key copied",
            "into shared memory, the records in memory order), l1 that launch with the records key by key, g1 with",
            "round keys read from the key table, q0 the batch keystream",
            "by the resident kernel, t0 the former records' hashing kernel (one packing chain), k1 the keyed route",
            "where the CTR kernel runs in step (ARIA-128's former default); - where an arm was not run; Gbps (/CTR):",
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
    pats = [r for r in rows if any(f"{w}_gbps" in r for w in PATTERNS)]
    if pats:  # --ab: the records under other key patterns
        lines += ["", "The same 16 KiB records (device descriptions) under other key patterns, Gbps (/CTR):", ""]
        lines += ["| cipher | keys r % 16 | all key 0 (one launch) | 16 runs of neighbours |", "|---|---|---|---|"]
        for r in pats:
            cells = [
                f"{r[f'{w}_gbps']:.0f} ({r[f'{w}_vs_ctr']:.2f})" if f"{w}_gbps" in r else "-"
                for w in ("gcm_records", *PATTERNS)
            ]
            lines.append(f"| {r['cipher']} | " + " | ".join(cells) + " |")
    split = [(r, k[: -len("_phases")], ph) for r in rows for k, ph in r.items() if k.endswith("_phases")]
    if split:  # --phases
        lines += ["", "Phases (the library's marks: CUDA events on the call's stream), ms a call:", ""]
        lines += ["| cipher | call (CIPHERSPEC_GCM_AB) | " + " | ".join(["phase: ms"]) + " |", "|---|---|---|"]
        for r, what, ph in split:
            cells = ", ".join(f"{k} {v:.3f}" for k, v in ph.items())
            lines.append(f"| {r['cipher']} | {what} | {cells} |")
    if any("check" in r for r in rows):
        lines += ["", "Outputs against the C library (--check):", ""] + [f"- {ln}" for r in rows for ln in r["check"]]
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
    ap.add_argument("--phases", action="store_true", help="where a call's time goes (the library's phase marks)")
    ap.add_argument("--check", action="store_true", help="outputs of every arm against the C library first")
    ap.add_argument("--ab-full", default="", help="ciphers timed with every A/B arm (default: all of --ciphers)")
    a = ap.parse_args()
    rows = []
    for job in a.ciphers.split(","):  # name or name:schedule
        n, _, sched = job.partition(":")
        full = frozenset(a.ab_full.split(",")) if a.ab_full else frozenset({n})
        rows.append(
            bench_cipher(n, a.size, a.reps, a.batches, sched or a.schedule, a.ab, a.phases, a.check, ab_full=full)
        )
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gcm-bench.json").write_text(json.dumps(rows, indent=1))
    md = (
        f"device: {rows[0]['device']['name']}, {a.size} bytes per call, {a.reps} calls x {a.batches} batches\n\n"
        + table(rows)
    )
    (out / "gcm-bench.md").write_text(md + "\n")
    print(md)
    return 1 if any("DIFFERENT" in ln for r in rows for ln in r.get("check", [])) else 0


if __name__ == "__main__":
    sys.exit(main())
