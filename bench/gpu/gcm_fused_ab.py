"""The fused GCM kernels' routes, library against library: two or more `cipherspec build --target cuda` outputs of
the same ciphers (other checkouts, other generators) loaded side by side in one process, their outputs checked
against the C library's GCM, then each route timed with CUDA events (the library's gcm_util_time), the arms
alternating batch by batch, the median of the batches (the first round a warm-up).

The routes the fused kernels take on sm_80 and later (the tensor cores hash everything else):
  - one message under 256 KiB (CS_TGH_MIN_BLOCKS): P_gcm_long; ms a call of 4 KiB, 64 KiB and 200 KiB messages;
  - a batch with a record over 1 MiB (CS_TGB_MAX_BYTES): P_gcm_batch; 8 records of 2 MiB + 5 under 2 keys.

    python3 bench/gpu/gcm_fused_ab.py --arm base=/tmp/base-out --arm new=out --ciphers aes128,aria128,lea128 \
        [--reps 50] [--batches 7] [--out $OUT]          -> gcm-fused-ab.json, gcm-fused-ab.md under --out

Each arm's directory holds lib<schedule name>.so as `cipherspec build` wrote it (its default schedule's name).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arms_ab  # noqa: E402

from runtime.cuda_target import CudaCipher  # noqa: E402

LONG = (4096, 65536, 200 << 10)  # under CS_TGH_MIN_BLOCKS: the fused long-message kernel
BIG = [(2 << 20) + 5] * 8  # records over CS_TGB_MAX_BYTES: the fused batch kernel


def check(c: CudaCipher, cl, rng: np.random.Generator) -> str:
    """Long messages (both fused and tensor-core sizes) and a batch with records over 1 MiB against the C library."""
    keys = [rng.bytes(c.key_bytes) for _ in range(2)]
    ks, rks = [c.gcm_key(k) for k in keys], [cl.expand_key(k) for k in keys]
    bad = []
    for n in (0, 17, *LONG, (300 << 10) + 3):
        iv, aad, data = rng.bytes(12), rng.bytes(13), rng.bytes(n)
        if c.gcm_encrypt(ks[0], iv, aad, data, 16) != cl.gcm_encrypt(rks[0], iv, aad, data, 16):
            bad.append(f"long {n}")
    msgs = [(r % 2, rng.bytes(12), rng.bytes(13), rng.bytes(n), 16) for r, n in enumerate(BIG[:3] + [16384, 33, 0])]
    outs, tags = c.gcm_batch(ks, msgs)
    want = [cl.gcm_encrypt(rks[k], v, a, d, t) for k, v, a, d, t in msgs]
    if [(o, t) for o, t in zip(outs, tags)] != want:
        bad.append("batch over 1 MiB")
    return "equal" if not bad else "DIFFERENT: " + ", ".join(bad)


def routes(c: CudaCipher, rng: np.random.Generator, stack: contextlib.ExitStack) -> dict:
    """route -> call(reps, ms) of each fused route; the device buffers live as long as ``stack``."""
    key = c.gcm_key(rng.bytes(c.key_bytes))
    table = np.concatenate([c.gcm_key(rng.bytes(c.key_bytes)) for _ in range(2)]).astype(np.uint32)
    arr, aad_all, total = c.gcm_plan([(r % 2, rng.bytes(12), rng.bytes(13), n, 16) for r, n in enumerate(BIG)])
    aad_arr = np.frombuffer(aad_all, np.uint8).copy()
    size = max(total, max(LONG))
    din, dout, dtag, dkeys = (
        stack.enter_context(c.device_buffer(n)) for n in (size, size, 16 * len(BIG), table.nbytes)
    )
    din.upload(rng.integers(0, 256, size, dtype=np.uint8))
    dkeys.upload(table.view(np.uint8))
    aad = rng.bytes(13)
    stack.callback(lambda: (key, arr, aad_arr))  # (host arrays the calls point into, kept alive with the buffers)

    out = {}
    for n in LONG:
        out[f"long {n // 1024} KiB"] = arms_ab.gcm_timed(
            c, key.ctypes.data, None, None, 0, aad, len(aad), din.ptr, dout.ptr, n, dtag.ptr, 0
        )
    out[f"batch {len(BIG)} x 2 MiB"] = arms_ab.gcm_timed(
        c, None, dkeys.ptr, arr.ctypes.data, len(BIG), aad_arr.ctypes.data, 2, din.ptr, dout.ptr, total, dtag.ptr, 1
    )
    return out


def main(argv: list[str]) -> int:
    return arms_ab.main(
        argv,
        __doc__,
        "aes128,aria128,lea128",
        50,
        check,
        routes,
        "gcm-fused-ab",
        "us",
        lambda r, ms: f"{ms * 1000:.1f}",
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
