"""One markdown table over the arms of a same-run A/B (bench/gpu/affinv.sh): per arm and schedule, bench.py's
keystream and XOR Gbps (inline-PTX flavour), SASS instructions a block, the SASS roof and the share of it reached.

    python3 bench/gpu/ab_summary.py OUT now v1   (reads OUT/now/results.json, OUT/v1/results.json)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HEAD = ("arm", "schedule", "ks ptx Gbps", "xor ptx Gbps", "SASS instr/block", "roof Gbps (pipe)", "%roof", "verified")


def rows(out: Path, arm: str) -> list[tuple[str, ...]]:
    f = out / arm / "results.json"
    if not f.is_file():
        return [(arm, "(no results.json)") + ("",) * (len(HEAD) - 2)]
    got = []
    for r in json.loads(f.read_text())["rows"]:
        ks = r["ks_ptx"]
        per = sum(ks["mix"].values()) / (32 * r["ilp"]) if ks["mix"] else float("nan")
        got.append(
            (
                arm,
                f"`{r['schedule']}`",
                f"{ks['gbps']:,.0f}",
                f"{r['xor_ptx']['gbps']:,.0f}" if "xor_ptx" in r else "",
                f"{per:.1f}",
                f"{ks['roof_gbps']:,.0f} ({ks['pipe']})",
                f"{ks['pct_roof'] or 0:.1f}%",
                str(ks["verified"]),
            )
        )
    return got


def main() -> int:
    out, arms = Path(sys.argv[1]), sys.argv[2:]
    print("| " + " | ".join(HEAD) + " |")
    print("|---|---|" + "---:|" * (len(HEAD) - 3) + "---|")
    for arm in arms:
        for r in rows(out, arm):
            print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
