"""Runs every placement's kernels once (the multi-key CTR_DRBG kernel too), small, checked against the interpreter: the workload that
bench/gpu/run.sh puts under compute-sanitizer (memcheck, racecheck).  Exit status 1 on a mismatch.

    compute-sanitizer --tool racecheck --error-exitcode 3 python3 bench/gpu/sanitize.py [drbg|layouts]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec import modes  # noqa: E402
from cipherspec.blockcipher import RefCipher  # noqa: E402
from cipherspec.drbg import BulkRequest  # noqa: E402
from cipherspec.registry import Registry  # noqa: E402
from generator.ptx import BACKEND as CUDA_BACKEND  # noqa: E402

# every cipher family's shipped default (None: what `cipherspec build` picks; AES/ARIA: the bitsliced round
# loops), then the opt-in table placements
DEFAULTS = [(n, None) for n in ("aes128", "aria128", "lea128", "cham64_128", "cham128_128", "hight", "pipo64_128")]
PLACEMENTS = (
    DEFAULTS
    + [("aes128", f"rk-const_tab-{t}") for t in ("const", "global", "shared", "shared4", "shared32")]
    + [
        ("aes128", "rk-shared_tab-shared8_ilp2"),
        ("aria128", "rk-shared_tab-shared32"),
        ("lea128", "rk-const"),
        ("lea128", "rk-shared"),
        ("cham64_128", "rk-reg"),
        ("cham128_128", "rk-shared_t1024"),
        ("hight", "rk-const"),
        ("pipo64_128", "rk-shared_t32_ilp3"),
    ]
)
# the lane layouts (`sanitize.py layouts`): byte-packed and bitsliced, rk in the constant bank and in shared memory
LANES = [
    ("hight", "swar_t64_ilp2_rk-shared"),
    ("pipo64_128", "swar_t128"),
    ("pipo64_128", "bs_t64_rk-shared"),
    ("aes128", "bs_t128"),  # the constant-time defaults (round loops)
    ("aria128", "bs_t128"),
    ("aes128", "tt_tab-shared32_t512"),
    ("aes128", "tt4_tab-shared8_rk-shared"),
]


# `sanitize.py drbg`: only the multi-key (CTR_DRBG bulk) kernel, on each DRBG cipher's build default
DRBG = [("aes128", None), ("lea128", None), ("hight", None), ("cham128_128", None), ("aria128", None)]


def multi_only(reg, rng) -> int:
    bad = 0
    for name, text in DRBG:
        c, ref = CUDA_BACKEND.load(reg, name, None, text), RefCipher(reg.module(name))
        B = c.block_bytes
        plan = [
            BulkRequest(rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes(), v, nb, nb * B - cut)
            for v, nb, cut in (
                (b"\xff" * (B - 4) + b"\xff\xff\xff\xfe", 4096, 0),
                (b"\xff" * B, 700, 0),
                (bytes(B), 1100, 0),
                (bytes(B), 33, 3),
            )
        ]
        want = b"".join(
            modes.ctr(ref, ref.expand_key(r.key), modes.ctr_next_iv(r.v, 1), bytes(r.nbytes))[0] for r in plan
        )
        ok = all(c.keystream_multi(plan, flavour=fl) == want for fl in ("ptx", "c"))
        print(f"sanitize {c.schedule_name} multi-key: {'ok' if ok else 'MISMATCH'}", flush=True)
        bad += not ok
    return bad


def main() -> int:
    reg = Registry()
    rng = np.random.default_rng(5)
    if sys.argv[1:] == ["drbg"]:
        return 1 if multi_only(reg, rng) else 0
    bad = 0
    for name, text in LANES if sys.argv[1:] == ["layouts"] else PLACEMENTS:
        c, ref = CUDA_BACKEND.load(reg, name, None, text), RefCipher(reg.module(name))
        B = c.block_bytes
        key = rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes()
        rk, rkr = c.expand_key(key), ref.expand_key(key)
        iv = (b"\xff" * (B - 4)) + b"\xff\xff\xff\xfe"  # crosses the 2^32 and whole-block carries
        data = rng.integers(0, 256, 3000 * B + 3, dtype=np.uint8).tobytes()
        want, _ = modes.ctr(ref, rkr, iv, data)
        pt = rng.integers(0, 256, (1500, B), dtype=np.uint8)
        ct = ref.encrypt_blocks(rkr, pt).tobytes()
        ok = True
        for fl in ("ptx", "c"):
            ok &= c.device_ctr(rk, iv, data, flavour=fl) == want
            ks = np.frombuffer(c.device_ctr(rk, iv, None, len(data), flavour=fl), np.uint8)
            ok &= (ks ^ np.frombuffer(data, np.uint8)).tobytes() == want
            ok &= c.device_ecb(rk, pt.tobytes(), False, fl) == ct
            ok &= c.device_ecb(rk, ct, True, fl) == pt.tobytes()
        ok &= c.ctr(rk, iv, data, nstreams=3) == want
        plan = [
            BulkRequest(rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes(), v, nb, nb * B - cut)
            for v, nb, cut in ((iv, 4096, 0), (b"\xff" * B, 700, 0), (bytes(B), 33, 3))
        ]
        want_m = b"".join(
            modes.ctr(ref, ref.expand_key(r.key), modes.ctr_next_iv(r.v, 1), bytes(r.nbytes))[0] for r in plan
        )
        for fl in ("ptx", "c"):
            ok &= c.keystream_multi(plan, flavour=fl) == want_m
        print(f"sanitize {c.schedule_name}: {'ok' if ok else 'MISMATCH'}", flush=True)
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
