"""The GCM routes whose GHASH runs on the tensor cores, library against library (gcm_fused_ab.py's frame,
arms_ab.py): two or more `cipherspec build --target cuda` outputs of the same ciphers loaded side by side in one
process, their outputs checked against the C library's GCM, then each route timed with CUDA events (the
library's gcm_util_time), the arms alternating batch by batch, the median of the batches (the first a warm-up).

The routes, on sm_80 and later:
  - a batch of records under at most 16 keys (CS_GCM_KEYED_MAX), each at most 64 KiB: the keyed keystream
    (P_gcm_ks_seg, a warp a record with its key's round keys in shared memory), then the records' hashing;
    4,096 records of 16 KiB under 16 keys;
  - the same records under 64 keys: the resident keystream kernel (P_gcm_keystream, the round keys staged in
    shared memory a slice at a time);
  - one message of 8 MiB (from CS_TGH_MIN_BLOCKS up): the CTR kernel's keystream, then the hashing levels.
Made for the family compile's question (bench/results/cuda-build-time.md): do these kernels keep their speed
with the round count read at run time (branch trips-even)?

    python3 bench/gpu/gcm_tc_ab.py --arm base=/tmp/base-out --arm even=out --ciphers aes128,aes256,aria128 \
        [--reps 20] [--batches 7] [--out $OUT]          -> gcm-tc-ab.json, gcm-tc-ab.md under --out
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arms_ab  # noqa: E402

from runtime.cuda_target import CudaCipher  # noqa: E402

RECORDS, RECORD = 4096, 16384  # a batch: 64 MiB of 16 KiB records
LONG = 8 << 20  # one message on the tensor cores' route


def check(c: CudaCipher, cl, rng: np.random.Generator) -> str:
    """A long message on the tensor cores' route and batches under 16 and 64 keys against the C library."""
    bad = []
    keys = [rng.bytes(c.key_bytes) for _ in range(64)]
    ks, rks = [c.gcm_key(k) for k in keys], [cl.expand_key(k) for k in keys]
    iv, aad, data = rng.bytes(12), rng.bytes(13), rng.bytes((1 << 20) + 7)
    if c.gcm_encrypt(ks[0], iv, aad, data, 16) != cl.gcm_encrypt(rks[0], iv, aad, data, 16):
        bad.append("long 1 MiB")
    for nk in (16, 64):
        msgs = [(r % nk, rng.bytes(12), rng.bytes(13), rng.bytes(n), 16) for r, n in enumerate([RECORD] * 96 + [33, 0])]
        outs, tags = c.gcm_batch(ks[:nk], msgs)
        want = [cl.gcm_encrypt(rks[k], v, a, d, t) for k, v, a, d, t in msgs]
        if [(o, t) for o, t in zip(outs, tags)] != want:
            bad.append(f"batch under {nk} keys")
    return "equal" if not bad else "DIFFERENT: " + ", ".join(bad)


def routes(c: CudaCipher, rng: np.random.Generator, stack: contextlib.ExitStack) -> dict:
    """route -> call(reps, ms) of each tensor-core route; the device buffers live as long as ``stack``."""
    key = c.gcm_key(rng.bytes(c.key_bytes))
    table = np.concatenate([c.gcm_key(rng.bytes(c.key_bytes)) for _ in range(64)]).astype(np.uint32)
    plans = {
        nk: c.gcm_plan([(r % nk, rng.bytes(12), rng.bytes(13), RECORD, 16) for r in range(RECORDS)]) for nk in (16, 64)
    }
    size = max(LONG, plans[16][2])
    din, dout, dtag, dkeys = (stack.enter_context(c.device_buffer(n)) for n in (size, size, 16 * RECORDS, table.nbytes))
    din.upload(rng.integers(0, 256, size, dtype=np.uint8))
    dkeys.upload(table.view(np.uint8))
    aad = rng.bytes(13)
    arrays = {nk: (arr, np.frombuffer(aad_all, np.uint8).copy(), total) for nk, (arr, aad_all, total) in plans.items()}
    stack.callback(lambda: (key, arrays))  # (host arrays the calls point into, kept alive with the buffers)

    out = {}
    for nk, name in ((16, "keyed"), (64, "resident")):
        arr, aad_arr, total = arrays[nk]
        out[f"batch {RECORDS} x 16 KiB, {nk} keys ({name})"] = arms_ab.gcm_timed(
            c, None, dkeys.ptr, arr.ctypes.data, RECORDS, aad_arr.ctypes.data, nk, din.ptr, dout.ptr, total, dtag.ptr, 1
        )  # (aad_len: the key table's size in keys -- its first nk, so that the keyed route may take 16)
    out[f"long {LONG >> 20} MiB"] = arms_ab.gcm_timed(
        c, key.ctypes.data, None, None, 0, aad, len(aad), din.ptr, dout.ptr, LONG, dtag.ptr, 0
    )
    return out


def main(argv: list[str]) -> int:
    return arms_ab.main(
        argv, __doc__, "aes128,aes256,aria128", 20, check, routes, "gcm-tc-ab", "us", lambda r, ms: f"{ms * 1000:.1f}"
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
