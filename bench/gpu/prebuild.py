"""Builds every schedule the GPU tests and the sanitizer run use, in parallel (before pytest starts)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "differential"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import build_all  # noqa: E402
from sanitize import PLACEMENTS  # noqa: E402
from test_cuda_gpu import SCHEDULES  # noqa: E402

if __name__ == "__main__":
    jobs = list(dict.fromkeys(SCHEDULES + PLACEMENTS))
    res = build_all(jobs, os.cpu_count() or 4)
    bad = {k: v for k, v in res.items() if v != "ok"}
    print("prebuild:", len(jobs), "schedules;", "failures:", bad or "none")
    sys.exit(1 if bad else 0)
