"""GPU output vs the C library for given CUDA schedules (bench/gpu/bs_roof.sh): CTR over 4 MiB + 37 bytes
(an IV near a 32-bit wrap, so the host splits segments) and ECB encryption/decryption over 1 MiB.

    python3 bench/gpu/bs_check.py aes128:bs_rk-const_t128 aria128:bs_rk-const_t128   -> one line each; exit 1 on a mismatch

(the ciphers of CIPHERSPEC_BENCH_SPECS's spec files too: sm4, present80 from examples/ciphers)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.registry import Registry  # noqa: E402
from driver.targets import make_cipher  # noqa: E402


def check(reg: Registry, name: str, schedule: str, rng: np.random.Generator) -> list[str]:
    gpu = make_cipher(reg, name, None, "cuda", schedule)
    c = make_cipher(reg, name, None, "c")
    key = rng.integers(0, 256, gpu.key_bytes, dtype=np.uint8).tobytes()
    rg, rc = gpu.expand_key(key), c.expand_key(key)
    iv = bytearray(rng.integers(0, 256, gpu.block_bytes, dtype=np.uint8).tobytes())
    iv[-4:] = (0xFFFFFFFF - 1000).to_bytes(4, "big")  # the low counter word wraps inside the run
    bad = []
    data = rng.integers(0, 256, (4 << 20) + 37, dtype=np.uint8).tobytes()
    if gpu.run_mode(rg, "ctr", "encrypt", data, bytes(iv)) != c.run_mode(rc, "ctr", "encrypt", data, bytes(iv)):
        bad.append("ctr")
    blocks = data[: 1 << 20]
    for d in ("encrypt", "decrypt"):
        if gpu.run_mode(rg, "ecb", d, blocks) != c.run_mode(rc, "ecb", d, blocks):
            bad.append(f"ecb {d}")
    return bad


def main() -> int:
    reg = Registry(extra=[p for p in os.environ.get("CIPHERSPEC_BENCH_SPECS", "").split(os.pathsep) if p])
    rng = np.random.default_rng(25)
    rc = 0
    for job in sys.argv[1:]:
        name, _, schedule = job.partition(":")
        bad = check(reg, name, schedule, rng)
        print(f"{job}: {'MISMATCH vs the C library: ' + ', '.join(bad) if bad else 'equal to the C library'}")
        rc |= bool(bad)
    return rc


if __name__ == "__main__":
    sys.exit(main())
