"""results.json (bench.py, from the device) -> bench/results/gpu-<device>.md + .png.

python3 bench/gpu/report.py bench/results/gpu-h200.json bench/results/gpu-h200
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import SEEDS, TARGETS_TBPS, group_of  # noqa: E402
from generator.ptx.placement import TUNED  # noqa: E402  (the autotuner's picks the build ships)


def shipped_picks(rows: list[dict]) -> dict[str, tuple[dict, str]]:
    """Per cipher, the row of the schedule the build ships (generator/ptx/tuned.json) and its flavour."""
    tuned = json.loads(TUNED.read_text())["defaults"]
    by_name = {r["schedule"]: r for r in rows}
    picks = {}
    for name, pick in tuned.items():
        sched = pick["schedule"]
        row = by_name.get(sched) or by_name.get(sched.replace("_fl-c", ""))
        if row:
            picks[name] = (row, pick["flavour"])
    return picks


def per_block_mix(reg, row: dict, top: int = 6) -> tuple[str, str, str]:
    """The kernel's SASS loop mix divided by the blocks one trip makes (lanes x ILP)."""
    from generator.ptx.build import schedule_for

    sched = schedule_for(reg.module(row["cipher"]), row["params"])
    blocks = sched.ilp * group_of(sched)
    mix = sorted(row["ks_ptx"]["mix"].items(), key=lambda kv: -kv[1])
    total = sum(row["ks_ptx"]["mix"].values()) / blocks
    return f"{total:,.0f}", ", ".join(f"{k} {v / blocks:.0f}" for k, v in mix[:top]), sched.layout


def ncu_table(path: Path) -> list[str]:
    """The Nsight Compute summary of each shipped kernel (bench/gpu/profile.py writes it), as a table."""
    if not path.is_file():
        return []
    prof = json.loads(path.read_text())
    out = [
        "",
        f"Nsight Compute, one profile per cipher of the kernel named (the build's pick when it was profiled), its CTR keystream launch (64 MiB; `{path.name}`, from "
        "`bench/gpu/profile.py`; ncu fixes the SM clock, so read the percentages, not the time):",
        "",
        "| cipher | kernel | ALU pipe | FMA pipe | LSU pipe | issue slots busy | SM throughput | IPC | registers | "
        "occupancy achieved / theoretical |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, f in sorted(prof.items()):
        out.append(
            f"| {name} | `{f.get('kernel', '')}` | {f['alu_pct']:.1f}% | {f['fma_pct']:.1f}% | {f['lsu_pct']:.1f}% | "
            f"{f['issue_active_pct']:.1f}% | {f['sm_throughput_pct']:.1f}% | {f['ipc']:.2f} | {f['registers']:.0f} | "
            f"{f['achieved_occupancy_pct']:.0f}% / {f['theoretical_occupancy_pct']:.0f}% |"
        )
    return out


def main(src: str, stem: str) -> None:
    data = json.loads(Path(src).read_text())
    dev, rows = data["device"], data["rows"]
    ghz, sms = dev["clock_khz"] / 1e6, dev["sms"]
    norm = sms * ghz
    from cipherspec.registry import Registry

    reg = Registry()  # one parse of the specs for every row
    picks = shipped_picks(rows)
    best = {n: r for n, (r, _) in picks.items()}
    fastest = {}  # any verified kernel, spills or not: what the shipped pick leaves on the table
    for r in rows:
        if "nohoist" in r["params"] or not r["ks_ptx"]["verified"]:
            continue
        if r["cipher"] not in fastest or r["ks_ptx"]["gbps"] > fastest[r["cipher"]]["ks_ptx"]["gbps"]:
            fastest[r["cipher"]] = r
    out = [
        f"# CUDA backend on {dev['name']} ({sms} SMs, {ghz:.2f} GHz max SM clock, cc {dev['cc'] / 10:.1f})",
        "",
        f"Measured on the lent `nvidia-h200` device ({dev.get('nvidia_smi', '')}); CUDA 13.0, driver 580.159.04.",
        f"Each kernel: CTR over {data['size_bytes'] >> 20} MiB in device memory, keystream-only (`ks`) and "
        "XOR-with-input (`xor`), CUDA events around 4 back-to-back launches, median of 4 such batches after "
        "a warm-up batch; output checked against the interpreter on 5 windows (first/last 64 KiB, 3 random). "
        "`ptx` = the generated inline-PTX kernel, `C` = the plain-CUDA-C flavour of the same generated kernel "
        "(same IR, same schedule, no asm), built into the same library and timed in the same process. "
        "Roof = the ALU-pipe roof from the kernel's own SASS loop (bench/gpu/sass.py: alu and fma pipes 0.5 "
        "warp-instr/clk/SMSP, issue 1) x SMs x clock, or the device's measured memory roof (a cudaMemset / "
        "device-to-device copy of the same bytes) where that is lower (pipe `mem`); `%roof` = ks ptx / roof.",
        "",
        "## What the build ships per cipher (the autotuner's pick, generator/ptx/tuned.json: the fastest "
        "verified constant-time kernel; AES and ARIA: the bitsliced layout, tables only when named)",
        "",
        "| cipher | schedule | layout | flavour | ks Gbps | xor Gbps | roof Gbps (pipe) | %roof | target | "
        "Gbps per SM·GHz |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    mixes = {}
    for name, (r, fl) in picks.items():
        t = TARGETS_TBPS.get(name)
        ks, xor = r[f"ks_{fl}"]["gbps"], r[f"xor_{fl}"]["gbps"]
        met = "" if t is None else (f"{t:.2f} Tbps {'met' if ks >= t * 1000 else 'NOT met'}")
        mixes[name] = per_block_mix(reg, r)
        out.append(
            f"| {name} | `{r['schedule']}` | {mixes[name][2]} | {fl} | {ks:,.0f} | {xor:,.0f} | "
            f"{r['ks_ptx']['roof_gbps']:,.0f} ({r['ks_ptx']['pipe']}) | {r['ks_ptx']['pct_roof']:.1f}% | {met} | "
            f"{ks / norm:.1f} |"
        )
    out += [
        "",
        "SASS of each shipped kernel's CTR loop (inline-PTX flavour), per block (a trip's count / the blocks "
        "it makes):",
        "",
        "| cipher | SASS instr / block | top of the mix, per block |",
        "|---|---:|---|",
    ]
    out += [f"| {n} | {m[0]} | {m[1]} |" for n, m in mixes.items()]
    out += ncu_table(Path(f"{stem}-ncu.json"))
    faster = [
        (n, r)
        for n, r in fastest.items()
        if n in best
        and r["schedule"] != best[n]["schedule"]
        and r["ks_ptx"]["gbps"] > best[n][f"ks_{picks[n][1]}"]["gbps"]
    ]
    if faster:
        out += [
            "",
            "Faster kernels measured but not shipped (NOT constant-time: tables indexed with secret bytes; or they spill):",
            "",
        ]
        out += [f"- {n}: `{r['schedule']}` {r['ks_ptx']['gbps']:,.0f} Gbps" for n, r in faster]
    out += [
        "",
        "## Beside the seeds (Gbps per SM·GHz: published Gbps / (SMs x boost GHz))",
        "",
        "| cipher | seed figure | seed GPU | seed per SM·GHz | ours per SM·GHz (ks, best) |",
        "|---|---:|---|---:|---:|",
    ]
    for name, label, gbps, gpu, s, g in SEEDS:
        ours = best.get(name)
        out.append(
            f"| {label} | {gbps} Gbps | {gpu} ({s} SMs, {g} GHz) | {gbps / (s * g):.1f} | "
            f"{ours['ks_ptx']['gbps'] / norm:.1f} |"
            if ours
            else f"| {label} | {gbps} | {gpu} | - | - |"
        )
    out += [
        "",
        "## Every kernel timed",
        "",
        "| schedule | ks ptx | ks C | xor ptx | xor C | roof (pipe) | %roof | hoisted ops | verified |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ok = all(r[k]["verified"] for k in ("ks_ptx", "ks_c", "xor_ptx", "xor_c"))
        over = any(r[k]["over_roof"] for k in ("ks_ptx", "xor_ptx"))
        out.append(
            f"| `{r['schedule']}` | {r['ks_ptx']['gbps']:,.0f} | {r['ks_c']['gbps']:,.0f} | "
            f"{r['xor_ptx']['gbps']:,.0f} | {r['xor_c']['gbps']:,.0f} | {r['ks_ptx']['roof_gbps']:,.0f} "
            f"({r['ks_ptx']['pipe']}) | {r['ks_ptx']['pct_roof']:.1f}% | {r['hoisted_ops']}/{r['encrypt_ops']} | "
            f"{'yes' if ok else 'NO'}{' OVER ROOF' if over else ''} |"
        )
    notes = Path(__file__).with_name("NOTES.md")
    if notes.is_file():
        out += ["", notes.read_text().strip()]
    Path(stem + ".md").write_text("\n".join(out) + "\n")

    try:
        import matplotlib
    except ImportError:
        print(f"{stem}.png not redrawn: matplotlib is not installed", file=sys.stderr)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(best)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    x = range(len(names))
    ax.bar([i - 0.3 for i in x], [best[n]["ks_ptx"]["gbps"] / 1e3 for n in names], 0.2, label="ks, inline PTX")
    ax.bar([i - 0.1 for i in x], [best[n]["ks_c"]["gbps"] / 1e3 for n in names], 0.2, label="ks, plain CUDA C")
    ax.bar([i + 0.1 for i in x], [best[n]["xor_ptx"]["gbps"] / 1e3 for n in names], 0.2, label="xor-in, inline PTX")
    ax.bar(
        [i + 0.3 for i in x],
        [best[n]["ks_ptx"]["roof_gbps"] / 1e3 for n in names],
        0.2,
        label="SASS ALU roof",
        color="lightgray",
    )
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
