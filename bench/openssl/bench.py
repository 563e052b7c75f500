"""`openssl speed -evp` through the cipherspec provider vs OpenSSL's own ARIA/AES, and the provider's
overhead over the library called directly; writes bench/results/openssl-provider{,-SUFFIX}.{md,json}.

    python bench/openssl/bench.py [--ciphers lea128 aria128 ...] [--schedule S] [--seconds 2] [--repeats 3]
                                  [--rounds 20]
                                  [--suffix NAME] [--out bench/results]

What runs (one script, one machine, back to back):
  1. `cipherspec build CIPHERS --target openssl-provider` (the provider as shipped) into a temporary
     directory;
  2. per cipher and buffer size, `openssl speed -evp <CIPHER>-CTR -bytes SIZE` with our provider
     (-propquery provider=cipherspec) and, for ARIA/AES, the same command on OpenSSL's built-in cipher
     (-propquery provider=default), alternating, REPEATS times: the median of each;
  3. per cipher, bench/openssl/direct.c: CTR through EVP (our provider) and through <cipher>_ctr, in one
     process, alternating, after checking both give the same bytes.  direct.c is linked with the very
     objects the provider was linked from (generator.openssl.build.library_object_files, from the cache).
Figures are bytes per CPU second (openssl speed's default clock, and direct.c's), in MB/s (10^6).
Every provider output is verified: `openssl speed` itself is not, so step 0 checks our provider's CTR
against the interpreter with `openssl enc` before anything is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cipherspec import modes
from cipherspec.registry import Registry
from driver.targets import make_cipher
from generator.openssl.build import library_object_files, provider_entries
from generator.openssl.names import algorithm_name

SIZES = (16, 256, 8192, 16384)
BUILTIN = {"aria128": "ARIA-128-CTR", "aes128": "AES-128-CTR", "aria256": "ARIA-256-CTR", "aes256": "AES-256-CTR"}
DEFAULT_CIPHERS = ["lea128", "aria128", "aes128", "hight", "cham128_128"]


def sh(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)
    if p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd[:6])} ... failed:\n{p.stderr[-2000:]}")
    return p


def machine() -> dict:
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.*)", text)
    flags = re.search(r"flags\s*:\s*(.*)", text)
    isa = [
        f for f in ("sse2", "ssse3", "avx2", "avx512f", "aes", "vaes", "gfni") if flags and f in flags.group(1).split()
    ]
    return {
        "cpu": model.group(1).strip() if model else platform.processor(),
        "cores": os.cpu_count(),
        "isa": isa,
        "openssl": sh(["openssl", "version"]).stdout.strip(),
        "python": platform.python_version(),
    }


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3] if Path("/proc/loadavg").exists() else []


def provider_args(prov: Path, propq: str) -> list[str]:
    return [
        "-provider-path",
        str(prov / "lib/ossl-modules"),
        "-provider",
        "cipherspec",
        "-provider",
        "default",
        "-propquery",
        propq,
    ]


def speed_one(prov: Path, alg: str, propq: str, seconds: int, size: int) -> float:
    """`openssl speed -evp ALG -bytes SIZE -mr`: bytes per (user-CPU) second.  The provider options
    come first: speed resolves -evp when it reads it."""
    cmd = [
        "openssl",
        "speed",
        *provider_args(prov, propq),
        "-seconds",
        str(seconds),
        "-bytes",
        str(size),
        "-mr",
        "-evp",
        alg,
    ]
    vals = next(line for line in sh(cmd).stdout.splitlines() if line.startswith("+F:"))
    return float(vals.split(":")[3])


def speed(prov: Path, runs: list[tuple[str, str]], seconds: int, repeats: int) -> list[dict[int, float]]:
    """For each (algorithm, property query) of ``runs``, the median over ``repeats`` of its rate per
    size; the runs alternate within each repeat, so a ratio between them is taken within one run."""
    got: list[dict[int, list[float]]] = [{s: [] for s in SIZES} for _ in runs]
    for _ in range(repeats):
        for size in SIZES:
            for i, (alg, propq) in enumerate(runs):
                got[i][size].append(speed_one(prov, alg, propq, seconds, size))
    return [{s: statistics.median(v) for s, v in g.items()} for g in got]


def verify_enc(prov: Path, reg: Registry, name: str, tmp: Path) -> None:
    """Our provider's CTR (the mode timed) equals the interpreter on 100 KB, through `openssl enc`."""
    ref = make_cipher(reg, name)
    key, iv = bytes(range(ref.key_bytes)), bytes(range(0xF0, 0xF0 + ref.block_bytes))
    data = bytes((i * 131 + (i >> 8)) & 0xFF for i in range(100_003))
    src, dst = tmp / f"{name}.in", tmp / f"{name}.out"
    src.write_bytes(data)
    alg = algorithm_name(reg.module(name), "ctr")
    sh(
        [
            "openssl",
            "enc",
            *provider_args(prov, "provider=cipherspec"),
            "-" + alg.lower(),
            "-K",
            key.hex(),
            "-iv",
            iv.hex(),
            "-in",
            str(src),
            "-out",
            str(dst),
        ]
    )
    if dst.read_bytes() != modes.ctr(ref, ref.expand_key(key), iv, data)[0]:
        raise SystemExit(f"bench: {alg} through the provider does not match the interpreter")


def direct(prov: Path, reg: Registry, name: str, schedule: str | None, seconds: int, rounds: int, tmp: Path) -> dict:
    exe = tmp / f"direct_{name}"
    pc = sh(["pkg-config", "--cflags", "--libs", "libcrypto"]).stdout.split() or ["-lcrypto"]
    objects = library_object_files(provider_entries(reg, [name], schedule))
    sh(
        [
            "cc",
            "-std=c99",
            "-O2",
            "-D_POSIX_C_SOURCE=200809L",
            f"-DCS_CIPHER={name}",
            "-include",
            f"{name}.h",
            f"-I{prov / 'include'}",
            str(ROOT / "bench/openssl/direct.c"),
            *map(str, objects),
            *pc,
            "-o",
            str(exe),
        ]
    )
    alg = algorithm_name(reg.module(name), "ctr")
    out = sh([str(exe), str(prov / "lib/ossl-modules"), alg, str(seconds), str(rounds), *map(str, SIZES)]).stdout
    res: dict = {"direct": {}, "evp": {}, "overhead": {}}
    for line in out.splitlines():
        kv = dict(part.split("=") for part in line.split())
        if "path" in kv:
            res[kv["path"]][int(kv["size"])] = float(kv["cpu_Bps"])
        elif "overhead" in kv:
            res["overhead"][int(kv["size"])] = float(kv["overhead"])
    return res


def mb(x: float | None) -> str:
    return "—" if x is None else f"{x / 1e6:.0f}"


def report(meta: dict, rows: list[dict]) -> str:
    m = meta["machine"]
    lines = [
        "# OpenSSL provider: `openssl speed -evp` and the provider's overhead",
        "",
        (
            f"Machine: {m['cpu']}, {m['cores']} cores ({', '.join(m['isa'])}); {m['openssl']}.  "
            f"Load average before/after: {' '.join(meta['load_before'])} / {' '.join(meta['load_after'])} "
            "(the cores are shared with other jobs)."
        ),
        "",
        (
            f"Command: `{meta['command']}` ({meta['date']}).  Schedules: {meta['schedules']}; libraries "
            f"built as shipped (`cipherspec build`, flags `{meta['lib_flags']}`)."
        ),
        "",
        (
            "MB/s = 10^6 bytes per CPU second (`openssl speed` reports per user-CPU second: the median of "
            f"{meta['repeats']} runs per size, ours and the built-in alternating; direct.c per thread-CPU "
            "second), CTR encryption, in place, stream continuing across calls.  Every "
            "provider was first checked against the interpreter (`openssl enc`, 100 KB), and direct.c "
            "checks that EVP and the direct call give the same bytes before timing."
        ),
        "",
    ]
    for r in rows:
        lines.append(f"## {r['alg']} ({r['schedule']})")
        lines.append("")
        lines.append(
            "| buffer | ours: openssl speed | OpenSSL built-in: openssl speed | ours / built-in | "
            "ours: EVP in direct.c | library direct (direct.c) | provider overhead |"
        )
        lines.append("|---:|---:|---:|---:|---:|---:|---:|")
        for s in SIZES:
            ours, builtin = r["speed_ours"].get(s), (r["speed_builtin"] or {}).get(s)
            evp, dr = r["direct"]["evp"].get(s), r["direct"]["direct"].get(s)
            ratio = f"{ours / builtin:.2f}×" if ours and builtin else "—"
            over = f"{r['direct']['overhead'][s] * 100:+.1f}%" if s in r["direct"]["overhead"] else "—"
            lines.append(f"| {s} | {mb(ours)} | {mb(builtin)} | {ratio} | {mb(evp)} | {mb(dr)} | {over} |")
        lines.append("")
    lines += ["## Targets (issue 12)", "", "| target | measured | met |", "|---|---|---|"]
    aria = next((r for r in rows if r["cipher"] == "aria128"), None)
    if aria and aria["speed_builtin"]:
        x = aria["speed_ours"][16384] / aria["speed_builtin"][16384]
        lines.append(
            f"| ARIA-128-CTR through the provider ≥ 5× OpenSSL's built-in at 16384 bytes | {x:.2f}× | "
            f"{'yes' if x >= 5 else 'no'} |"
        )
    for r in rows:
        over = r["direct"]["overhead"][8192] * 100
        lines.append(
            f"| {r['alg']}: provider overhead vs direct ≤ 10% at 8192 bytes | {over:+.1f}% | "
            f"{'yes' if over <= 10 else 'no'} |"
        )
    lines.append("")
    lines.append(
        "Provider overhead = extra CPU time per byte of EVP through the provider over the direct call: "
        "direct.c alternates ~1 MiB batches of the two paths (same process, same buffer size) and takes "
        "the median over the pairs of EVP time / direct time − 1; a negative figure is noise.  The MB/s "
        "columns of direct.c are each path's bytes over its summed CPU time."
    )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ciphers", nargs="+", default=DEFAULT_CIPHERS)
    ap.add_argument("--schedule", default=None, help="a C schedule for every cipher (default: each one's default)")
    ap.add_argument("--seconds", type=int, default=2)
    ap.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="openssl speed: runs per size (median), ours and the built-in alternating",
    )
    ap.add_argument("--rounds", type=int, default=20, help="direct.c: at least this many pairs of batches")
    ap.add_argument("--suffix", default="")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args()
    reg = Registry()
    meta = {
        "machine": machine(),
        "load_before": load(),
        "repeats": args.repeats,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "command": "python3 bench/openssl/bench.py " + " ".join(sys.argv[1:]),
        "lib_flags": os.environ.get("CIPHERSPEC_LIB_CFLAGS", "-std=c99 -O3 -fPIC"),
    }
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    sched = ["--schedule", args.schedule] if args.schedule else []
    rows = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        prov = tmp / "prov"
        notes = sh(
            [
                sys.executable,
                "-m",
                "driver",
                "build",
                *args.ciphers,
                *sched,
                "-o",
                str(prov),
                "--target",
                "openssl-provider",
            ],
            env=env,
        ).stdout
        schedules = dict(re.findall(r"note: ((\w+?)_c_\w+):", notes)[i][::-1] for i in range(len(args.ciphers)))
        meta["schedules"] = ", ".join(schedules.values())
        for name in args.ciphers:
            verify_enc(prov, reg, name, tmp)
        for name in args.ciphers:
            alg = algorithm_name(reg.module(name), "ctr")
            print(f"bench: {alg}", file=sys.stderr)
            runs = [(alg, "provider=cipherspec")] + ([(BUILTIN[name], "provider=default")] if name in BUILTIN else [])
            rates = speed(prov, runs, args.seconds, args.repeats)
            row = {
                "cipher": name,
                "alg": alg,
                "schedule": schedules[name],
                "speed_ours": rates[0],
                "speed_builtin": rates[1] if len(rates) > 1 else None,
                "direct": direct(prov, reg, name, args.schedule, args.seconds, args.rounds, tmp),
            }
            rows.append(row)
    meta["load_after"] = load()
    out = Path(args.out)
    stem = "openssl-provider" + (f"-{args.suffix}" if args.suffix else "")
    (out / f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    (out / f"{stem}.md").write_text(report(meta, rows))
    print(report(meta, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
