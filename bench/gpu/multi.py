"""Every GPU of the host: multi-GPU scaling and host-memory streaming (on the device; multi.sh runs it).

Per GPU set ("1 GPU" = device 0; "N GPUs" = every visible GPU, when there are several), in one run, in
this order (multi.json is saved after each stage):
  bandwidth  cudaMemcpyAsync host<->device, n bytes per GPU, every GPU of the set at once: H2D, D2H, both
             at once (per direction); page-locked (cudaHostAlloc) and pageable (malloc, touched) host memory
  ctr        CTR keystream, device-resident (one buffer per GPU, P_mg_ctr_dev): wall clock of `reps` calls
             on every GPU of the set until the last kernel ends; output windows at every part boundary
             checked against the C library's CTR
  drbg       CTR_DRBG (LEA-128, 2^19-bit requests): the generated C DRBG on one CPU thread (bench/drbg's
             loop) vs the C host chain (P_drbg_plan) + the multi-key kernels: device-resident from a plan,
             device-resident with the plan, and into page-locked host memory with the plan (one call, and
             pipelined: the next piece planned while the GPUs make this one); SHA-256 == the C DRBG's
  host       CTR host buffer -> host buffer (P_mg_ctr_host), 1 GiB, each memory mode: pinned (caller's
             buffers page-locked), register (pageable buffers registered per call), stage (copied through
             the library's pinned buffers), pageable (driver-staged); outputs equal byte for byte
Writes OUT/multi.json; prints the tables (bench/gpu/multi_report.py) last.

    python3 bench/gpu/multi.py --out $OUT [--ctr-mib 8192] [--host-mib 1024] [--drbg-mib 128,1024]
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import multi_report  # noqa: E402

from cipherspec import modes  # noqa: E402
from cipherspec.registry import Registry  # noqa: E402
from generator.c import BACKEND as C_BACKEND  # noqa: E402
from generator.ptx import BACKEND as CUDA_BACKEND  # noqa: E402

MIB = 1 << 20
REQ = 65536  # 2^19 bits per DRBG request


def drbg_bench():
    """bench/drbg/bench.py (its C DRBG loop and seeding), loaded by path: bench/gpu has a bench.py too."""
    spec = importlib.util.spec_from_file_location("drbg_bench", ROOT / "bench" / "drbg" / "bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def nvidia_smi() -> str:
    """Index, name, PCI bus, PCIe link generation and width, clocks of every GPU ("" without nvidia-smi)."""
    q = "index,name,pci.bus_id,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.max.sm"
    try:
        return subprocess.run(
            ["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return ""


def median_time(f, n: int) -> float:
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


class Planner:
    """The C DRBG's host chain (P_drbg_plan) into one keys/vs table, from the benchmark's fresh state."""

    def __init__(self, db, c, nreq: int):
        self.db, self.c, self.nreq = db, c, nreq
        self.keys = np.zeros(nreq * c.key_bytes, np.uint8)
        self.vs = np.zeros(nreq * c.block_bytes, np.uint8)
        self.reset()

    def reset(self) -> None:
        self.d = self.db.fresh(self.c, b"s")

    def plan(self, first: int = 0, count: int | None = None) -> None:
        """Requests [first, first + count) (uniform 2^19 bits; the last one's output is cut by its length)."""
        count = self.nreq - first if count is None else count
        got = self.d._fn["plan"](
            self.d._state,
            count,
            REQ,
            self.keys[first * self.c.key_bytes :].ctypes.data,
            self.vs[first * self.c.block_bytes :].ctypes.data,
        )
        assert got == count, (got, count)


class Run:
    def __init__(self, args):
        self.args = args
        self.reg = Registry()
        self.rng = np.random.default_rng(2026)
        self.lea = CUDA_BACKEND.load(self.reg, "lea128", None, None)
        n = self.lea.device_count()
        self.sets = [("1 GPU", [0])] + ([(f"{n} GPUs", list(range(n)))] if n > 1 else [])
        self.res = {
            "devices": [self.lea.gpus([d]).info()[0] for d in range(n)],
            "sets": dict(self.sets),
            "bandwidth": [],
            "ctr": [],
            "drbg": [],
            "host": [],
        }

    def save(self):
        (self.args.out / "multi.json").write_text(json.dumps(self.res, indent=1))

    # ---------------------------------------------------------------------------- copies
    def bandwidth(self):
        n = self.args.bw_mib * MIB
        for label, devs in self.sets:
            gs = self.lea.gpus(devs)
            for pinned in (True, False):
                for direction in ("h2d", "d2h", "both"):
                    gbs = gs.bandwidth(n, direction, pinned, 2 if not pinned else 5)
                    self.res["bandwidth"].append(
                        {
                            "set": label,
                            "devices": devs,
                            "pinned": pinned,
                            "direction": direction,
                            "bytes_per_gpu": n,
                            "gbs": gbs,
                        }
                    )
                    print(
                        f"bandwidth {label:7s} {'pinned' if pinned else 'pageable':8s} {direction:4s} {gbs:7.1f} GB/s",
                        flush=True,
                    )

    # ---------------------------------------------------------------------------- device-resident CTR
    def windows(self, first: list[int]):
        """(byte offset, length): 64 KiB at both ends of every part, one random window inside each."""
        out = []
        for a, b in zip(first, first[1:]):
            if b - a < 3 * 65536:
                out.append((a, b - a))
                continue
            mid = a + int(self.rng.integers(0, (b - a - 65536) // 65536)) * 65536
            out += [(a, 65536), (mid, 65536), (b - 65536, 65536)]
        return out

    def ctr(self, name: str):
        g = CUDA_BACKEND.load(self.reg, name, None, None)
        c = C_BACKEND.load(self.reg, name, None, None)
        B = g.block_bytes
        key = self.rng.integers(0, 256, g.key_bytes, dtype=np.uint8).tobytes()
        iv = self.rng.integers(0, 256, B, dtype=np.uint8).tobytes()
        rk, ck = g.expand_key(key), c.expand_key(key)
        n = self.args.ctr_mib * MIB
        rows = []
        for label, devs in self.sets:
            gs = g.gpus(devs)
            first = gs.parts(n)
            with gs.alloc(first) as dout:
                gs.time(rk, iv, None, dout, n, 1)  # warm-up: module load on every GPU, first touch
                per = [gs.time(rk, iv, None, dout, n, self.args.reps) / self.args.reps for _ in range(3)]
                ok = True
                for off, ln in self.windows(first):
                    d = max(i for i in range(len(devs)) if first[i] <= off)
                    got = np.empty(ln, np.uint8)
                    g.check(g.fn("mg_copy")(devs[d], got.ctypes.data, dout.ptrs[d] + off - first[d], ln, 0), "copy")
                    want = c.run_mode(ck, "ctr", "encrypt", bytes(ln), modes.ctr_next_iv(iv, off // B))
                    ok &= got.tobytes() == want
            sec = statistics.median(per)
            row = {
                "cipher": name,
                "set": label,
                "devices": devs,
                "bytes": n,
                "schedule": g.schedule_name,
                "seconds": sec,
                "spread": (max(per) - min(per)) / sec,
                "gbps": n * 8 / sec / 1e9,
                "verified": ok,
            }
            rows.append(row)
            print(
                f"ctr {name:8s} {label:7s} {row['gbps']:9.1f} Gbps ({sec * 1e3:.2f} ms per {n >> 20} MiB, "
                f"spread {row['spread'] * 100:.1f}%) {'ok' if ok else 'MISMATCH'}",
                flush=True,
            )
        for r in rows:
            r["speedup"] = r["gbps"] / rows[0]["gbps"]
        self.res["ctr"] += rows
        self.save()

    # ---------------------------------------------------------------------------- CTR_DRBG
    def drbg(self, name: str = "lea128"):
        db = drbg_bench()
        c = C_BACKEND.load(self.reg, name, None, None)
        g = CUDA_BACKEND.load(self.reg, name, None, None)
        loop = db.loop_lib()
        for n in [s * MIB for s in self.args.drbg_mib]:
            nreq = -(-n // REQ)
            lens = np.full(nreq, REQ, np.uint64)
            lens[-1] = n - (nreq - 1) * REQ
            cpu_out = np.zeros(n, np.uint8)
            cpu_t = []
            for _ in range(3 if n <= 128 * MIB else 1):
                d = db.fresh(c, b"s")
                t0 = time.perf_counter()
                rc = loop(db.fnptr(d._fn["generate"]), ctypes.addressof(d._state), cpu_out.ctypes.data, n, REQ)
                cpu_t.append(time.perf_counter() - t0)
                assert rc == 0, rc
            want = hashlib.sha256(memoryview(cpu_out)).hexdigest()
            cpu_mbps = n / statistics.median(cpu_t) / 1e6
            planner = Planner(db, c, nreq)
            keys, vs = planner.keys, planner.vs
            host = g.pinned_array(n)
            for label, devs in self.sets:
                gs = g.gpus(devs)
                planner.reset()
                planner.plan()
                first = gs.parts_multi(lens)
                ends = np.concatenate([[0], np.cumsum(lens.astype(np.int64))])
                with gs.alloc([int(ends[r]) for r in first]) as dout:
                    gs.ctr_multi_dev(keys, vs, lens, dout)  # warm-up
                    t_bulk = median_time(lambda: gs.ctr_multi_dev(keys, vs, lens, dout), 5)
                    ok_dev = hashlib.sha256(memoryview(dout.download())).hexdigest() == want

                    def with_plan():
                        planner.reset()
                        planner.plan()
                        gs.ctr_multi_dev(keys, vs, lens, dout)

                    t_dev = median_time(with_plan, 5)

                def to_host():
                    planner.reset()
                    planner.plan()
                    gs.ctr_multi(keys, vs, lens, out=host, memory="pinned")

                def to_host_pipelined(piece: int = 256):  # 16 MiB pieces: plan the next while the GPUs run
                    planner.reset()
                    for a in range(0, nreq, piece):
                        k = min(piece, nreq - a)
                        planner.plan(a, k)
                        o = int(ends[a])
                        gs.ctr_multi(
                            keys[a * c.key_bytes :],
                            vs[a * c.block_bytes :],
                            lens[a : a + k],
                            out=host[o : int(ends[a + k])],
                            memory="pinned",
                            wait=False,
                        )
                    gs.sync()

                rows = []
                for kind, f in (("host", to_host), ("host, pipelined", to_host_pipelined)):
                    host[:] = 0
                    f()
                    ok = hashlib.sha256(memoryview(host)).hexdigest() == want
                    rows.append((kind, median_time(f, 5), ok))
                row = {
                    "cipher": name,
                    "set": label,
                    "devices": devs,
                    "bytes": n,
                    "requests": nreq,
                    "sha256": want,
                    "cpu_mbps": cpu_mbps,
                    "bulk_s": t_bulk,
                    "dev_s": t_dev,
                    "verified_dev": ok_dev,
                    "host": [{"kind": k, "seconds": t, "verified": ok} for k, t, ok in rows],
                }
                self.res["drbg"].append(row)
                best = min(t for _, t, _ in rows)
                print(
                    f"drbg {name} {n >> 20:5d} MiB {label:7s} CPU {cpu_mbps:7.0f} MB/s | from plan "
                    f"{n / t_bulk / 1e6:8.0f} | +plan {n / t_dev / 1e6:8.0f} | to host {n / best / 1e6:8.0f} MB/s "
                    f"(x{n / best / 1e6 / cpu_mbps:.1f}) "
                    f"| {'ok' if ok_dev and all(ok for *_, ok in rows) else 'MISMATCH'}",
                    flush=True,
                )
            self.save()

    # ---------------------------------------------------------------------------- host -> host CTR
    def host(self, name: str = "lea128"):
        g = CUDA_BACKEND.load(self.reg, name, None, None)
        c = C_BACKEND.load(self.reg, name, None, None)
        n = self.args.host_mib * MIB
        key = self.rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
        iv = self.rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
        rk, ck = g.expand_key(key), c.expand_key(key)
        pin_in, pin_out = g.pinned_array(n), g.pinned_array(n)
        pin_in[:] = self.rng.integers(0, 256, n, dtype=np.uint8)
        pg_in, pg_out = pin_in.copy(), np.zeros(n, np.uint8)  # pageable, every page touched
        for label, devs in self.sets:
            gs = g.gpus(devs)
            ref = None
            cases = [
                ("pinned", pin_in, pin_out, 5),
                ("register", pg_in, pg_out, 3),
                ("stage", pg_in, pg_out, 3),
                ("pageable", pg_in, pg_out, 2),
                ("keystream, pinned", None, pin_out, 5),
            ]
            for mode, src, dst, reps in cases:
                mem = mode.split(", ")[-1]
                dst[:] = 0
                gs.ctr(rk, iv, src, n, out=dst, memory=mem)  # warm-up, and the output checked
                if ref is None:  # the first (pinned) output: windows against the C library
                    ok = all(
                        dst[o : o + 65536].tobytes()
                        == c.run_mode(
                            ck, "ctr", "encrypt", pin_in[o : o + 65536].tobytes(), modes.ctr_next_iv(iv, o // 16)
                        )
                        for o in (0, n // 2, n - 65536)
                    )
                    ref = dst.copy()
                elif src is None:
                    ok = np.array_equal(dst ^ pin_in, ref)
                else:
                    ok = np.array_equal(dst, ref)
                sec = median_time(lambda: gs.ctr(rk, iv, src, n, out=dst, memory=mem), reps)
                row = {
                    "cipher": name,
                    "set": label,
                    "devices": devs,
                    "mode": mode,
                    "bytes": n,
                    "seconds": sec,
                    "gbs": n / sec / 1e9,
                    "verified": bool(ok),
                }
                self.res["host"].append(row)
                print(f"host {label:7s} {mode:18s} {row['gbs']:7.1f} GB/s {'ok' if ok else 'MISMATCH'}", flush=True)
        self.save()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp/out")))
    ap.add_argument("--ctr-mib", type=int, default=8192)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--bw-mib", type=int, default=512)
    ap.add_argument("--host-mib", type=int, default=1024)
    ap.add_argument("--drbg-mib", type=lambda s: [int(x) for x in s.split(",")], default=[128, 1024])
    ap.add_argument("--ciphers", default="lea128,aes128,aria128")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    r = Run(args)
    r.res["nvidia_smi"] = nvidia_smi()
    r.res["cpu"] = drbg_bench().cpu_name()
    stages = [("bandwidth", r.bandwidth)] + [(f"ctr {n}", lambda n=n: r.ctr(n)) for n in args.ciphers.split(",")]
    for stage, f in stages + [("host", r.host), ("drbg", r.drbg)]:
        print(f"== {stage} ({time.time() - t0:.0f} s)", flush=True)
        f()
        r.save()
    r.res["seconds"] = time.time() - t0
    r.save()
    print("\n".join(multi_report.tables(r.res)), flush=True)
    bad = multi_report.unverified(r.res)
    print("verified: all" if not bad else f"MISMATCH: {bad}", flush=True)
    sys.stdout.flush()
    os._exit(1 if bad else 0)  # skip teardown of several statically linked CUDA runtimes


if __name__ == "__main__":
    main()
