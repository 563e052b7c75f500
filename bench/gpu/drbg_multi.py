"""CTR_DRBG bulk output on one and two GPUs, device-resident (on the device; drbg_multi.sh runs it).

Per cipher (LEA-128, AES-128, ARIA-128 by default) and size (128 MiB, 1 GiB of 2^19-bit requests), per GPU set
("1 GPU" = device 0, "2 GPUs" = devices 0 and 1 when present), in one run:
  plan       the host chain alone: the C library's P_drbg_plan (each request's update and key schedule, one
             thread, the library's dispatched kernels), ms
  library    from a plan: synchronous P_mg_ctr_multi_dev calls timed inside the library (P_mg_time_multi:
             no Python in the span; the median of --reps), requests split over the set's GPUs by bytes
  python     the same calls made from Python (GpuSet.ctr_multi_dev: ctypes and numpy per call), median
  serial     plan, then the call from Python
  pipelined  pieces of --piece requests: piece k+1 planned while the GPUs make piece k (each piece one
             asynchronous P_mg_ctr_multi_dev on one GPU of the set, round robin; successive calls on
             alternating streams, copies and key schedules on the key stream), the loop in Python
  phases     --phase-reps calls with P_mg_set_phases on, the median call: per GPU, host microseconds after
             the call's entry when its job began (the hand-over to its kept thread), its plan was staged,
             its work enqueued, its wait returned; GPU microseconds (events) of the plan copy, the key
             schedule, the keystream, the clearing; and the call minus its slowest keystream (the fixed cost)
The library-timed, serial and pipelined outputs (downloaded, in request order; the buffers zeroed before
each) have the SHA-256 of the C DRBG's output (P_drbg_generate in a C loop, one thread).  Then a split sweep (LEA-128 from a plan, library-timed: 1 GPU vs
2 GPUs at each size, split_min 0) for the threshold SPLIT_MIN (runtime/cuda_multi.py).  Writes
OUT/drbg_multi.json and prints the tables.

    python3 bench/gpu/drbg_multi.py --out $OUT [--ciphers lea128,aes128,aria128] [--mib 128,1024]
    python3 bench/gpu/drbg_multi.py --phases [--ciphers lea128] [--mib 8,128]   (the phase breakdown only)
    python3 bench/gpu/drbg_multi.py --ab-mix "unit:CIPHERSPEC_MG_SHARE=unit;trip:" --ciphers lea128   (arms
        interleaved in one process, a context per arm made under its switches: the A/B table)
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cipherspec.registry import Registry  # noqa: E402
from generator.c import BACKEND as C_BACKEND  # noqa: E402
from generator.ptx import BACKEND as CUDA_BACKEND  # noqa: E402
from runtime import cuda_multi as cm  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from multi import REQ, Planner  # noqa: E402  (bench/gpu/multi.py: the same host chain)

MIB = 1 << 20


def drbg_bench():
    """bench/drbg/bench.py (the C DRBG loop and seeding), loaded by path: bench/gpu has a bench.py too."""
    spec = importlib.util.spec_from_file_location("drbg_bench", ROOT / "bench" / "drbg" / "bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def median_time(f, n: int) -> float:
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


class Case(Planner):
    """One cipher at one size: the C DRBG's reference output, the plan tables (multi.Planner), the GPU sets."""

    def __init__(self, db, c, g, n: int):
        super().__init__(db, c, -(-n // REQ))
        self.g, self.n = g, n
        self.lens = np.full(self.nreq, REQ, np.uint64)
        self.lens[-1] = n - (self.nreq - 1) * REQ
        self.ends = np.concatenate([[0], np.cumsum(self.lens.astype(np.int64))])

    def reference(self, loop) -> tuple[str, float]:
        out = np.zeros(self.n, np.uint8)
        d = self.db.fresh(self.c, b"s")
        t0 = time.perf_counter()
        rc = loop(self.db.fnptr(d._fn["generate"]), ctypes.addressof(d._state), out.ctypes.data, self.n, REQ)
        t = time.perf_counter() - t0
        assert rc == 0, rc
        return hashlib.sha256(memoryview(out)).hexdigest(), t


def sha(bufs: cm.PartBuffers) -> str:
    return hashlib.sha256(memoryview(bufs.download())).hexdigest()


def phases(gs: cm.GpuSet, case: Case, dout: cm.PartBuffers, reps: int) -> dict:
    """The median (by the call's wall clock) of ``reps`` synchronous calls with the phases recorded, plus
    ``fixed_us``: the call minus its slowest GPU's keystream (what the 1-vs-2 GPU ratio pays per call)."""
    calls = []
    gs.set_phases(True)
    try:
        for _ in range(reps):
            gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)
            calls.append(gs.phases())
    finally:
        gs.set_phases(False)
    calls.sort(key=lambda c: c["call_us"])
    mid = calls[len(calls) // 2]
    used = [p for p in mid["devices"] if p["gpu"] >= 0]
    mid["fixed_us"] = mid["call_us"] - max((p["keystream"] for p in used), default=0.0)
    return mid


def run_case(case: Case, devs: list[int], want: str, piece: int, reps: int, phase_reps: int) -> dict:
    g, c = case.g, case.c
    gs = g.gpus(devs)
    gs.set_split_min(0 if len(devs) > 1 else cm.SPLIT_MIN)  # a 2-GPU set splits at every size here
    case.reset()
    case.plan()
    first = gs.parts_multi(case.lens)
    row: dict = {"devices": devs, "parts": first}
    at = [int(case.ends[r]) for r in first]
    zeros = np.zeros(case.n, np.uint8)
    with gs.alloc(at) as dout:
        gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)  # warm-up
        dout.upload(zeros, at)  # so a call that wrote nothing fails the check
        row["library_s"] = statistics.median(gs.time_multi(case.keys, case.vs, case.lens, dout, reps))
        row["verified_library"] = sha(dout) == want
        row["bulk_s"] = median_time(lambda: gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout), reps)
        row["phases"] = phases(gs, case, dout, phase_reps)  # (the same call as the two above, phases recorded)
        dout.upload(zeros, at)

        def serial():
            case.reset()
            case.plan()
            gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)

        row["serial_s"] = median_time(serial, reps)
        row["verified_serial"] = sha(dout) == want
    # pipelined: one single-GPU context per GPU of the set, pieces round robin, each into its place there
    singles = [g.gpus([d]) for d in devs]
    for s in singles:
        s.set_split_min(cm.SPLIT_MIN)
    pieces = [(a, min(piece, case.nreq - a)) for a in range(0, case.nreq, piece)]
    offs = []  # piece k: its byte offset in GPU (k mod len(devs))'s buffer
    fill = [0] * len(devs)
    for k, (a, cnt) in enumerate(pieces):
        i = k % len(devs)
        offs.append(fill[i])
        fill[i] += int(case.ends[a + cnt] - case.ends[a])
    bufs = [s.alloc([0, max(f, 1)]) for s, f in zip(singles, fill)]
    try:
        lens = case.lens
        kb, bb = c.key_bytes, c.block_bytes

        # every piece's pointers made once (numpy's .ctypes costs microseconds a call: not in the timed loop)
        fns = [sg.fn("mg_ctr_multi_dev") for sg in singles]
        plan_fn, base_k, base_v, base_l = (
            case.d._fn["plan"],
            case.keys.ctypes.data,
            case.vs.ctypes.data,
            lens.ctypes.data,
        )
        args = [
            (k % len(devs), a, cnt, (ctypes.c_void_p * 1)(bufs[k % len(devs)].ptrs[0] + offs[k]))
            for k, (a, cnt) in enumerate(pieces)
        ]

        def pipelined():
            case.reset()
            st = case.d._state
            for i, a, cnt, ptr in args:
                got = plan_fn(st, cnt, REQ, base_k + a * kb, base_v + a * bb)
                assert got == cnt, (got, cnt)
                rc = fns[i](singles[i].handle, base_k + a * kb, base_v + a * bb, base_l + 8 * a, cnt, ptr, -1, 0)
                if rc:
                    singles[i].c.check(rc, "pipelined piece")
            for sg in singles:
                sg.sync()

        pipelined()  # warm-up (buffers of the kept scratch grow once)
        row["pipelined_s"] = median_time(pipelined, reps)
        out = np.empty(case.n, np.uint8)
        parts = [b.download([f]) for b, f in zip(bufs, fill)]
        for k, (a, cnt) in enumerate(pieces):
            m, o = int(case.ends[a + cnt] - case.ends[a]), offs[k]
            out[int(case.ends[a]) : int(case.ends[a]) + m] = parts[k % len(devs)][o : o + m]
        row["verified_pipelined"] = hashlib.sha256(memoryview(out)).hexdigest() == want
    finally:
        for b in bufs:
            b.close()
    return row


def split_sweep(reg, sizes_mib: list[int], reps: int) -> list[dict]:
    """LEA-128 from a plan, library-timed, 1 GPU vs 2 GPUs (split_min 0), per size: where a second GPU pays."""
    db = drbg_bench()
    c = C_BACKEND.load(reg, "lea128", None, None)
    g = CUDA_BACKEND.load(reg, "lea128", None, None)
    rows = []
    for mib in sizes_mib:
        case = Case(db, c, g, mib * MIB)
        case.reset()
        case.plan()
        row = {"mib": mib}
        for label, devs in (("1", [0]), ("2", [0, 1])):
            gs = g.gpus(devs)
            gs.set_split_min(0)
            first = gs.parts_multi(case.lens)
            with gs.alloc([int(case.ends[r]) for r in first]) as dout:
                gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)
                row[label] = statistics.median(gs.time_multi(case.keys, case.vs, case.lens, dout, reps))
        row["speedup"] = row["1"] / row["2"]
        rows.append(row)
        print(
            f"split sweep lea128 {mib:5d} MiB: 1 GPU {row['1'] * 1e3:7.3f} ms, 2 GPUs {row['2'] * 1e3:7.3f} ms, "
            f"x{row['speedup']:.2f}",
            flush=True,
        )
    return rows


def phase_line(name: str, n: int, label: str, ph: dict) -> list[str]:
    """Rows of the phase table: one per GPU of the call."""
    out = []
    for d, p in enumerate(ph["devices"]):
        if p["gpu"] < 0:
            continue
        host = " / ".join(f"{p[k]:.1f}" for k in ("start", "planned", "enqueued", "waited"))
        gpu = " / ".join(f"{p[k]:.1f}" for k in ("copy", "keys", "keystream", "clear"))
        out.append(
            f"| {name} | {n >> 20} MiB | {label} | {ph['call_us']:.1f} | {d} | {host} | {gpu} | {ph['fixed_us']:.1f} |"
        )
    return out


PHASE_HEAD = [
    "| cipher | output | set | call us | GPU | host us after entry: job began / plan staged / enqueued / wait returned "
    "| GPU us: copy / key schedule / keystream / clearing | call - slowest keystream us |",
    "|---|---:|---|---:|---:|---|---|---:|",
]


def table(res: dict) -> str:
    lines = [
        "| cipher | output | set | plan ms | from plan, library-timed ms (GB/s) | from plan via Python ms "
        "| plan + GPU GB/s (serial) | pipelined GB/s | C DRBG MB/s | verified |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in res["rows"]:
        n = r["bytes"]
        ok = all(v for k, v in r.items() if k.startswith("verified_"))
        lines.append(
            f"| {r['cipher']} | {n >> 20} MiB | {r['set']} | {r['plan_s'] * 1e3:.2f} "
            f"| {r['library_s'] * 1e3:.3f} ({n / r['library_s'] / 1e9:.1f}) | {r['bulk_s'] * 1e3:.3f} "
            f"| {n / r['serial_s'] / 1e9:.1f} | {n / r['pipelined_s'] / 1e9:.1f} | {n / r['cpu_s'] / 1e6:,.0f} "
            f"| {'yes' if ok else '**NO**'} `{r['sha256'][:12]}` |"
        )
    speed = []
    by = {(r["cipher"], r["bytes"], len(r["devices"])): r for r in res["rows"]}
    for (name, n, nd), r in sorted(by.items()):
        one = by.get((name, n, 1))
        if nd == 2 and one:
            speed.append(
                f"- {name} {n >> 20} MiB, 2 GPUs vs 1 from a plan: library-timed x{one['library_s'] / r['library_s']:.2f}"
                f" (via Python x{one['bulk_s'] / r['bulk_s']:.2f}, serial with the plan "
                f"x{one['serial_s'] / r['serial_s']:.2f}, pipelined x{one['pipelined_s'] / r['pipelined_s']:.2f})"
            )
    ph = list(PHASE_HEAD)
    for r in res["rows"]:
        ph += phase_line(r["cipher"], r["bytes"], r["set"], r["phases"])
    return "\n".join(lines + [""] + speed + ["", "Phases (the median of the phased calls):", ""] + ph)


def phases_only(reg, names: list[str], sizes_mib: list[int], reps: int) -> None:
    """--phases: the phase breakdown alone (1 GPU, and 2 GPUs when present), each output's SHA-256 checked
    against the C DRBG's."""
    db = drbg_bench()
    loop = db.loop_lib()
    lines = list(PHASE_HEAD)
    for name in names:
        c = C_BACKEND.load(reg, name, None, None)
        g = CUDA_BACKEND.load(reg, name, None, None)
        sets = [("1 GPU", [0])] + ([("2 GPUs", [0, 1])] if g.device_count() > 1 else [])
        for mib in sizes_mib:
            case = Case(db, c, g, mib * MIB)
            want, _ = case.reference(loop)
            case.reset()
            case.plan()
            for label, devs in sets:
                gs = g.gpus(devs)
                gs.set_split_min(0)
                first = gs.parts_multi(case.lens)
                at = [int(case.ends[r]) for r in first]
                with gs.alloc(at) as dout:
                    gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)  # warm-up (the scratch grows once)
                    dout.upload(np.zeros(case.n, np.uint8), at)  # so a call that wrote nothing fails the check
                    ph = phases(gs, case, dout, reps)
                    ok = sha(dout) == want
                lines += [x + ("" if ok else " **MISMATCH**") for x in phase_line(name, case.n, label, ph)]
                print(lines[-1], flush=True)
    print("\n".join(lines))


def planned_cases(reg, names: list[str], sizes_mib: list[int]):
    """Per cipher and size (in order): (name, its CUDA cipher, MiB, the Case planned, the C DRBG output's SHA-256,
    the GPU sets: [[0]], and [[0], [0, 1]] where there are two GPUs)."""
    db = drbg_bench()
    loop = db.loop_lib()
    for name in names:
        c = C_BACKEND.load(reg, name, None, None)
        g = CUDA_BACKEND.load(reg, name, None, None)
        sets = [[0]] + ([[0, 1]] if g.device_count() > 1 else [])
        for mib in sizes_mib:
            case = Case(db, c, g, mib * MIB)
            want, _ = case.reference(loop)
            case.reset()
            case.plan()
            yield name, g, mib, case, want, sets


TL_HOST = ("entry", "end", "job", "scratch", "staged", "launch", "launched", "waited")  # P_mg_timeline's out[0..8)
TL_WORDS = 9  # per CTA (generator/ptx/multikey.py TIMELINE_WORDS): smid, 4 x %globaltimer, 4 x clock64


def timeline_call(gs: cm.GpuSet, case: Case, dout: cm.PartBuffers) -> dict:
    """One synchronous call of the timeline build (CIPHERSPEC_PTX_MK_TIMELINE=1): per GPU of the set, the host's
    CLOCK_REALTIME stamps (ns) and the kernel's CTA table (rows of smid, 4 x %globaltimer, 4 x clock64)."""
    fn, clear = gs.fn("mg_timeline"), gs.fn("mg_timeline_clear")
    fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    clear.restype, clear.argtypes = ctypes.c_int, [ctypes.c_void_p]
    gs.c.check(clear(gs.handle), "timeline clear")
    gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)
    out = {}
    for d in range(len(gs.devices)):
        buf = np.zeros(8 + 8192 * TL_WORDS, np.uint64)
        if fn(gs.handle, d, buf.ctypes.data, buf.size):  # (no part on this GPU)
            continue
        ctas = buf[8:].reshape(-1, TL_WORDS)
        out[d] = {"host": dict(zip(TL_HOST, (int(x) for x in buf[:8]))), "ctas": ctas[ctas[:, 1] != 0].copy()}
    return out


def timeline_metrics(t: dict) -> dict:
    """One GPU's part of a timeline call, in microseconds: host steps after the call's entry; CTA starts, first
    stage, first trip and ends (%globaltimer) after the first CTA's start; the clock64 rate of the CTAs (MHz); and,
    if the two clocks agree (%globaltimer follows CLOCK_REALTIME on Linux drivers), the launch call -> first CTA and
    last CTA end -> wait returned gaps (``clocks_agree``: both within 0 .. 1 ms)."""
    h, c = t["host"], t["ctas"].astype(np.int64)
    us = lambda a, b: (a - b) / 1e3  # noqa: E731  (ns -> us)
    s0 = int(c[:, 1].min())
    start, stage, trip, end = (c[:, k] - s0 for k in (1, 2, 3, 4))
    per_sm = np.bincount(c[:, 0].astype(np.int64))
    mhz = np.median((c[:, 8] - c[:, 5]) / np.maximum(c[:, 4] - c[:, 1], 1) * 1e3)
    launch_gap, wait_gap = us(s0, h["launch"]), us(h["waited"], s0 + int(end.max()))
    agree = 0 <= launch_gap < 1000 and 0 <= wait_gap < 1000
    return {
        "ctas": int(len(c)),
        "sms": int((per_sm > 0).sum()),
        "ctas_per_sm_max": int(per_sm.max()),
        "host_us": {k: us(h[k], h["entry"]) if h[k] else -1.0 for k in TL_HOST[1:]},
        "start_spread_us": float(start.max()) / 1e3,
        "start_p50_us": float(np.median(start)) / 1e3,
        "stage_p50_us": float(np.median(stage - start)) / 1e3,
        "stage_max_us": float((stage - start).max()) / 1e3,
        "trip_p50_us": float(np.median(trip - stage)) / 1e3,
        "trip_max_us": float((trip - stage).max()) / 1e3,
        "end_first_us": float(end.min()) / 1e3,
        "end_p50_us": float(np.median(end)) / 1e3,
        "end_last_us": float(end.max()) / 1e3,
        "cta_p50_us": float(np.median(end - start)) / 1e3,
        "sm_mhz": float(mhz),
        # the same first stage and first trip by clock64 (the SM's cycles at sm_mhz: %globaltimer may tick coarsely)
        "stage_clk_us": float(np.median(c[:, 6] - c[:, 5]) / mhz),
        "trip_clk_us": float(np.median(c[:, 7] - c[:, 6]) / mhz),
        "launch_to_first_cta_us": launch_gap,
        "last_end_to_waited_us": wait_gap,
        "clocks_agree": bool(agree),
    }


def timeline(reg, sizes_mib: list[int], reps: int) -> list[dict]:
    """--timeline (a process whose environment has CIPHERSPEC_PTX_MK_TIMELINE=1: the timeline build of LEA-128):
    per size and GPU set, ``reps`` calls; per GPU the metrics (timeline_metrics) of the median call by the call's
    wall clock, and the medians of each metric over the calls; each call's output == the C DRBG's."""
    rows = []
    for _, g, mib, case, want, sets in planned_cases(reg, ["lea128"], sizes_mib):
        for devs in sets:
            gs = g.gpus(devs)
            gs.set_split_min(0 if len(devs) > 1 else cm.SPLIT_MIN)
            first = gs.parts_multi(case.lens)
            at = [int(case.ends[r]) for r in first]
            with gs.alloc(at) as dout:
                gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)  # warm-up
                lib = statistics.median(gs.time_multi(case.keys, case.vs, case.lens, dout, 15))
                dout.upload(np.zeros(case.n, np.uint8), at)
                calls = [timeline_call(gs, case, dout) for _ in range(reps)]
                ok = sha(dout) == want
            gs.close()
            calls.sort(key=lambda t: next(iter(t.values()))["host"]["end"] - next(iter(t.values()))["host"]["entry"])
            for d in sorted(calls[0]):
                ms = [timeline_metrics(t[d]) for t in calls if d in t]
                med = {k: statistics.median(m[k] for m in ms) for k, v in ms[0].items() if isinstance(v, float)}
                med["host_us"] = {k: statistics.median(m["host_us"][k] for m in ms) for k in ms[0]["host_us"]}
                mid = ms[len(ms) // 2]
                rows.append(
                    {
                        "mib": mib,
                        "gpus": len(devs),
                        "gpu": d,
                        "library_ms": lib * 1e3,
                        "median_call": mid,
                        "medians": med,
                        "ctas": mid["ctas"],
                        "ctas_per_sm_max": mid["ctas_per_sm_max"],
                        "clocks_agree_calls": sum(m["clocks_agree"] for m in ms),
                        "calls": len(ms),
                        "verified": ok,
                        "table": calls[len(calls) // 2][d]["ctas"].tolist(),
                    }
                )
                print(timeline_row(rows[-1]), flush=True)
    return rows


TIMELINE_HEAD = [
    "| output | GPUs | GPU | call ms (library) | CTAs (per SM) | host us after entry: job / staged / launch / launched "
    "/ waited / end | launch -> 1st CTA us | CTA starts spread us | 1st stage p50 / max us (clock64 p50) "
    "| 1st trip p50 / max us (clock64 p50) "
    "| ends first / p50 / last us | CTA p50 us | last end -> waited us | SM MHz | clocks agree | verified |",
    "|---:|---:|---:|---:|---|---|---:|---:|---|---|---|---:|---:|---:|---:|---|",
]


def timeline_row(r: dict) -> str:
    """A --timeline row: the medians over the calls of one size, GPU set and GPU."""
    m, h = r["medians"], r["medians"]["host_us"]
    host = " / ".join(f"{h[k]:.1f}" for k in ("job", "staged", "launch", "launched", "waited", "end"))
    return (
        f"| {r['mib']} MiB | {r['gpus']} | {r['gpu']} | {r['library_ms']:.4f} | {r['ctas']} ({r['ctas_per_sm_max']}) "
        f"| {host} | {m['launch_to_first_cta_us']:.1f} | {m['start_spread_us']:.2f} "
        f"| {m['stage_p50_us']:.2f} / {m['stage_max_us']:.2f} ({m['stage_clk_us']:.2f}) "
        f"| {m['trip_p50_us']:.2f} / {m['trip_max_us']:.2f} ({m['trip_clk_us']:.2f}) "
        f"| {m['end_first_us']:.1f} / {m['end_p50_us']:.1f} / {m['end_last_us']:.1f} | {m['cta_p50_us']:.1f} "
        f"| {m['last_end_to_waited_us']:.1f} | {m['sm_mhz']:.0f} | {r['clocks_agree_calls']}/{r['calls']} "
        f"| {'yes' if r['verified'] else '**NO**'} |"
    )


def parse_arms(text: str) -> list[tuple[str, dict]]:
    """ "label:VAR=v,VAR=v;label2:..." -> [(label, {VAR: v, ...}), ...] (an empty switch list: the defaults)."""
    arms = []
    for part in filter(None, text.split(";")):
        label, _, sw = part.partition(":")
        arms.append((label, dict(kv.split("=", 1) for kv in filter(None, sw.split(",")))))
    return arms


def context(g, devs: list[int], env: dict) -> cm.GpuSet:
    """A context of its own over ``devs`` made with the switches ``env`` set (the library reads them when a
    context is made), the process environment as it was afterwards."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return cm.GpuSet(g, devs)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def ab_mix(
    reg, arms: list[tuple[str, dict]], names: list[str], sizes_mib: list[int], rounds: int, per: int, phase_reps: int
) -> list[dict]:
    """--ab-mix ARMS: the arms measured side by side in one process, interleaved (a context per arm and GPU set;
    ``rounds`` rounds, each running every arm for ``per`` library-timed calls, the arms' order rotating), so a
    drift of the clocks or of the host touches every arm alike.  Per cipher, size, GPU set and arm: the median
    call, its ratio to the first arm's, 2 GPUs vs 1; the median phased call's fixed cost and per-GPU keystream;
    every arm's output == the C DRBG's (SHA-256)."""
    rows = []
    for name, g, mib, case, want, sets in planned_cases(reg, names, sizes_mib):
        for devs in sets:
            ctxs = [context(g, devs, env) for _, env in arms]
            try:
                for gs in ctxs:
                    gs.set_split_min(0 if len(devs) > 1 else cm.SPLIT_MIN)
                first = ctxs[0].parts_multi(case.lens)
                at = [int(case.ends[r]) for r in first]
                times: list[list[float]] = [[] for _ in arms]
                with ctxs[0].alloc(at) as dout:
                    for gs in ctxs:  # warm-up (each context's scratch grows once)
                        gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)
                    for k in range(rounds):
                        for j in range(len(arms)):
                            a = (j + k) % len(arms)
                            times[a] += ctxs[a].time_multi(case.keys, case.vs, case.lens, dout, per)
                    for a, ((arm, _), gs) in enumerate(zip(arms, ctxs)):
                        dout.upload(np.zeros(case.n, np.uint8), at)  # so a call that wrote nothing fails
                        ph = phases(gs, case, dout, phase_reps)
                        used = [p for p in ph["devices"] if p["gpu"] >= 0]
                        rows.append(
                            {
                                "arm": arm,
                                "cipher": name,
                                "mib": mib,
                                "gpus": len(devs),
                                "ms": statistics.median(times[a]) * 1e3,
                                "min_ms": min(times[a]) * 1e3,
                                "calls": len(times[a]),
                                "fixed_us": ph["fixed_us"],
                                "keystream_us": [round(p["keystream"], 1) for p in used],
                                "phases": ph,
                                "verified": sha(dout) == want,
                            }
                        )
            finally:
                for gs in ctxs:
                    gs.close()
    return rows


def ab_mix_table(rows: list[dict]) -> str:
    """The --ab-mix rows: per cipher and size, each arm's 1- and 2-GPU medians, the ratio, vs the first arm."""
    lines = [
        "| arm | cipher | output | 1 GPU ms (vs first arm) | 2 GPUs ms (vs first arm) | 2 vs 1 | fixed us, 1 / 2 GPUs "
        "| keystream us: 1 GPU / 2 GPUs (GPU 0, 1) | verified |",
        "|---|---|---:|---:|---:|---:|---|---|---|",
    ]
    by = {(r["arm"], r["cipher"], r["mib"], r["gpus"]): r for r in rows}
    arms = list(dict.fromkeys(r["arm"] for r in rows))
    for cipher, mib in dict.fromkeys((r["cipher"], r["mib"]) for r in rows):
        for arm in arms:
            one, two = by.get((arm, cipher, mib, 1)), by.get((arm, cipher, mib, 2))
            b1, b2 = by.get((arms[0], cipher, mib, 1)), by.get((arms[0], cipher, mib, 2))

            def cell(r, b):
                return f"{r['ms']:.4f} ({r['ms'] / b['ms']:.3f})" if r and b else "-"

            ratio = f"x{one['ms'] / two['ms']:.3f}" if one and two else "-"
            fixed = " / ".join(f"{r['fixed_us']:.1f}" for r in (one, two) if r)
            ks = " / ".join(", ".join(f"{k:.1f}" for k in r["keystream_us"]) for r in (one, two) if r)
            ok = all(r["verified"] for r in (one, two) if r)
            lines.append(
                f"| {arm} | {cipher} | {mib} MiB | {cell(one, b1)} | {cell(two, b2)} | {ratio} | {fixed} | {ks} "
                f"| {'yes' if ok else '**NO**'} |"
            )
    ph = [
        "",
        "Phases of each arm's median phased call (host us after entry: job began / plan staged / enqueued / wait "
        "returned; GPU us: keystream):",
        "",
        "| arm | output | GPUs | call us | GPU | host | keystream |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        for d, p in enumerate(r["phases"]["devices"]):
            if p["gpu"] < 0:
                continue
            host = " / ".join(f"{p[k]:.1f}" for k in ("start", "planned", "enqueued", "waited"))
            ph.append(
                f"| {r['arm']} | {r['mib']} MiB | {r['gpus']} | {r['phases']['call_us']:.1f} | {d} | {host} "
                f"| {p['keystream']:.1f} |"
            )
    return "\n".join(lines + ph)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp")))
    ap.add_argument("--ciphers", default="lea128,aes128,aria128")
    ap.add_argument("--mib", type=lambda s: [int(x) for x in s.split(",")], default=[128, 1024])
    ap.add_argument("--piece", type=int, default=512, help="requests per pipelined piece (512 = 32 MiB)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--phase-reps", type=int, default=7)
    ap.add_argument("--sweep-mib", type=lambda s: [int(x) for x in s.split(",")], default=[8, 16, 32, 64, 128])
    ap.add_argument("--phases", action="store_true", help="the phase breakdown only")
    ap.add_argument("--timeline", action="store_true", help="LEA-128's kernel timeline (the timeline build) only")
    ap.add_argument("--ab-mix", metavar="ARMS", help='arms interleaved in one process: "label:VAR=v,..;label2:.."')
    ap.add_argument("--rounds", type=int, default=9, help="--ab-mix: rounds over the arms")
    ap.add_argument("--per", type=int, default=3, help="--ab-mix: library-timed calls per arm and round")
    a = ap.parse_args()
    reg = Registry()
    if a.ab_mix:
        rows = ab_mix(reg, parse_arms(a.ab_mix), a.ciphers.split(","), a.mib, a.rounds, a.per, a.phase_reps)
        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / "ab_mix.json").write_text(json.dumps(rows, indent=1))
        table_text = ab_mix_table(rows)
        print(table_text.split("\n\nPhases")[0])
        (a.out / "ab_mix.md").write_text(table_text + "\n")
        return
    if a.phases:
        phases_only(reg, a.ciphers.split(","), a.mib, a.phase_reps)
        return
    if a.timeline:
        os.environ["CIPHERSPEC_PTX_MK_TIMELINE"] = "1"  # (read when the library is generated: this process's build)
        rows = timeline(reg, a.mib, a.phase_reps)
        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / "timeline.json").write_text(json.dumps(rows))
        text = "\n".join(TIMELINE_HEAD + [timeline_row(r) for r in rows])
        (a.out / "timeline.md").write_text(text + "\n")
        print(text)
        return
    a.out.mkdir(parents=True, exist_ok=True)
    db = drbg_bench()
    loop = db.loop_lib()
    ndev = CUDA_BACKEND.load(reg, "lea128", None, None).device_count()
    sets = [("1 GPU", [0])] + ([("2 GPUs", [0, 1])] if ndev > 1 else [])
    res: dict = {"cpu": db.cpu_name(), "gpus": ndev, "split_min_default": cm.SPLIT_MIN, "rows": [], "sweep": []}
    for name in a.ciphers.split(","):
        c = C_BACKEND.load(reg, name, None, None)
        g = CUDA_BACKEND.load(reg, name, None, None)
        res.setdefault("devices", [g.gpus([d]).info()[0] for d in range(ndev)])
        for mib in a.mib:
            case = Case(db, c, g, mib * MIB)
            want, cpu_s = case.reference(loop)

            def plan_only():
                case.reset()
                case.plan()

            plan_s = median_time(plan_only, a.reps)
            for label, devs in sets:
                reps = a.reps if mib <= 128 else max(3, a.reps // 2)
                row = run_case(case, devs, want, a.piece, reps, a.phase_reps)
                row.update(cipher=name, bytes=case.n, set=label, sha256=want, cpu_s=cpu_s, plan_s=plan_s)
                res["rows"].append(row)
                n = case.n
                ok = all(v for k, v in row.items() if k.startswith("verified_"))
                print(
                    f"{name:8s} {mib:5d} MiB {label:6s} plan {plan_s * 1e3:7.2f} ms | from plan: library "
                    f"{row['library_s'] * 1e3:7.3f} ms {n / row['library_s'] / 1e9:7.1f} GB/s, Python "
                    f"{row['bulk_s'] * 1e3:7.3f} ms | serial {n / row['serial_s'] / 1e9:7.1f} | pipelined "
                    f"{n / row['pipelined_s'] / 1e9:7.1f} | fixed {row['phases']['fixed_us']:6.1f} us | "
                    f"{'ok' if ok else 'MISMATCH'}",
                    flush=True,
                )
                (a.out / "drbg_multi.json").write_text(json.dumps(res, indent=1))
    if ndev > 1 and "lea128" in a.ciphers.split(","):
        res["sweep"] = split_sweep(reg, a.sweep_mib, a.reps)
        (a.out / "drbg_multi.json").write_text(json.dumps(res, indent=1))
    print()
    print(table(res))


if __name__ == "__main__":
    main()
