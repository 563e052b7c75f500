"""CTR_DRBG bulk output on one and two GPUs, device-resident (on the device; drbg_multi.sh runs it).

Per cipher (LEA-128, AES-128, ARIA-128 by default) and size (128 MiB, 1 GiB of 2^19-bit requests), per GPU set
("1 GPU" = device 0, "2 GPUs" = devices 0 and 1 when present), in one run:
  plan       the host chain alone: the C library's P_drbg_plan (each request's update and key schedule, one
             thread, the library's dispatched kernels), ms
  bulk       from a plan: P_mg_ctr_multi_dev (requests split over the set's GPUs by bytes, the context's kept
             threads, scratch and page-locked staging), wall clock until every GPU is done
  serial     plan, then bulk
  pipelined  pieces of --piece requests: piece k+1 planned while the GPUs make piece k (each piece one
             asynchronous P_mg_ctr_multi_dev on one GPU of the set, round robin, into its place of that
             GPU's buffer; successive calls on different streams, key schedules on the key stream), wall
             clock until every GPU is done; the loop in Python (ctypes, pointers made before the clock starts)
  library    the same in one call, the loop in the CUDA library: P_mg_drbg_dev with the C library's
             P_drbg_plan as its callback, its own piece size; plus its own split of the time (planning,
             issuing the GPU calls including any wait for a staging buffer, waiting at the end)
Every mode's output (downloaded and put back in request order) has the SHA-256 of the C DRBG's output
(P_drbg_generate in a C loop, one thread).  Then a split sweep (LEA-128 from a plan: 1 GPU vs 2 GPUs at
each size, split_min 0) for the threshold SPLIT_MIN (runtime/cuda_multi.py).  Writes OUT/drbg_multi.json
and prints the tables.

    python3 bench/gpu/drbg_multi.py --out $OUT [--ciphers lea128,aes128,aria128] [--mib 128,1024]
    python3 bench/gpu/drbg_multi.py --profile-one      (one 2-GPU 128 MiB LEA-128 call after a warm-up, for nsys)
    python3 bench/gpu/drbg_multi.py --profile-drbg aria128   (one 1-GPU 1 GiB P_mg_drbg_dev call, for nsys)
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


def run_case(case: Case, devs: list[int], want: str, piece: int, reps: int) -> dict:
    g, c = case.g, case.c
    gs = g.gpus(devs)
    gs.set_split_min(0 if len(devs) > 1 else cm.SPLIT_MIN)  # a 2-GPU set splits at every size here
    case.reset()
    case.plan()
    first = gs.parts_multi(case.lens)
    row: dict = {"devices": devs, "parts": first}
    with gs.alloc([int(case.ends[r]) for r in first]) as dout:
        gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)  # warm-up
        row["bulk_s"] = median_time(lambda: gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout), reps)
        row["verified_bulk"] = hashlib.sha256(memoryview(dout.download())).hexdigest() == want

        def serial():
            case.reset()
            case.plan()
            gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)

        row["serial_s"] = median_time(serial, reps)
        row["verified_serial"] = hashlib.sha256(memoryview(dout.download())).hexdigest() == want
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
    # pipelined in the library: P_mg_drbg_dev plans piece by piece itself (the C DRBG's P_drbg_plan as its
    # callback), pieces round robin over the set's GPUs (its own piece size), one call
    fill, lay = gs.drbg_layout(case.nreq, REQ)
    if case.n == case.nreq * REQ:
        with cm.PartBuffers(gs, fill) as lbuf:

            def library():
                case.reset()
                done, stats = gs.drbg_dev(case.d, case.nreq, lbuf, REQ, keys=case.keys, vs=case.vs)
                assert done == case.nreq, done
                return stats

            library()  # warm-up
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                stats = library()
                ts.append((time.perf_counter() - t0, stats))
            ts.sort(key=lambda t: t[0])
            row["library_s"], row["library_stats"] = ts[len(ts) // 2]
            row["library_pieces"] = len(lay)
            whole = lbuf.download()
            starts = np.concatenate([[0], np.cumsum(fill)])
            out = np.empty(case.n, np.uint8)
            pos = 0
            for i, off, cnt in lay:
                m = cnt * REQ
                out[pos : pos + m] = whole[starts[i] + off : starts[i] + off + m]
                pos += m
            row["verified_library"] = hashlib.sha256(memoryview(out)).hexdigest() == want
    return row


def split_sweep(reg, sizes_mib: list[int], reps: int) -> list[dict]:
    """LEA-128 from a plan, 1 GPU vs 2 GPUs (split_min 0), per size: where a second GPU starts to pay."""
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
                row[label] = median_time(lambda: gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout), reps)
        row["speedup"] = row["1"] / row["2"]
        rows.append(row)
        print(
            f"split sweep lea128 {mib:5d} MiB: 1 GPU {row['1'] * 1e3:7.3f} ms, 2 GPUs {row['2'] * 1e3:7.3f} ms, "
            f"x{row['speedup']:.2f}",
            flush=True,
        )
    return rows


def profile_one(reg) -> None:
    """One 2-GPU 128 MiB LEA-128 call from a plan after three warm-up calls (nsys captures the run)."""
    db = drbg_bench()
    c = C_BACKEND.load(reg, "lea128", None, None)
    g = CUDA_BACKEND.load(reg, "lea128", None, None)
    case = Case(db, c, g, 128 * MIB)
    case.reset()
    case.plan()
    gs = g.gpus([0, 1])
    gs.set_split_min(0)
    first = gs.parts_multi(case.lens)
    with gs.alloc([int(case.ends[r]) for r in first]) as dout:
        for _ in range(3):
            gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)
        time.sleep(0.05)  # a gap in the timeline before the profiled call
        t0 = time.perf_counter()
        gs.ctr_multi_dev(case.keys, case.vs, case.lens, dout)
        print(f"profiled call: {1e3 * (time.perf_counter() - t0):.3f} ms", flush=True)


def profile_drbg(reg, name: str) -> None:
    """One 1-GPU 1 GiB P_mg_drbg_dev call (the library's pipelined DRBG bulk) after two warm-up calls, for nsys:
    whether the key-schedule launches (key stream) overlap the keystream launches and the host's plan."""
    db = drbg_bench()
    c = C_BACKEND.load(reg, name, None, None)
    g = CUDA_BACKEND.load(reg, name, None, None)
    case = Case(db, c, g, 1 << 30)
    gs = g.gpus([0])
    fill, _ = gs.drbg_layout(case.nreq, REQ)
    with cm.PartBuffers(gs, fill) as buf:
        for _ in range(2):
            case.reset()
            gs.drbg_dev(case.d, case.nreq, buf, REQ, keys=case.keys, vs=case.vs)
        case.reset()
        time.sleep(0.05)  # a gap in the timeline before the profiled call
        t0 = time.perf_counter()
        _, stats = gs.drbg_dev(case.d, case.nreq, buf, REQ, keys=case.keys, vs=case.vs)
        print(f"profiled call {name}: {1e3 * (time.perf_counter() - t0):.3f} ms, {stats}", flush=True)


def table(res: dict) -> str:
    lines = [
        "| cipher | output | set | plan ms | from plan GB/s | plan + GPU GB/s (serial) | pipelined GB/s "
        "| pipelined in the library GB/s (pieces; plan / issue / final wait ms) | C DRBG MB/s | verified |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in res["rows"]:
        n = r["bytes"]
        ok = all(r[k] for k in ("verified_bulk", "verified_serial", "verified_pipelined", "verified_library") if k in r)
        lib = "—"
        if "library_s" in r:
            st = r["library_stats"]
            lib = (
                f"{n / r['library_s'] / 1e9:.1f} ({r['library_pieces']}; {st['plan_s'] * 1e3:.2f} / "
                f"{st['issue_s'] * 1e3:.2f} / {st['wait_s'] * 1e3:.2f})"
            )
        lines.append(
            f"| {r['cipher']} | {n >> 20} MiB | {r['set']} | {r['plan_s'] * 1e3:.2f} | {n / r['bulk_s'] / 1e9:.1f} "
            f"| {n / r['serial_s'] / 1e9:.1f} | {n / r['pipelined_s'] / 1e9:.1f} | {lib} | {n / r['cpu_s'] / 1e6:,.0f} "
            f"| {'yes' if ok else '**NO**'} `{r['sha256'][:12]}` |"
        )
    speed = []
    by = {(r["cipher"], r["bytes"], len(r["devices"])): r for r in res["rows"]}
    for (name, n, nd), r in sorted(by.items()):
        one = by.get((name, n, 1))
        if nd == 2 and one:
            speed.append(
                f"- {name} {n >> 20} MiB, 2 GPUs vs 1 from a plan: x{one['bulk_s'] / r['bulk_s']:.2f} "
                f"(serial with the plan x{one['serial_s'] / r['serial_s']:.2f}, pipelined "
                f"x{one['pipelined_s'] / r['pipelined_s']:.2f})"
            )
    return "\n".join(lines + [""] + speed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp")))
    ap.add_argument("--ciphers", default="lea128,aes128,aria128")
    ap.add_argument("--mib", type=lambda s: [int(x) for x in s.split(",")], default=[128, 1024])
    ap.add_argument("--piece", type=int, default=512, help="requests per pipelined piece (512 = 32 MiB)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--sweep-mib", type=lambda s: [int(x) for x in s.split(",")], default=[8, 16, 32, 64, 128])
    ap.add_argument("--profile-one", action="store_true")
    ap.add_argument("--profile-drbg", metavar="CIPHER", help="one 1-GPU 1 GiB P_mg_drbg_dev call, for nsys")
    a = ap.parse_args()
    reg = Registry()
    if a.profile_one:
        profile_one(reg)
        return
    if a.profile_drbg:
        profile_drbg(reg, a.profile_drbg)
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
                row = run_case(case, devs, want, a.piece, a.reps if mib <= 128 else 3)
                row.update(cipher=name, bytes=case.n, set=label, sha256=want, cpu_s=cpu_s, plan_s=plan_s)
                res["rows"].append(row)
                n = case.n
                oks = [
                    row[k]
                    for k in ("verified_bulk", "verified_serial", "verified_pipelined", "verified_library")
                    if k in row
                ]
                lib = f"{n / row['library_s'] / 1e9:7.1f}" if "library_s" in row else "    n/a"
                print(
                    f"{name:8s} {mib:5d} MiB {label:6s} plan {plan_s * 1e3:7.2f} ms | from plan "
                    f"{n / row['bulk_s'] / 1e9:7.1f} GB/s | serial {n / row['serial_s'] / 1e9:7.1f} | pipelined "
                    f"{n / row['pipelined_s'] / 1e9:7.1f} | in the library {lib} | {'ok' if all(oks) else 'MISMATCH'}",
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
