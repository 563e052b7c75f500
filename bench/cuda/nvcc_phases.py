"""CPU seconds of each step of one `nvcc -shared` (what toolchain/nvcc.build_library runs): replays the steps
`nvcc -dryrun` lists (gcc -E, cudafe++, cicc, ptxas, fatbinary, the host gcc -c, nvlink, the link) one by
one, each under /usr/bin/time.

    python3 bench/cuda/nvcc_phases.py out/present80_cuda_ctr_bs_rk-const_t128.cu [-DCS_FLAVOURS=1 ...] [--host=-O1]
    -> {"cu": "present80_...cu", "cpu": 17.65, "phases": {"cicc": 6.01, "ptxas": 2.12, "gcc -c": 8.1, ...}}
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

_ENV = ("CICC_PATH", "NVVMIR_LIBRARY_DIR", "LD_LIBRARY_PATH", "PATH", "TOP", "_HERE_", "_THERE_")


def phases(nvcc_cmd: list[str], cwd: str) -> list[tuple[str, float]]:
    """(step, CPU seconds) for each step nvcc would run."""
    dry = subprocess.run([*nvcc_cmd, "-dryrun"], capture_output=True, text=True, cwd=cwd)
    lines = [ln[3:] for ln in dry.stderr.splitlines() if ln.startswith("#$ ")]
    log = Path(tempfile.mkdtemp()) / "times"
    script = ["set -e"]
    for ln in lines:
        m = re.match(r"^([A-Za-z_]+)=", ln)
        if m:
            if m.group(1) in _ENV:
                script.append("export " + ln)
            continue
        tool = ln.split()[0].strip('"').split("/")[-1]
        if tool == "rm":
            script.append(ln.replace("rm ", "rm -f ", 1))
            continue
        if tool in ("gcc", "g++"):
            tool += " -E" if " -E " in ln else " -c" if " -c " in ln else " link"
        script.append(f"/usr/bin/time -f '{tool}\t%U\t%S' -a -o {log} {ln}")
    sh = log.with_name("steps.sh")
    sh.write_text("\n".join(script) + "\n")
    res = subprocess.run(["bash", str(sh)], capture_output=True, text=True, cwd=cwd)
    if res.returncode:
        raise SystemExit(res.stderr[-3000:])
    out = []
    for ln in log.read_text().splitlines():
        if "\t" in ln:
            tool, user, system = ln.split("\t")
            out.append((tool, float(user) + float(system)))
    return out


def main(argv: list[str]) -> int:
    cu = Path(argv[0]).resolve()
    so = Path(tempfile.mkdtemp()) / "lib.so"
    # the host compiler's level: build_library's (-O3), or another (--host=-O1: branch host-o1's)
    host = next((a.split("=", 1)[1] for a in argv[1:] if a.startswith("--host=")), "-O3")
    cmd = ["nvcc", "-shared", "-Xcompiler", "-fPIC", host, "-std=c++17"]
    rest = [a for a in argv[1:] if not a.startswith("--host=")]
    cmd += ["-gencode=arch=compute_90,code=[sm_90,compute_90]", *rest, "-I", str(cu.parent), "-o", str(so), str(cu)]
    agg: dict[str, float] = {}
    for tool, cpu in phases(cmd, str(cu.parent)):
        agg[tool] = agg.get(tool, 0.0) + cpu
    print(
        json.dumps(
            {"cu": cu.name, "cpu": round(sum(agg.values()), 2), "phases": {k: round(v, 2) for k, v in agg.items()}}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
