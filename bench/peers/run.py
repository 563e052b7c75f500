"""Example specs, built as shipped, against peer libraries in ONE process: CTR, 64 MiB, one thread, output
compared byte for byte; writes a markdown table to bench/results/.

    python3 bench/peers/run.py [--mib 64] [--reps 5] [--only REGEX] [--out bench/results/peers-ctr.md]

Each row is (spec, cipher, peer harness, peer's name for the cipher).  A harness is a small C program in
bench/peers/ that links the library `cipherspec build --spec SPEC CIPHER --target c` wrote and the peer,
takes an ISA level (CIPHERSPEC_X86_ISA's names) or nothing (the dispatcher's pick on this CPU), runs both
on the same key, counter and input, alternating, best of --reps each, and prints
"<variant> <ours MB/s> <peer MB/s> equal|DIFFER <peer version>".  Add a row (or a harness for another
peer: Crypto++, OpenSSL) to ROWS; nothing here is specific to one cipher.

Harnesses: ctr_vs_libgcrypt.c (wall clock) and ctr_vs_openssl.c (OpenSSL 3's EVP, by thread CPU time: a
64 MiB run is preempted on a shared machine).  A row may set the peer's environment (OpenSSL reads
OPENSSL_ia32cap at start-up: the AES row masks AES-NI off, issue 20's reference) and pick our ISA levels
(the AES row: avx2 and sse2, the bitsliced kernels; a row with a shipped cipher has no spec file).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Row:
    spec: str  # relative to the repository root ("": a shipped cipher, built by name)
    cipher: str
    harness: str  # bench/peers/<harness>.c
    peer_cipher: str  # the peer's name for the cipher (a -D value of the harness)
    libs: tuple[str, ...]  # the peer's link flags
    peer_env: tuple[tuple[str, str], ...] = ()  # environment of the harness (the peer's code-path switches)
    levels: tuple[str, ...] = ()  # our ISA levels to run (default: every variant); the first is the row's lead
    label: str = ""  # how the peer column names the peer's configuration


# OpenSSL 3 on its masked vector-permute AES (no AES-NI, no AVX-512 extensions): issue 20's AES reference
_NO_AESNI = (("OPENSSL_ia32cap", "~0x200000200000000:~0x600000000"),)
ROWS = (
    Row("examples/ciphers/sm4.cs", "sm4", "ctr_vs_libgcrypt", "GCRY_CIPHER_SM4", ("-lgcrypt",)),
    Row(
        "",
        "aes128",
        "ctr_vs_openssl",
        '"AES-128-CTR"',
        ("-lcrypto",),
        _NO_AESNI,
        ("avx2", "sse2"),
        "OPENSSL_ia32cap=" + _NO_AESNI[0][1],
    ),
)


def _cpu() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "?"
    model = next((ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("model name")), "?")
    flags = next((ln.split(":", 1)[1].split() for ln in text.splitlines() if ln.startswith("flags")), [])
    have = [f for f in ("avx2", "avx512f", "aes", "vaes", "gfni", "vpclmulqdq") if f in flags]
    return f"{model}, {os.cpu_count()} cores ({', '.join(have)})"


def build(row: Row, out: Path) -> str:
    """`cipherspec build` as a user runs it; its notes (the technique per table) are returned."""
    spec = ["--spec", row.spec] if row.spec else []
    cmd = [sys.executable, "-m", "driver", "build", *spec, row.cipher, "--target", "c", "-o", str(out)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    return p.stdout


def harness(row: Row, lib: Path, exe: Path, mib: int, reps: int) -> None:
    cmd = ["cc", "-O2", f"-I{lib / 'include'}", f'-DCS_H="{row.cipher}.h"', f"-DCS_P={row.cipher}"]
    cmd += [f"-DCS_GCRY={row.peer_cipher}", f"-DCS_PEER={row.peer_cipher}", f"-DCS_MIB={mib}", f"-DCS_REPS={reps}"]
    cmd += [str(HERE / f"{row.harness}.c"), str(lib / "lib" / f"lib{row.cipher}.a"), *row.libs, "-o", str(exe)]
    subprocess.run(cmd, check=True)


def run_row(row: Row, mib: int, reps: int) -> tuple[list[list[str]], str]:
    with tempfile.TemporaryDirectory() as d:
        lib, exe = Path(d) / "lib", Path(d) / "harness"
        notes = build(row, lib)
        harness(row, lib, exe, mib, reps)
        env = {**os.environ, **dict(row.peer_env)}
        variants = subprocess.run([str(exe), "--list"], capture_output=True, text=True, check=True).stdout.split()
        lines = (
            []
            if row.levels
            else [subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
        )
        for v in row.levels or variants:
            p = subprocess.run([str(exe), v], capture_output=True, text=True, env=env)
            if p.returncode == 0:  # a level this CPU lacks is refused by set_key_isa: left out
                lines.append(p.stdout.split())
    return lines, notes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "peers-ctr.md"))
    args = ap.parse_args()
    load0 = os.getloadavg()
    out = [
        "# Example specs as shipped vs peer libraries, one process",
        "",
        f"`python3 bench/peers/run.py --mib {args.mib} --reps {args.reps}"
        + (f" --only '{args.only}'" if args.only else "")
        + (f" --out {os.path.relpath(args.out, ROOT)}" if Path(args.out) != ROOT / "bench/results/peers-ctr.md" else "")
        + f"` -- CTR, {args.mib} MiB, one thread, "
        f"best of {args.reps} (ours and the peer alternating in the same process), output compared byte for byte.",
        f"CPU: {_cpu()}.  Load average before: {load0[0]:.2f} (the machine may be shared).",
        "",
        "| spec | cipher | our variant | ours MB/s | peer | peer MB/s | ratio | output |",
        "|---|---|---|---|---|---|---|---|",
    ]
    all_notes = []
    for row in ROWS:
        if not re.search(args.only, row.cipher):
            continue
        lines, notes = run_row(row, args.mib, args.reps)
        all_notes += [f"- {row.cipher}: {n.removeprefix('note: ')}" for n in notes.splitlines() if n.startswith("note")]
        for i, (variant, ours, peer, same, version) in enumerate(lines):
            label = variant if row.levels else f"**{variant}** (default)" if i == 0 else variant
            ratio = float(ours) / float(peer)
            peer_name = f"{row.harness.split('_vs_')[1]} {version}" + (f" `{row.label}`" if row.label else "")
            out.append(
                f"| {row.spec or '(shipped)'} | {row.cipher} | {label} | {ours} | {peer_name} | "
                f"{peer} | {ratio:.2f}x | {same} |"
            )
            print(out[-1], flush=True)
    load1 = os.getloadavg()
    out += ["", f"Load average after: {load1[0]:.2f}.", "", "Build notes (`cipherspec build`):", "", *all_notes, ""]
    Path(args.out).write_text("\n".join(out))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
