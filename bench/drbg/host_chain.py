"""CTR_DRBG host chain, ms per GiB of output: the C library's P_drbg_plan (each 2^19-bit request's update:
2-3 block encryptions and a key schedule) on one CPU thread, and P_set_key alone, from a fresh state.

    python3 bench/drbg/host_chain.py [--ciphers aes128,aria128,lea128] [--reps 5]

Needs no GPU: this is the host side of the GPU bulk path (bench/drbg/bench.py, bench/gpu/multi.py).
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cipherspec.registry import Registry  # noqa: E402
from generator.c import BACKEND as C_BACKEND  # noqa: E402

REQ = 65536
PER_GIB = (1 << 30) // REQ  # 16384 requests


def _bench_mod():
    spec = importlib.util.spec_from_file_location("drbg_bench", Path(__file__).with_name("bench.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(name: str, reps: int) -> dict:
    db = _bench_mod()
    c = C_BACKEND.load(Registry(), name, None, None)
    keys = np.zeros(PER_GIB * c.key_bytes, np.uint8)
    vs = np.zeros(PER_GIB * c.block_bytes, np.uint8)
    plan_t = []
    for _ in range(reps):
        d = db.fresh(c, b"s")
        t0 = time.perf_counter()
        got = d._fn["plan"](d._state, PER_GIB, REQ, keys.ctypes.data, vs.ctypes.data)
        plan_t.append(time.perf_counter() - t0)
        assert got == PER_GIB, got
    set_key = getattr(c.lib, f"{name}_set_key")
    set_key.argtypes, set_key.restype = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t], ctypes.c_int
    ks = ctypes.create_string_buffer(1 << 16)
    key = keys.ctypes.data
    n = 4096
    t0 = time.perf_counter()
    for i in range(n):
        set_key(ks, key + (i % PER_GIB) * c.key_bytes, c.key_bytes)
    sk = (time.perf_counter() - t0) / n
    return {"cipher": name, "plan_ms_per_gib": 1e3 * statistics.median(plan_t), "set_key_us": 1e6 * sk}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ciphers", default="aes128,aria128,lea128")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    for name in a.ciphers.split(","):
        r = measure(name, a.reps)
        print(
            f"{name:12s} P_drbg_plan {r['plan_ms_per_gib']:7.2f} ms/GiB ({PER_GIB} requests)  "
            f"set_key via ctypes {r['set_key_us']:6.2f} us",
            flush=True,
        )


if __name__ == "__main__":
    main()
