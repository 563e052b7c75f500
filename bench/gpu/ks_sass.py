"""The SASS of a CUDA library's multi-key key-schedule kernel (P_key_schedule_multi) and the device functions it
calls, without a GPU: instructions, local-memory traffic (STL/LDL), global/shared stores and loads, registers.

    python3 bench/gpu/ks_sass.py /tmp/lea/liblea128_cuda_...so ...      (a markdown row per library)

    | library | instructions | STL / LDL | STG / LDG | STS / LDS | ST (generic) | registers | stack |

The counts are static (instructions in the code, not executed): a loop counts once.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sass  # noqa: E402

_RES = re.compile(r"REG:(\d+) STACK:(\d+)")
_NEEDLES = ("key_schedule_multi", "_derive", "_key_schedule", "_expand_key")


def key_schedule_functions(so: str) -> dict[str, tuple[Counter, int, int]]:
    """Function name -> (opcode counts, registers, stack bytes) of the key-schedule kernel and its callees."""
    text = subprocess.run(["cuobjdump", "-sass", so], capture_output=True, text=True, check=True).stdout
    res = subprocess.run(["cuobjdump", "-res-usage", so], capture_output=True, text=True, check=True).stdout
    usage: dict[str, tuple[int, int]] = {}
    lines = res.splitlines()
    for i, line in enumerate(lines[:-1]):
        m = _RES.search(lines[i + 1])
        if line.strip().startswith("Function") and m:
            usage[line.split()[-1].rstrip(":")] = (int(m.group(1)), int(m.group(2)))
    out = {}
    for name, ins in sass.functions(text).items():
        if any(n in name for n in _NEEDLES) and "ctr_multi" not in name:
            reg, stack = usage.get(name, (0, 0))
            out[name] = (Counter(op for _, op, _ in ins), reg, stack)
    return out


def row(so: str) -> str:
    funcs = key_schedule_functions(so)
    c: Counter = Counter()
    for mix, _, _ in funcs.values():
        c.update(mix)
    reg = max((r for _, r, _ in funcs.values()), default=0)
    stack = max((s for _, _, s in funcs.values()), default=0)
    return (
        f"| {Path(so).name} | {sum(c.values())} ({len(funcs)} functions) | {c['STL']} / {c['LDL']} | "
        f"{c['STG']} / {c['LDG']} | {c['STS']} / {c['LDS']} | {c['ST']} | {reg} | {stack} |"
    )


def main(argv: list[str]) -> int:
    print("| library | instructions | STL / LDL | STG / LDG | STS / LDS | ST (generic) | registers | stack |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for so in argv:
        print(row(so))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
