"""How usable is the oracle?  Times `cipherspec kat` on N ECB vectors (default 3000) spread over all 15 ciphers.

The vectors are made by the independent implementations in tests/support/independent.py (not by
cipherspec), so the run also checks the interpreter on N fresh random cases.  Writes
bench/results/interp-kat.md.
    python bench/interp/kat_speed.py [N]
"""

from __future__ import annotations

import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
import independent  # noqa: E402


def main(n: int) -> None:
    rng = random.Random(2026)
    names = sorted(independent.CIPHERS)
    lines = []
    for i in range(n):
        c = independent.CIPHERS[names[i % len(names)]]
        key = bytes(rng.getrandbits(8) for _ in range(c.key_size))
        pt = bytes(rng.getrandbits(8) for _ in range(c.block_size))
        lines.append(
            f"Cipher = {c.name}\nMode = ECB\nKey = {key.hex()}\nPlaintext = {pt.hex()}\n"
            f"Ciphertext = {c.encrypt(key, pt).hex()}\n"
        )
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "random.txt"
        path.write_text("\n".join(lines))
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "driver", "kat", str(path)], capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"kat failed:\n{p.stdout}{p.stderr}")
    summary = p.stdout.strip().splitlines()[-1]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    cpu = next(
        (l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor()
    )
    text = (
        f"# Interpreter as an oracle: `cipherspec kat` speed\n\n"
        f"{n} random ECB vectors over all 15 ciphers (encrypt AND decrypt each), made by the independent "
        f"implementations in tests/support/independent.py.\n\n"
        f"| vectors | wall time (process start to exit) | result |\n|---|---|---|\n"
        f"| {n} | {wall:.1f} s | {summary} |\n\n"
        f"Machine: {cpu}, {os.cpu_count()} cores; commit {commit}. Command: `python bench/interp/kat_speed.py {n}`.\n"
    )
    (ROOT / "bench" / "results" / "interp-kat.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
