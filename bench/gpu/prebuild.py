"""Builds every schedule the GPU tests and the sanitizer run use, in parallel (before pytest starts).

python3 bench/gpu/prebuild.py             every schedule of test_cuda_gpu.py and sanitize.py
python3 bench/gpu/prebuild.py --ct        the constant-time AES/ARIA schedules (bench/gpu/ct_bench.sh), likewise
python3 bench/gpu/prebuild.py --layouts   the lane layouts' schedules only (tests, sanitizer, benchmark):
    run it on the CPU machine with CIPHERSPEC_CACHE=$PWD/.cs-cache and carry .cs-cache to the device, where
    `bash bench/gpu/run.sh layouts` then finds every library built (nvcc is slow on the bitsliced cores)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "differential"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "support"))  # (test_cuda_gpu's cuda_checks)
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sanitize import LANES as SANITIZE_LANES  # noqa: E402
from sanitize import PLACEMENTS  # noqa: E402
from test_cuda_gpu import LANES, SCHEDULES  # noqa: E402

from bench import CIPHERS, build_all, lane_placements  # noqa: E402


def layout_jobs() -> list[tuple[str, str]]:
    from cipherspec.registry import Registry

    reg = Registry()
    bench = [(n, p) for n in CIPHERS for p in lane_placements(reg.module(n))]  # stage 1 (run.sh layouts: no stage 2)
    kat = [("hight", "swar"), ("pipo64_128", "bs_t64"), ("pipo64_256", "bs_t64")]  # run.sh layouts' KAT files
    kat += [(n, "tt") for n in ("aes128", "aes192", "aes256")]
    return LANES + SANITIZE_LANES + kat + bench


CT_BENCH = ["aes128:bs_t128", "aria128:bs_t128", "aes128:bs_t64", "aria128:bs_t64", "aes128:bs_t256", "aria128:bs_t256"]
CT_TABLES = ["aes128:rk-const_t512_tab-shared32_tt", "aria128:rk-const_t512_tab-shared16"]  # the former defaults


def ct_jobs() -> list[tuple[str, str]]:
    """bench/gpu/ct_bench.sh: the constant-time defaults (every AES and ARIA), the GPU tests' and the
    sanitizer's lane schedules, and the benchmark's rows."""
    defaults = [(n, None) for n in ("aes128", "aes192", "aes256", "aria128", "aria192", "aria256")]
    lanes = [j for j in LANES + SANITIZE_LANES if j[0] in ("aes128", "aria128")]
    return defaults + lanes + [tuple(s.split(":", 1)) for s in CT_BENCH + CT_TABLES]  # type: ignore[misc]


if __name__ == "__main__":
    mode = sys.argv[1:]
    jobs = list(
        dict.fromkeys(
            layout_jobs() if mode == ["--layouts"] else ct_jobs() if mode == ["--ct"] else SCHEDULES + PLACEMENTS
        )
    )
    res = build_all(jobs, os.cpu_count() or 4)
    bad = {k: v for k, v in res.items() if v != "ok"}
    print("prebuild:", len(jobs), "schedules;", "failures:", bad or "none")
    sys.exit(1 if bad else 0)
