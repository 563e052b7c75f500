"""CTR_DRBG bulk output, MB/s: CPU (the generated C DRBG) vs GPU (C P_drbg_plan + one multi-key launch).

    python3 bench/drbg/bench.py --out DIR [--sizes-mib 1,16,128,1024] [--ciphers aes128,...]

CPU: P_drbg_generate in a C loop of 2^19-bit (65536-byte) requests, one thread, over the generated C
library (`cipherspec build --target c` sources, default schedule, cc -O3 -march=native), no additional input.
GPU: the same DRBG state; the host chain P_drbg_plan (each request's Key, V: 2-3 block encryptions per
request, one thread) + P_ctr_multi_dev (keys, descriptors and CTA map in one copy, every request's key schedule in one device launch,
then the keystream launch), timed on the wall clock until the kernel is done: "device" = output left in GPU memory;
"+D2H" = also copied into page-locked host memory.  Both start from identical states; every size's GPU
output is checked against the CPU output (SHA-256).  Writes DIR/drbg.json.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cipherspec.registry import Registry  # noqa: E402
from generator.c import BACKEND as C_BACKEND  # noqa: E402
from generator.ptx import BACKEND as CUDA_BACKEND  # noqa: E402
from runtime.cuda_target import FLAVOUR  # noqa: E402
from toolchain.cc import Toolchain, compile_cached  # noqa: E402

REQ = 65536  # 2^19 bits: the SP 800-90A maximum per request
CIPHERS = ["aes128", "lea128", "hight", "cham128_128", "aria128"]


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def loop_lib():
    src = (Path(__file__).with_name("loop.c")).read_text()
    lib = ctypes.CDLL(str(compile_cached({"loop.c": src}, ["loop.c"], "shared", Toolchain.host())))
    f = lib.cs_bench_generate
    f.argtypes, f.restype = [ctypes.c_void_p] * 3 + [ctypes.c_uint64] * 2, ctypes.c_int
    return f


def fresh(c, seed: bytes):
    d = c.make_drbg(use_df=True)
    d.instantiate(
        hashlib.sha256(b"e" + seed).digest()[: c.key_bytes],
        hashlib.sha256(b"n" + seed).digest()[: max(8, c.key_bytes // 2)],  # (SP 800-90A: half the security strength)
        b"cipherspec drbg bench",
    )
    return d


def fnptr(f) -> int:
    return ctypes.cast(f, ctypes.c_void_p).value


def run_cipher(reg, name: str, sizes: list[int], loop) -> dict:
    c = C_BACKEND.load(reg, name, None, None)
    g = CUDA_BACKEND.load(reg, name, None, None)
    fl = FLAVOUR[g.sched.flavour]
    multi, sync, copy = g.fn("ctr_multi_dev_flavour"), g.fn("util_sync"), g.fn("util_copy")
    top = max(sizes)
    cpu_out = np.zeros(top, np.uint8)
    host = g.fn("util_malloc_host")(top)
    dev = g.fn("util_malloc")(top)
    if not host or not dev:
        raise SystemExit(f"{name}: cannot allocate {top} bytes (pinned host / device)")
    host_arr = np.ctypeslib.as_array(ctypes.cast(host, ctypes.POINTER(ctypes.c_uint8)), (top,))
    nreq_max = -(-top // REQ)
    keys = np.zeros(nreq_max * c.key_bytes, np.uint8)
    vs = np.zeros(nreq_max * c.block_bytes, np.uint8)
    rows = []
    # warm-up: context, module load, first-touch of the buffers
    d = fresh(c, b"w")
    d._fn["plan"](d._state, 4, REQ, keys.ctypes.data, vs.ctypes.data)
    lens = np.full(4, REQ, np.uint64)
    g.check(multi(keys.ctypes.data, vs.ctypes.data, lens.ctypes.data, 4, dev, None, fl), "warm-up")
    g.check(sync(), "warm-up")
    for n in sizes:
        nreq = -(-n // REQ)
        lens = np.full(nreq, REQ, np.uint64)
        lens[-1] = n - (nreq - 1) * REQ
        cpu_t = []
        for _ in range(5 if n <= 16 << 20 else 1):
            d = fresh(c, b"s")
            t0 = time.perf_counter()
            rc = loop(fnptr(d._fn["generate"]), ctypes.addressof(d._state), cpu_out.ctypes.data, n, REQ)
            cpu_t.append(time.perf_counter() - t0)
            if rc:
                raise SystemExit(f"{name}: P_drbg_generate returned {rc}")
        want = hashlib.sha256(memoryview(cpu_out[:n])).hexdigest()
        dev_t, d2h_t, plan_t, ok = [], [], [], True
        for rep in range(5 if n <= 128 << 20 else 3):
            d = fresh(c, b"s")
            t0 = time.perf_counter()
            got = d._fn["plan"](
                d._state, nreq, REQ, keys.ctypes.data, vs.ctypes.data
            )  # uniform REQ; last may be shorter
            t1 = time.perf_counter()
            if got != nreq:
                raise SystemExit(f"{name}: P_drbg_plan planned {got} of {nreq} requests")
            g.check(multi(keys.ctypes.data, vs.ctypes.data, lens.ctypes.data, nreq, dev, None, fl), "multi-key CTR")
            g.check(sync(), "multi-key CTR")
            t2 = time.perf_counter()
            g.check(copy(host, dev, n, 0), "D2H")
            t3 = time.perf_counter()
            plan_t.append(t1 - t0)
            dev_t.append(t2 - t0)
            d2h_t.append(t3 - t0)
            if rep == 0:
                ok = hashlib.sha256(memoryview(host_arr[:n])).hexdigest() == want
        cpu_s, dev_s, d2h_s = statistics.median(cpu_t), statistics.median(dev_t), statistics.median(d2h_t)
        row = {
            "cipher": name,
            "bytes": n,
            "requests": nreq,
            "gpu_schedule": g.schedule_name,
            "gpu_flavour": g.sched.flavour,
            "cpu_lib": c.schedule.name,
            "sha256": want,
            "verified": ok,
            "cpu_mbps": n / cpu_s / 1e6,
            "gpu_dev_mbps": n / dev_s / 1e6,
            "gpu_d2h_mbps": n / d2h_s / 1e6,
            "plan_ms": statistics.median(plan_t) * 1e3,
            "gpu_dev_ms": dev_s * 1e3,
            "gpu_d2h_ms": d2h_s * 1e3,
            "cpu_ms": cpu_s * 1e3,
        }
        row["speedup_dev"] = row["gpu_dev_mbps"] / row["cpu_mbps"]
        row["speedup_d2h"] = row["gpu_d2h_mbps"] / row["cpu_mbps"]
        print(
            f"{name:12s} {n >> 20:5d} MiB  CPU {row['cpu_mbps']:9.1f} MB/s  GPU {row['gpu_dev_mbps']:10.1f} "
            f"(+D2H {row['gpu_d2h_mbps']:9.1f}) MB/s  x{row['speedup_dev']:6.1f} (x{row['speedup_d2h']:5.1f})  "
            f"plan {row['plan_ms']:.2f} ms  {'ok' if ok else 'MISMATCH'}",
            flush=True,
        )
        rows.append(row)
    g.fn("util_free")(dev)
    g.fn("util_free_host")(host)
    return {"rows": rows, "device": g.device}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sizes-mib", default="1,16,128,1024")
    ap.add_argument("--ciphers", default=",".join(CIPHERS))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    reg = Registry()
    sizes = [int(s) << 20 for s in args.sizes_mib.split(",")]
    loop = loop_lib()
    res = {
        "cpu": cpu_name(),
        "cc": subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout.split("\n")[0],
        "request_bytes": REQ,
        "rows": [],
    }
    for name in args.ciphers.split(","):
        r = run_cipher(reg, name, sizes, loop)
        res["gpu"] = r["device"]
        res["rows"] += r["rows"]
        (args.out / "drbg.json").write_text(json.dumps(res, indent=1))
    bad = [r for r in res["rows"] if not r["verified"]]
    print("verified: all" if not bad else f"MISMATCH: {[(r['cipher'], r['bytes']) for r in bad]}", flush=True)
    sys.stdout.flush()
    os._exit(1 if bad else 0)  # skip teardown of several statically linked CUDA runtimes


if __name__ == "__main__":
    main()
