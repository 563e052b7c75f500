"""One launch of a route of an arm's library (a `cipherspec build --target cuda` output, any tree), for Nsight
Compute to profile: ECB encryption or decryption of 64 MiB, or a 64 MiB CTR keystream, through the library's
util_time (one call).

    ncu --kernel-name regex:_ecb_enc_ptx --launch-count 1 --section WarpStateStats \\
        python3 bench/gpu/arm_launch.py --arm /tmp/out/keyorder --cipher aes128 --route ecb_enc
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from arms_ab import load  # noqa: E402

from cipherspec.registry import Registry  # noqa: E402
from runtime.cuda_target import FLAVOUR, _ptr  # noqa: E402

ROUTES = {"ecb_enc": (0, 0), "ecb_dec": (0, 1), "ctr": (1, 0)}  # util_time's mode, decrypt


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arm", required=True, help="the directory cipherspec build wrote")
    ap.add_argument("--cipher", default="aes128")
    ap.add_argument("--route", choices=sorted(ROUTES), default="ecb_enc")
    a = ap.parse_args(argv)
    c = load(Registry(), a.cipher, Path(a.arm))
    rk = c.expand_key(bytes(range(c.key_bytes)))
    iv = np.zeros(16, np.uint8)
    n = 64 << 20
    mode, dec = ROUTES[a.route]
    ms = (ctypes.c_float * 1)()
    with c.device_buffer(n) as din, c.device_buffer(n) as dout:
        src = None if a.route == "ctr" else din.ptr
        rc = c.fn("util_time")(rk.ctypes.data, mode, dec, _ptr(iv), src, dout.ptr, n, FLAVOUR[c.sched.flavour], 1, ms)
        c.check(rc, a.route)
    print(f"{a.cipher} {a.route}: {n * 8 / (ms[0] / 1000) / 1e9:.0f} Gbps (one call, under the profiler)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
