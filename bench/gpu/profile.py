"""One Nsight Compute profile of each tuned winner's CTR keystream kernel (issue-slot and pipe utilisation).

python3 bench/gpu/profile.py OUT/tuned.json OUT        -> OUT/ncu-<cipher>.txt and OUT/ncu.json (the summary)
python3 bench/gpu/profile.py --launch CIPHER SCHEDULE  (what ncu runs: one 64 MiB keystream launch)
python3 bench/gpu/profile.py --summary DIR             ncu-*.txt in DIR -> ncu.json on stdout
python3 bench/gpu/profile.py --defaults NAMES OUT      the default schedule of each (comma-separated; --spec files'
                                                       ciphers through CIPHERSPEC_BENCH_SPECS) -> OUT/ncu-<name>.txt
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SECTIONS = ["SpeedOfLight", "ComputeWorkloadAnalysis", "InstructionStats", "Occupancy", "LaunchStats"]
METRICS = [
    "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
    "sm__issue_active.avg.pct_of_peak_sustained_active",
]


def launch(name: str, schedule: str) -> None:
    import numpy as np

    from bench import registry  # bench/gpu/bench.py: the shipped ciphers and CIPHERSPEC_BENCH_SPECS's
    from generator.ptx import BACKEND
    from runtime.cuda_target import _ptr

    c = BACKEND.load(registry(), name, None, None if schedule == "default" else schedule)
    rk = c.expand_key(bytes(range(c.key_bytes)))
    iv = np.frombuffer(bytes(c.block_bytes), np.uint8).copy()
    with c.device_buffer(64 << 20) as out:
        c.check(
            c.fn("ctr_dev_flavour")(
                rk.ctypes.data, _ptr(iv), None, out.ptr, 64 << 20, None, 0 if c.sched.flavour == "ptx" else 1
            ),
            "CTR",
        )
        c.check(c.fn("util_sync")(), "sync")


# the figures the report keeps from ncu's text output: (key, the label its line starts with)
SUMMARY = [
    ("alu_pct", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active"),
    ("fma_pct", "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"),
    ("lsu_pct", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"),
    ("issue_active_pct", "sm__issue_active.avg.pct_of_peak_sustained_active"),
    ("sm_throughput_pct", "Compute (SM) Throughput"),
    ("ipc", "Executed Ipc Active"),
    ("registers", "Registers Per Thread"),
    ("achieved_occupancy_pct", "Achieved Occupancy"),
    ("theoretical_occupancy_pct", "Theoretical Occupancy"),
]


def summary(text: str) -> dict:
    """One profile's figures (the last number on each labelled line) and the kernel's name.

    "    Achieved Occupancy      %      37.57"  ->  {"achieved_occupancy_pct": 37.57, ...}
    """
    out: dict = {}
    for line in text.splitlines():
        words = line.split()
        if "Profiling" in line and '"' in line:
            out["kernel"] = line.split('"')[1]
        for key, label in SUMMARY:
            if line.strip().startswith(label + " ") and key not in out:
                out[key] = float(words[-1].replace(",", ""))
    return out


def main() -> int:
    if sys.argv[1] == "--launch":
        launch(sys.argv[2], sys.argv[3])
        return 0
    if sys.argv[1] == "--summary":
        found = {
            f.stem.removeprefix("ncu-"): summary(f.read_text()) for f in sorted(Path(sys.argv[2]).glob("ncu-*.txt"))
        }
        print(json.dumps(found, indent=1, sort_keys=True))
        return 0
    if sys.argv[1] == "--defaults":
        picks = {n: {"flavour": "(ptx|c)", "schedule": "default"} for n in sys.argv[2].split(",")}
        out = Path(sys.argv[3])
    else:
        picks = json.loads(Path(sys.argv[1]).read_text())["defaults"]
        out = Path(sys.argv[2])
    for name, pick in sorted(picks.items()):
        cmd = ["ncu", "--kernel-name", f"regex:_ctr_{pick['flavour']}$", "--launch-count", "1"]
        cmd += [a for s in SECTIONS for a in ("--section", s)] + ["--metrics", ",".join(METRICS)]
        cmd += [sys.executable, __file__, "--launch", name, pick["schedule"]]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
        (out / f"ncu-{name}.txt").write_text(res.stdout + res.stderr)
        keep = [
            ln
            for ln in res.stdout.splitlines()
            if any(k in ln for k in ("pipe_", "issue_active", "Throughput", "Registers", "Achieved Occupancy"))
        ]
        print(f"== ncu {name} {pick['schedule']}\n" + "\n".join(keep[:14]), flush=True)
    found = {f.stem.removeprefix("ncu-"): summary(f.read_text()) for f in sorted(out.glob("ncu-*.txt"))}
    (out / "ncu.json").write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
