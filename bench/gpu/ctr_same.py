"""The same CTR output from several schedules of one cipher on the GPU, over many grid-stride trips (the lockstep
arms of bench/gpu/ariaroof.sh; bs_check.py compares 4 MiB with the C library, one trip of a full grid or less).

    python3 bench/gpu/ctr_same.py [--mib 256] aria128:bs_rk-const_t128 aria128:bs_rk-const_t256_sync-pair ...
        -> per arm: "same" or "DIFFERS" against the cipher's first arm (keystream of MIB MiB + 37 bytes from an IV
           whose low 32 bits wrap inside it, and an XOR of 32 MiB + 5 bytes); exit 1 if any differs
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import registry  # noqa: E402


def outputs(c, nbytes: int, rng: np.random.Generator) -> tuple[str, str]:
    """SHA-256 of the keystream (nbytes) and of an XOR of 32 MiB + 5, fixed key / IV / data per cipher."""
    rk = c.expand_key(rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes())
    B = c.block_bytes
    wrap = ((1 << 32) - (nbytes // B) // 3).to_bytes(4, "big")  # the low 32 bits wrap a third of the way in
    iv = rng.integers(0, 256, B - 4, dtype=np.uint8).tobytes() + wrap
    ks = hashlib.sha256(c.device_ctr(rk, iv, None, nbytes)).hexdigest()
    data = rng.integers(0, 256, (32 << 20) + 5, dtype=np.uint8).tobytes()
    return ks, hashlib.sha256(c.device_ctr(rk, iv, data)).hexdigest()


def main() -> int:
    from generator.ptx import BACKEND

    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("arms", nargs="+", help="CIPHER:SCHEDULE (a cipher's first arm is its reference)")
    a = ap.parse_args()
    ref: dict[str, tuple[str, str]] = {}
    bad = 0
    for arm in a.arms:
        name, text = arm.split(":", 1)
        c = BACKEND.load(registry(), name, None, text)
        got = outputs(c, (a.mib << 20) + 37, np.random.default_rng(sum(name.encode())))
        first = ref.setdefault(name, got)
        same = got == first
        bad += not same
        print(f"{arm}: {'same' if same else 'DIFFERS'} (keystream {got[0][:12]}, xor {got[1][:12]})", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
