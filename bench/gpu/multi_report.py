"""bench/gpu/multi.py's results as markdown tables (printed at the end of a run; and the results page).

python3 bench/gpu/multi_report.py OUT1/multi.json [OUT2/multi.json ...] > bench/results/gpu-multi.md
"""

from __future__ import annotations

import json
import sys

TARGETS = {
    "ctr": {"lea128": 1.9, "aes128": 1.9, "aria128": 1.9},
    "drbg_scaling": 1.8,
    "host_pct": 80.0,
    "drbg_vs_cpu": 50.0,
}


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def bandwidth(res: dict) -> dict:
    """(set, pinned, direction) -> GB/s"""
    return {(r["set"], r["pinned"], r["direction"]): r["gbs"] for r in res["bandwidth"]}


def tables(res: dict) -> list[str]:
    out = ["", "### Machine", "", "| GPU | name | SMs | memory | PCIe (nvidia-smi) |", "|---|---|---:|---:|---|"]
    smi = {ln.split(",")[0].strip(): ln for ln in res.get("nvidia_smi", "").splitlines()}
    for d in res["devices"]:
        link = smi.get(str(d["device"]), "")
        parts = [p.strip() for p in link.split(",")]
        pcie = f"gen {parts[3]} x{parts[4]}, bus {parts[2]}" if len(parts) >= 5 else "?"
        out.append(f"| {d['device']} | {d['name']} | {d['sms']} | {d['total'] / 2**30:.0f} GiB | {pcie} |")
    out += ["", f"CPU: {res.get('cpu', '?')}; sets: " + "; ".join(f"{k} = {v}" for k, v in res["sets"].items()), ""]

    bw = bandwidth(res)
    sets = list(res["sets"])
    out += [
        "### Copy bandwidth, host <-> GPU (GB/s; every GPU of the set at once, summed; 'both' = per direction "
        "while both run)",
        "",
        "| set | H2D pinned | D2H pinned | both pinned | H2D pageable | D2H pageable | both pageable |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sets:
        cells = [f"{bw.get((s, p, d), float('nan')):.1f}" for p in (True, False) for d in ("h2d", "d2h", "both")]
        out.append(f"| {s} | " + " | ".join(cells) + " |")

    out += [
        "",
        "### CTR keystream, device-resident, one buffer per GPU (Gbps; same run)",
        "",
        "| cipher | schedule | " + " | ".join(sets) + " | speedup | target | verified |",
        "|---|---|" + "---:|" * len(sets) + "---:|---|---|",
    ]
    for name in dict.fromkeys(r["cipher"] for r in res["ctr"]):
        rows = [r for r in res["ctr"] if r["cipher"] == name]
        sp = rows[-1]["speedup"]
        tgt = TARGETS["ctr"].get(name)
        verdict = "(one GPU: not measured)" if len(rows) < 2 else (f">= {tgt}x: {_met(sp >= tgt)}" if tgt else "")
        out.append(
            f"| {name} | `{rows[0]['schedule']}` | "
            + " | ".join(f"{r['gbps']:,.0f}" for r in rows)
            + f" | {sp:.2f}x | {verdict} | {'yes' if all(r['verified'] for r in rows) else 'NO'} |"
        )

    out += [
        "",
        "### CTR_DRBG LEA-128, 2^19-bit requests (MB/s; the C DRBG on one CPU thread in the same run)",
        "",
        "| output | set | C DRBG | GPU from a plan | GPU + plan (device) | + plan, to host: one call | pipelined | "
        "best to host / C | verified (SHA-256) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in res["drbg"]:
        n = r["bytes"]
        host = {h["kind"]: n / h["seconds"] / 1e6 for h in r["host"]}
        best = max(host.values())
        ok = r["verified_dev"] and all(h["verified"] for h in r["host"])
        out.append(
            f"| {n >> 20} MiB | {r['set']} | {r['cpu_mbps']:,.0f} | {n / r['bulk_s'] / 1e6:,.0f} | "
            f"{n / r['dev_s'] / 1e6:,.0f} | {host['host']:,.0f} | {host['host, pipelined']:,.0f} | "
            f"{best / r['cpu_mbps']:.1f}x | {'yes' if ok else 'NO'} `{r['sha256'][:12]}` |"
        )

    out += [
        "",
        "### CTR host buffer -> host buffer, LEA-128 (GB/s of data; % of min(H2D, D2H) pinned of the same set)",
        "",
        "| set | memory | GB/s | % of bus | verified |",
        "|---|---|---:|---:|---|",
    ]
    for r in res["host"]:
        bus = min(bw.get((r["set"], True, "h2d"), 0), bw.get((r["set"], True, "d2h"), 0))
        if r["mode"].startswith("keystream"):
            bus = bw.get((r["set"], True, "d2h"), 0)  # keystream only: D2H alone
        pct = 100 * r["gbs"] / bus if bus else float("nan")
        out.append(f"| {r['set']} | {r['mode']} | {r['gbs']:.1f} | {pct:.0f}% | {'yes' if r['verified'] else 'NO'} |")
    out += ["", "### Targets", ""] + targets(res, bw, sets)
    return out


def targets(res: dict, bw: dict, sets: list[str]) -> list[str]:
    out = []
    multi = len(sets) > 1
    for name, tgt in TARGETS["ctr"].items():
        rows = [r for r in res["ctr"] if r["cipher"] == name]
        if rows and multi:
            out.append(
                f"- {name} CTR keystream {sets[-1]} vs 1 GPU: {rows[-1]['speedup']:.2f}x (>= {tgt}x: "
                f"{_met(rows[-1]['speedup'] >= tgt)})"
            )
    drbg = {(r["bytes"], r["set"]): r for r in res["drbg"]}
    for n in sorted({b for b, _ in drbg}):
        if multi and (n, sets[-1]) in drbg:
            one, many = drbg[(n, sets[0])], drbg[(n, sets[-1])]
            s_bulk, s_dev = one["bulk_s"] / many["bulk_s"], one["dev_s"] / many["dev_s"]
            out.append(
                f"- CTR_DRBG LEA-128 {n >> 20} MiB device-resident, {sets[-1]} vs 1 GPU: {s_bulk:.2f}x from a "
                f"plan (>= {TARGETS['drbg_scaling']}x: {_met(s_bulk >= TARGETS['drbg_scaling'])}); {s_dev:.2f}x "
                "with the host chain (serial on one CPU thread) included"
            )
    for r in res["host"]:
        if r["set"] == sets[0] and r["mode"] == "pinned":
            bus = min(bw[(sets[0], True, "h2d")], bw[(sets[0], True, "d2h")])
            pct = 100 * r["gbs"] / bus
            tgt = TARGETS["host_pct"]
            out.append(
                f"- CTR host -> host, one GPU, page-locked buffers: {r['gbs']:.1f} GB/s = {pct:.0f}% of "
                f"min(H2D, D2H) = {bus:.1f} GB/s (>= {tgt:.0f}%: {_met(pct >= tgt)})"
            )
    for (n, s), r in sorted(drbg.items()):
        if n == 128 << 20:
            best = max(n / h["seconds"] / 1e6 for h in r["host"])
            ratio = best / r["cpu_mbps"]
            out.append(
                f"- CTR_DRBG LEA-128 128 MiB with the copy to host memory, {s}: {ratio:.1f}x the C DRBG "
                f"(>= {TARGETS['drbg_vs_cpu']:.0f}x: {_met(ratio >= TARGETS['drbg_vs_cpu'])})"
            )
    return out


def unverified(res: dict) -> list:
    bad = [(r["cipher"], r["set"]) for r in res["ctr"] if not r["verified"]]
    bad += [
        ("drbg", r["bytes"], r["set"])
        for r in res["drbg"]
        if not (r["verified_dev"] and all(h["verified"] for h in r["host"]))
    ]
    bad += [("host", r["set"], r["mode"]) for r in res["host"] if not r["verified"]]
    return bad


HEADER = """# Every GPU of the host: multi-GPU scaling and host-memory streaming

`bash bench/gpu/multi.sh` on the lent machine (one run per machine kind below; `bench/gpu/multi.py` measures,
this page is `python3 bench/gpu/multi_report.py RUN/multi.json ...`).  Sets: "1 GPU" = device 0, "N GPUs" =
every visible GPU, measured in the same run.  Wall-clock times (the medians of 3-5 runs after a warm-up), from
the first enqueue to the end of the last kernel or copy on every GPU of the set.

- **Copy bandwidth**: `cudaMemcpyAsync`, 512 MiB per GPU and direction, every GPU of the set at once.
- **CTR keystream, device-resident**: `P_mg_ctr_dev`, 8 GiB split over the set (one buffer per GPU), 5 calls
  per timing; 64 KiB windows at both ends of every part and one inside it equal the C library's CTR.
- **CTR_DRBG**: the generated C DRBG's `generate` in a C loop (one thread) vs the C host chain `P_drbg_plan`
  + the multi-key kernels (`P_mg_ctr_multi_dev`: requests split by bytes, one launch per GPU; or
  `P_mg_ctr_multi_host` into page-locked host memory, pieces of requests over 4 streams per GPU; "pipelined":
  16 MiB of requests planned while the GPUs make the previous 16 MiB).  SHA-256 of the whole output == the
  C DRBG's.
- **CTR host -> host**: `P_mg_ctr_host`, 1 GiB in and out; *pinned*: the caller's buffers are page-locked
  (`cudaHostAlloc`); *register*: pageable buffers registered (`cudaHostRegister`, portable) for each call;
  *stage*: pageable buffers copied through the library's page-locked buffers (one host thread per stream);
  *pageable*: the driver stages every copy (a copy into pageable memory returns when done).  Every mode's
  output equals the pinned output; that one's windows equal the C library's CTR.
"""


def main() -> None:
    print(HEADER)
    for path in sys.argv[1:]:
        res = json.loads(open(path).read())
        print(
            f"## {len(res['devices'])} x {', '.join(sorted({d['name'] for d in res['devices']}))} "
            f"(`{path}`, {res.get('seconds', 0):.0f} s)"
        )
        print("\n".join(tables(res)))
        print()


if __name__ == "__main__":
    main()
