"""A small GCM workload for compute-sanitizer (memcheck: out-of-bounds and misaligned accesses; racecheck: the
GHASH trees' shared-memory hazards): long messages of several slices, a batch, a failed decryption's wipe.

    compute-sanitizer --tool racecheck --error-exitcode 3 python3 bench/gpu/gcm_sanitize.py [lea128:,aes128:]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.errors import AuthenticationError  # noqa: E402
from cipherspec.registry import Registry  # noqa: E402
from generator.ptx import BACKEND as CUDA_BACKEND  # noqa: E402


def run(name: str, sched: str | None) -> None:
    c = CUDA_BACKEND.load(Registry(), name, None, sched)
    rng = np.random.default_rng(5)
    k = c.gcm_key(rng.bytes(c.key_bytes))
    for n in (0, 17, 4096 + 3, 1 << 20):
        ct, tag = c.gcm_encrypt(k, rng.bytes(12), rng.bytes(7), rng.bytes(n))
        try:
            c.gcm_decrypt(k, rng.bytes(12), b"", ct, tag)
        except AuthenticationError:
            pass
    msgs = [(0, rng.bytes(12), rng.bytes(13), rng.bytes(m)) for m in (16384, 16384, 100, 0, 70000)]
    outs, tags = c.gcm_batch([k], msgs)
    c.gcm_batch([k], [(0, iv, a, o) for (_, iv, a, _), o in zip(msgs, outs)], decrypt=True, tags=tags[::-1])
    print(f"sanitize {name} {c.schedule_name}: ok", flush=True)


if __name__ == "__main__":
    for job in (sys.argv[1] if len(sys.argv) > 1 else "lea128:").split(","):
        n, _, s = job.partition(":")
        run(n, s or None)
