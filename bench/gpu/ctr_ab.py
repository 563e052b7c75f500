"""CTR and ECB, library against library: two or more `cipherspec build --target cuda` outputs of the same ciphers
(other checkouts, other generators) loaded side by side in one process, their outputs checked against the C
library, then each route timed with CUDA events (the library's util_time: `reps` back-to-back calls), the arms
alternating batch by batch, the median of the batches (the first round a warm-up).

Routes, device-resident: a 1 GiB CTR keystream, 1 GiB CTR XOR, 256 MiB ECB encryption and decryption (the
decrypt core runs only there).

    python3 bench/gpu/ctr_ab.py --arm base=/tmp/base-out --arm new=out --ciphers aes128,aria128 \
        [--reps 10] [--batches 7] [--out $OUT]          -> ctr-ab.json, ctr-ab.md under --out
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import arms_ab  # noqa: E402

from runtime.cuda_target import FLAVOUR, _ptr  # noqa: E402

CTR_BYTES = 1 << 30
ECB_BYTES = 256 << 20


def check(c, cl, rng: np.random.Generator) -> str:
    """CTR (device and host entries, a partial last block) and ECB both ways against the C library."""
    key = rng.bytes(c.key_bytes)
    rk, crk = c.expand_key(key), cl.expand_key(key)
    bad = []
    for n in (16, 1000, (1 << 20) + 7):
        iv, data = rng.bytes(16), rng.bytes(n)
        want = cl.run_mode(crk, "ctr", "encrypt", data, iv)
        if c.device_ctr(rk, iv, data) != want or c.device_ctr(rk, iv, None, n) != cl.run_mode(
            crk, "ctr", "encrypt", bytes(n), iv
        ):
            bad.append(f"ctr {n}")
    data = rng.bytes(1 << 20)
    enc = cl.run_mode(crk, "ecb", "encrypt", data)
    if c.device_ecb(rk, data) != enc or c.device_ecb(rk, enc, decrypt=True) != data:
        bad.append("ecb")
    return "equal" if not bad else "DIFFERENT: " + ", ".join(bad)


def routes(c, rng: np.random.Generator, stack: contextlib.ExitStack) -> dict:
    """route -> call(reps, ms); the device buffers live as long as ``stack``."""
    rk = c.expand_key(rng.bytes(c.key_bytes))
    iv = np.frombuffer(rng.bytes(16), np.uint8).copy()
    din, dout = (stack.enter_context(c.device_buffer(CTR_BYTES)) for _ in range(2))
    stack.callback(lambda: (rk, iv))  # (host arrays the calls point into, kept alive with the buffers)
    din.upload(rng.integers(0, 256, CTR_BYTES, dtype=np.uint8))
    fl = FLAVOUR[c.sched.flavour]
    f = c.fn("util_time")

    def timed(mode, dec, src, n):
        return lambda reps, ms: c.check(
            f(rk.ctypes.data, mode, dec, _ptr(iv), src, dout.ptr, n, fl, reps, ms), "util_time"
        )

    return {
        "CTR keystream 1 GiB": timed(1, 0, None, CTR_BYTES),
        "CTR XOR 1 GiB": timed(1, 0, din.ptr, CTR_BYTES),
        "ECB encrypt 256 MiB": timed(0, 0, din.ptr, ECB_BYTES),
        "ECB decrypt 256 MiB": timed(0, 1, din.ptr, ECB_BYTES),
    }


def gbps(route: str, ms: float) -> str:
    return f"{(CTR_BYTES if route.startswith('CTR') else ECB_BYTES) * 8 / (ms / 1000) / 1e9:.0f}"


def main(argv: list[str]) -> int:
    return arms_ab.main(argv, __doc__, "aes128,aria128", 10, check, routes, "ctr-ab", "Gbps", gbps)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
