"""Two builds' kernels side by side by what a trip of their grid-stride loop issues, not only by total size:
per common kernel, SASS instructions in all, instructions of one outer-loop trip (a nested loop -- a bitsliced
core's round loop -- counted ``--trips`` times) and the modelled cycles of that trip (bench/gpu/sass.py).

    python3 bench/cuda/sass_trips.py before.cubin after.cubin --trips 9
    -> kernel            total before  after   trip before  after   cycles before  after
       X_ctr_ptxILb0             5096   5104         17465  17465         17465  17465
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "gpu"), str(Path(__file__).resolve().parent)]
import sass  # noqa: E402
from sass_same import _ANON  # noqa: E402


def _funcs(path: str) -> dict[str, list[tuple[int, str, str]]]:
    """Kernel name (no per-file hash, no mangling prefix) -> its (address, opcode, operands)."""
    text = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True, check=True).stdout
    return {re.sub(r"^_ZN\d*anon\d*", "", _ANON.sub("anon", k))[:60]: v for k, v in sass.functions(text).items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--trips", type=int, default=1, help="iterations of a nested loop (the round loop)")
    a = ap.parse_args()
    b, c = _funcs(a.before), _funcs(a.after)
    print(f"{'kernel':<60} {'total':>7} {'after':>7} {'trip':>7} {'after':>7} {'cycles':>7} {'after':>7}")
    worse = 0
    for k in sorted(b.keys() & c.keys()):
        mb, mc = sass.loop_mix(b[k], a.trips), sass.loop_mix(c[k], a.trips)
        tb, tc = sum(mb.values()), sum(mc.values())
        cb, cc = sass.cycles_per_trip(mb)[0], sass.cycles_per_trip(mc)[0]
        worse += tc > tb or cc > cb
        flag = "" if (len(b[k]), tb) == (len(c[k]), tc) else "  <-" if tc > tb or cc > cb else "  *"
        print(f"{k:<60} {len(b[k]):>7} {len(c[k]):>7} {tb:>7} {tc:>7} {cb:>7.0f} {cc:>7.0f}{flag}")
    print(f"{worse} kernel(s) issue more a trip after")


if __name__ == "__main__":
    main()
