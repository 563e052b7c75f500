"""ECB kernels of the seventh pass's A/B (issue 25: CIPHERSPEC_PTX_CORE, generator/ptx/asmblock.py), under ncu.

One process runs the default library of each cipher named (the arm is chosen by CIPHERSPEC_PTX_CORE and a cache per
arm, set by the caller) through ECB encrypt and decrypt of 64 MiB, 2 calls each, and prints each output's SHA-256,
so the two arms' lines must be equal (CTR is timed by clockwatch.py in bench/gpu/ptxcore.sh):

    CIPHERSPEC_PTX_CORE=0 ncu --metrics gpu__time_duration.sum --csv python3 bench/gpu/ptxcore_ab.py run aes128 sm4 > off.csv
    python3 bench/gpu/ptxcore_ab.py summary on.csv off.csv
    -> kernel                     on ms    off ms  on/off  (median of the launches: on / off)
       aes128 ecb_dec_ptx         0.301     0.302   0.997  (2 / 2)
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parent)]

from asmblock_ab import KERNEL, summary  # noqa: E402

# ncu's kernel names: the cipher (first word of the schedule's name) and what follows the schedule's "_tNNN_"
_CIPHER = re.compile(r"cs_([a-z0-9]+)_cuda_")


def run(names: list[str], reps: int = 2) -> None:
    import numpy as np

    from bench import registry
    from generator.ptx import BACKEND as CUDA_BACKEND

    reg = registry()
    rng = np.random.default_rng(1)
    for name in names:
        c = CUDA_BACKEND.load(reg, name, None, None)
        rk = c.expand_key(rng.bytes(c.key_bytes))
        data = rng.integers(0, 256, 64 << 20, dtype=np.uint8).tobytes()
        for decrypt in (False, True):
            for _ in range(reps):
                out = c.device_ecb(rk, data, decrypt=decrypt)
            print(
                f"{name} ecb_{'dec' if decrypt else 'enc'} 64 MiB: {hashlib.sha256(out).hexdigest()[:16]}", flush=True
            )


def _named(kernel: str) -> str | None:
    """ncu's kernel name -> 'cipher kernel' (aes128 ecb_dec_ptx)."""
    m, k = _CIPHER.search(kernel), KERNEL.search(kernel)
    return f"{m.group(1)} {k.group(1)}" if m and k else None


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"] and len(sys.argv) > 2:
        run(sys.argv[2:])
    elif sys.argv[1:2] == ["summary"] and len(sys.argv) == 4:
        summary(sys.argv[2], sys.argv[3], _named, 24)
    else:
        raise SystemExit(__doc__)
