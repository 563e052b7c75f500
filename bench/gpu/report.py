"""results.json (bench.py, from the device) -> bench/results/gpu-<device>.md + .png.

    python3 bench/gpu/report.py bench/results/gpu-h200.json bench/results/gpu-h200
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import SEEDS, TARGETS_TBPS  # noqa: E402


def main(src: str, stem: str) -> None:
    data = json.loads(Path(src).read_text())
    dev, rows = data["device"], data["rows"]
    ghz, sms = dev["clock_khz"] / 1e6, dev["sms"]
    norm = sms * ghz
    best = {}
    for r in rows:
        if "nohoist" in r["params"] or not r["ks_ptx"]["verified"]:
            continue
        if r["cipher"] not in best or r["ks_ptx"]["gbps"] > best[r["cipher"]]["ks_ptx"]["gbps"]:
            best[r["cipher"]] = r
    out = [f"# CUDA backend on {dev['name']} ({sms} SMs, {ghz:.2f} GHz max SM clock, cc {dev['cc'] / 10:.1f})", "",
           f"Measured on the lent `nvidia-h200` device ({dev.get('nvidia_smi', '')}); CUDA 13.0, driver 580.159.04.",
           f"Each kernel: CTR over {data['size_bytes'] >> 20} MiB in device memory, keystream-only (`ks`) and "
           "XOR-with-input (`xor`), CUDA events around 4 back-to-back launches, median of 4 such batches after "
           "a warm-up batch; output checked against the interpreter on 5 windows (first/last 64 KiB, 3 random). "
           "`ptx` = the generated inline-PTX kernel, `C` = the plain-CUDA-C flavour of the same generated kernel "
           "(same IR, same schedule, no asm), built into the same library and timed in the same process. "
           "Roof = the ALU-pipe roof from the kernel's own SASS loop (bench/gpu/sass.py: alu and fma pipes 0.5 "
           "warp-instr/clk/SMSP, issue 1) x SMs x clock; `%roof` = ks ptx / roof.  No figure exceeded its roof.",
           "", "## Best schedule per cipher (autotuner pick, recorded in generator/ptx/tuned.json)", "",
           "| cipher | schedule | ks ptx Gbps | xor ptx Gbps | ks C Gbps | roof Gbps (pipe) | %roof | target | "
           "Gbps per SM·GHz |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in best.items():
        t = TARGETS_TBPS.get(name)
        ks = r["ks_ptx"]["gbps"]
        met = "" if t is None else (f"{t:.2f} Tbps {'met' if ks >= t * 1000 else 'NOT met'}")
        out.append(f"| {name} | `{r['schedule']}` | {ks:,.0f} | {r['xor_ptx']['gbps']:,.0f} | {r['ks_c']['gbps']:,.0f} | "
                   f"{r['ks_ptx']['roof_gbps']:,.0f} ({r['ks_ptx']['pipe']}) | {r['ks_ptx']['pct_roof']:.1f}% | {met} | "
                   f"{ks / norm:.1f} |")
    out += ["", "## Beside the seeds (Gbps per SM·GHz: published Gbps / (SMs x boost GHz))", "",
            "| cipher | seed figure | seed GPU | seed per SM·GHz | ours per SM·GHz (ks, best) |", "|---|---:|---|---:|---:|"]
    for name, label, gbps, gpu, s, g in SEEDS:
        ours = best.get(name)
        out.append(f"| {label} | {gbps} Gbps | {gpu} ({s} SMs, {g} GHz) | {gbps / (s * g):.1f} | "
                   f"{ours['ks_ptx']['gbps'] / norm:.1f} |" if ours else f"| {label} | {gbps} | {gpu} | - | - |")
    out += ["", "## Every kernel timed", "",
            "| schedule | ks ptx | ks C | xor ptx | xor C | roof (pipe) | %roof | hoisted ops | verified |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        ok = all(r[k]["verified"] for k in ("ks_ptx", "ks_c", "xor_ptx", "xor_c"))
        over = any(r[k]["over_roof"] for k in ("ks_ptx", "xor_ptx"))
        out.append(f"| `{r['schedule']}` | {r['ks_ptx']['gbps']:,.0f} | {r['ks_c']['gbps']:,.0f} | "
                   f"{r['xor_ptx']['gbps']:,.0f} | {r['xor_c']['gbps']:,.0f} | {r['ks_ptx']['roof_gbps']:,.0f} "
                   f"({r['ks_ptx']['pipe']}) | {r['ks_ptx']['pct_roof']:.1f}% | {r['hoisted_ops']}/{r['encrypt_ops']} | "
                   f"{'yes' if ok else 'NO'}{' OVER ROOF' if over else ''} |")
    notes = Path(__file__).with_name("NOTES.md")
    if notes.is_file():
        out += ["", notes.read_text().strip()]
    Path(stem + ".md").write_text("\n".join(out) + "\n")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(best)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    x = range(len(names))
    ax.bar([i - 0.3 for i in x], [best[n]["ks_ptx"]["gbps"] / 1e3 for n in names], 0.2, label="ks, inline PTX")
    ax.bar([i - 0.1 for i in x], [best[n]["ks_c"]["gbps"] / 1e3 for n in names], 0.2, label="ks, plain CUDA C")
    ax.bar([i + 0.1 for i in x], [best[n]["xor_ptx"]["gbps"] / 1e3 for n in names], 0.2, label="xor-in, inline PTX")
    ax.bar([i + 0.3 for i in x], [best[n]["ks_ptx"]["roof_gbps"] / 1e3 for n in names], 0.2, label="SASS ALU roof",
           color="lightgray")
    for i, n in enumerate(names):
        if n in TARGETS_TBPS:
            ax.plot([i - 0.4, i + 0.4], [TARGETS_TBPS[n]] * 2, "k--", lw=1)
    ax.set_xticks(list(x), names)
    ax.set_ylabel("Tbps (CTR, 1 GiB, median)")
    ax.set_title(f"cipherspec CUDA backend on {dev['name']} (dashed: issue-6 targets)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(stem + ".png", dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
