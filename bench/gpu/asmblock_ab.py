"""The kernels the asm blocks change (issue 25's build time: generator/ptx/asmblock.py), for a device A/B under ncu.

One process runs AES-128's default library (the arm is chosen by CIPHERSPEC_PTX_ASMBLOCK, set by the caller, and a
cache per arm) through the calls whose kernels' SASS differs with the blocks on -- ECB decrypt (ecb_dec), the
fused GCM batch kernel (gcm_batch: records over 1 MiB, which the tensor-core route leaves to it) and the multi-key
CTR of a DRBG bulk request (ctr_multi) -- plus the CTR keystream as the control (its SASS is the same in both
arms), and prints each output's SHA-256, so the two arms' lines must be equal:

    CIPHERSPEC_PTX_ASMBLOCK=1 ncu --metrics gpu__time_duration.sum --csv python3 bench/gpu/asmblock_ab.py run > on.csv
    python3 bench/gpu/asmblock_ab.py summary on.csv off.csv
    -> kernel           on ms    off ms  on/off  (median of the launches: on / off)
       ecb_dec_ptx      1.234     1.240   0.995  (3 / 3)
"""

from __future__ import annotations

import csv
import hashlib
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# the kernel names ncu prints, cut to what follows the schedule's name (..._t256_ecb_dec_ptx -> ecb_dec_ptx)
KERNEL = re.compile(r"_t\d+_([a-z0-9_]+)")


def run(reps: int = 3) -> None:
    import numpy as np

    from cipherspec.drbg import CtrDrbg
    from cipherspec.registry import Registry
    from generator.ptx import BACKEND as CUDA_BACKEND

    c = CUDA_BACKEND.load(Registry(), "aes128", None, None)
    rng = np.random.default_rng(1)
    key = bytes(range(16))
    rk = c.expand_key(key)
    sha = lambda b: hashlib.sha256(b).hexdigest()[:16]  # noqa: E731
    data = rng.integers(0, 256, 256 << 20, dtype=np.uint8).tobytes()
    for _ in range(reps):
        out = c.device_ecb(rk, data, decrypt=True)
    print(f"ecb_dec 256 MiB: {sha(out)}")
    gk = [c.gcm_key(rng.bytes(16)) for _ in range(4)]
    msgs = [(r % 4, rng.bytes(12), rng.bytes(13), rng.bytes((2 << 20) + 16 * r), 16) for r in range(8)]
    for _ in range(reps):
        outs, tags = c.gcm_batch(gk, msgs)
    print(f"gcm batch 8 x 2 MiB: {sha(b''.join(outs) + b''.join(tags))}")
    for _ in range(reps):
        d = CtrDrbg(c)
        d.instantiate(key, bytes(8), b"asmblock A/B")
        out = d.generate_bulk(64 << 20)
    print(f"drbg bulk 64 MiB: {sha(out)}")
    for _ in range(reps):
        out = c.run_mode(rk, "ctr", "encrypt", bytes(64 << 20), bytes(16))
    print(f"ctr 64 MiB: {sha(out)}")


def times(path: str, key: Callable[[str], str | None] | None = None) -> dict[str, list[float]]:
    """Kernel (cut by KERNEL, or named by ``key`` of ncu's name; None: not counted) -> its launches'
    gpu__time_duration in ms, from an ncu --csv log."""
    out: dict[str, list[float]] = {}
    lines = [ln for ln in open(path, errors="replace") if ln.startswith('"')]
    for row in csv.DictReader(lines):
        name = (key or _short)(row.get("Kernel Name", ""))
        if name and row.get("Metric Name") == "gpu__time_duration.sum":
            out.setdefault(name, []).append(float(row["Metric Value"].replace(",", "")) / 1e6)
    return out


def _short(kernel: str) -> str | None:
    m = KERNEL.search(kernel)
    return m.group(1) if m else None


def summary(on: str, off: str, key: Callable[[str], str | None] | None = None, width: int = 16) -> None:
    """The on/off table of two ncu logs (``key``: as for times; ``width``: the kernel column's)."""
    a, b = times(on, key), times(off, key)
    print(f"{'kernel':{width}s} {'on ms':>9s} {'off ms':>9s} {'on/off':>7s}  (median of the launches: on / off)")
    for k in sorted(set(a) | set(b)):
        ma = statistics.median(a[k]) if k in a else float("nan")
        mb = statistics.median(b[k]) if k in b else float("nan")
        print(f"{k:{width}s} {ma:9.3f} {mb:9.3f} {ma / mb:7.3f}  ({len(a.get(k, []))} / {len(b.get(k, []))})")


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]:
        run()
    elif sys.argv[1:2] == ["summary"] and len(sys.argv) == 4:
        summary(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
