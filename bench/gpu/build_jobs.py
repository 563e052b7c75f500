"""Builds CUDA libraries into the content-keyed cache, in parallel (the device scripts' build step).

python3 bench/gpu/build_jobs.py aes128:bs_rk-const_t128,aria128:bs_rk-const_t128 [WORKERS]   -> "failures: none"
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import build_all  # noqa: E402


def main() -> int:
    jobs = [tuple(s.split(":", 1)) for s in sys.argv[1].split(",") if s]
    res = build_all(jobs, int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    bad = {k: v for k, v in res.items() if v != "ok"}
    print("failures:", bad or "none")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
