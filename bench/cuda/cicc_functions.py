"""Where cicc spends its time in one .cu, per device function: `nvcc -ptx -fdevice-time-trace` (the NVVM
optimizer's per-function spans, summed), the share of each function of the whole.

    python3 bench/cuda/cicc_functions.py out/aes128_cuda_ctr_bs_rk-const_t128.cu -DCS_FLAVOURS=1
    -> {"cu": "aes128_...cu", "cpu_s": 21.5, "share": {"gcm_batch": 0.21, "derive": 0.17, "gcm_long": 0.13, ...}}

The spans are wall-clock and cicc runs some of them on threads, so only the shares mean something (a loaded
machine stretches them all); cpu_s is the user+sys of the whole nvcc -ptx.  A kernel's name is given without the
library prefix (P_ctr_ptx -> ctr_ptx; template arguments folded in).
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

_SHORT = re.compile(r"cs_\w+?_t(?:64|128|256|512)_(\w+?)(?:E|I)")


def shares(trace: dict) -> dict[str, float]:
    """Each function's share of the summed OptFunction spans (largest first)."""
    per: Counter[str] = Counter()
    for ev in trace.get("traceEvents", []):
        if ev.get("ph") == "X" and ev.get("name") == "OptFunction":
            detail = ev.get("args", {}).get("detail", "")
            m = _SHORT.search(detail)
            per[m.group(1) if m else detail[-48:]] += ev.get("dur", 0)
    total = sum(per.values()) or 1
    return {k: round(v / total, 3) for k, v in per.most_common() if v / total >= 0.005}


def main(argv: list[str]) -> int:
    cu = Path(argv[0]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        stem = Path(tmp) / "trace"
        cmd = ["nvcc", "-ptx", "-arch=sm_90", "-O3", "-std=c++17", "-w", *argv[1:], f"-fdevice-time-trace={stem}"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([*cmd, "-I", str(cu.parent), "-o", str(Path(tmp) / "out.ptx"), str(cu)], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        trace = json.loads(Path(f"{stem}.json").read_text())
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    print(json.dumps({"cu": cu.name, "cpu_s": round(cpu, 1), "share": shares(trace)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
