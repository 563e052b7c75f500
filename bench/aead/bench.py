"""GCM and XTS of the generated C libraries vs OpenSSL 3's EVP in the same process, and GCM vs the same
library's CTR; writes bench/results/aead{-SUFFIX}.{md,json}.

    python3 bench/aead/bench.py [--ciphers aes128 aria128 lea128] [--size MiB] [--reps 7] [--suffix NAME]

What runs: `cipherspec build CIPHER --target c` (the libraries as shipped) into a temporary directory;
bench/aead/bench.c compiled per cipher against lib<cipher>.a and -lcrypto; per cipher, two runs: one
64 MiB buffer as one message (XTS: 16 MiB data units, OpenSSL's limit of 2^20 blocks) and the same buffer
as 16 KiB records (a TLS record / a 16 KiB data unit each).  bench.c compares every output byte for byte
(GCM ciphertext and every record's tag, both decryptions; XTS ciphertext) with OpenSSL's before timing,
then takes the median of REPS runs, ours and OpenSSL's alternating, one thread, thread CPU time.
OpenSSL has no LEA: LEA-128-GCM is measured against the library's own CTR only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVP = {"aes128": ("AES-128-GCM", "AES-128-XTS"), "aria128": ("ARIA-128-GCM", "-"), "lea128": ("-", "-")}
RECORD = 16384


def sh(cmd: list[str], **kw) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd[:6])} ... failed:\n{p.stdout[-1000:]}{p.stderr[-2000:]}")
    return p.stdout


def machine() -> dict:
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.*)", text)
    flags = re.search(r"flags\s*:\s*(.*)", text)
    isa = [
        f
        for f in ("avx2", "avx512f", "aes", "vaes", "pclmulqdq", "vpclmulqdq", "gfni")
        if flags and f in flags.group(1).split()
    ]
    return {
        "cpu": model.group(1).strip() if model else platform.processor(),
        "cores": os.cpu_count(),
        "isa": isa,
        "openssl": sh(["openssl", "version"]).strip(),
    }


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def run(exe: Path, size: int, reps: int, evp: tuple[str, str], record: int | None) -> dict[str, float | str]:
    args = [str(exe), str(size), str(reps), *evp] + ([str(record)] if record else [])
    out: dict[str, float | str] = {}
    for line in sh(args).splitlines():
        parts = line.split()
        if parts[0] == "variant":
            out["variant"], out["ghash"] = parts[1], parts[3]
        else:
            out[parts[0]] = float(parts[1])
    return out


def ratio(a, b) -> str:
    return f"{a / b:.2f}×" if a and b else "–"


def report(meta: dict, results: dict) -> str:
    lines = [
        "# AEAD: GCM and XTS of the C libraries vs OpenSSL 3 (EVP, same process)",
        "",
        f"Machine: {meta['machine']['cpu']}, {meta['machine']['cores']} cores ({', '.join(meta['machine']['isa'])}); "
        f"{meta['machine']['openssl']}.  Load average before/after: {meta['load_before']} / {meta['load_after']}.",
        "",
        f"Command: `{meta['command']}` ({meta['date']}).  MB/s = 10^6 bytes per second of thread CPU time, one thread, "
        f"median of {meta['reps']} runs (ours and OpenSSL's alternating).  Every output was first compared byte for "
        "byte with OpenSSL's (GCM: ciphertext and each record's tag, and both decryptions; XTS: ciphertext).  "
        "GCM: 12-byte IV, 13-byte AAD; XTS: AES-128 (two 16-byte keys), tweak = the unit's offset.",
        "",
        "GCM (key ctx): the same records through a key context (<cipher>_gcm_key_init once, per record "
        "gcm_init_key/aad/encrypt_update/finish: the H powers are not derived per record), timed alternating with "
        "ours CTR in one race: `GCM (key ctx) / CTR` is a same-run ratio; `GCM enc / CTR` divides the one-shot "
        "figure (raced against OpenSSL) by that CTR figure.",
        "",
        "| cipher (variant / GHASH) | buffer | ours GCM enc | OpenSSL GCM enc | ours / OpenSSL | ours GCM dec | "
        "OpenSSL GCM dec | ours CTR | GCM enc / CTR | GCM (key ctx) | GCM (key ctx) / CTR | ours XTS | OpenSSL XTS | "
        "XTS ours / OpenSSL |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, runs in results.items():
        for label, r in runs.items():
            g = lambda k: r.get(k)  # noqa: E731
            f = lambda v: f"{v:,.0f}" if v else "–"  # noqa: E731
            lines.append(
                f"| {name} ({r['variant']} / {r['ghash']}) | {label} | {f(g('ours_gcm_encrypt'))} | "
                f"{f(g('openssl_gcm_encrypt'))} | {ratio(g('ours_gcm_encrypt'), g('openssl_gcm_encrypt'))} | "
                f"{f(g('ours_gcm_decrypt'))} | {f(g('openssl_gcm_decrypt'))} | {f(g('ours_ctr'))} | "
                f"{ratio(g('ours_gcm_encrypt'), g('ours_ctr'))} | {f(g('ours_gcm_encrypt_kc'))} | "
                f"{ratio(g('ours_gcm_encrypt_kc'), g('ours_ctr'))} | {f(g('ours_xts_encrypt'))} | "
                f"{f(g('openssl_xts_encrypt'))} | {ratio(g('ours_xts_encrypt'), g('openssl_xts_encrypt'))} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ciphers", nargs="+", default=list(EVP))
    ap.add_argument("--size", type=int, default=64, help="MiB")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--suffix", default="")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = ap.parse_args()
    size = args.size << 20
    meta = {
        "machine": machine(),
        "load_before": load(),
        "command": "python3 bench/aead/bench.py " + " ".join(sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "reps": args.reps,
    }
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name in args.ciphers:
            sh([sys.executable, "-m", "driver", "build", name, "--target", "c", "-o", str(tmp / name)], cwd=ROOT)
            exe = tmp / f"bench_{name}"
            sh(
                [
                    os.environ.get("CC", "cc"),
                    "-O2",
                    "-std=c99",
                    "-D_POSIX_C_SOURCE=199309L",
                    f"-DCS_P={name}",
                    f"-DCS_PU={name.upper()}",
                    "-I",
                    str(tmp / name / "include"),
                    "-include",
                    f"{name}.h",
                    str(ROOT / "bench" / "aead" / "bench.c"),
                    str(tmp / name / "lib" / f"lib{name}.a"),
                    "-lcrypto",
                    "-o",
                    str(exe),
                ]
            )
            evp = EVP.get(name, ("-", "-"))
            results[name] = {
                f"{args.size} MiB": run(exe, size, args.reps, evp, None),
                "16 KiB records": run(exe, size, args.reps, evp, RECORD),
            }
            print(name, json.dumps(results[name]), flush=True)
    meta["load_after"] = load()
    stem = "aead" + (f"-{args.suffix}" if args.suffix else "")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
    (args.out / f"{stem}.md").write_text(report(meta, results))
    print(report(meta, results))


if __name__ == "__main__":
    main()
