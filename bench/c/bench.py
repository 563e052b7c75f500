"""Host throughput of the generated C (every cipher, every C schedule, ECB and CTR encryption) and of the
peers (Crypto++, OpenSSL with and without AES-NI), in one run; every output is verified.

    python bench/c/bench.py [--mb 64] [--reps 3] [--peers bench/c/peers] [--only REGEX] [--out bench/results]
                            [--spec FILE ...]

Input: byte i = (i * 131 + (i >> 8)) & 0xff; key = 00 01 02 ..; IV = f0 f1 ...  Verification: the first
64 KiB of every output equals the interpreter's; the whole output's SHA-256 is equal across our schedules
and equal to the peer's where a peer runs the same cipher.  CHAM is compared at the peer's (original)
round counts (80/80/96).  Cycles/byte use the TSC-nominal clock (cpu MHz of /proc/cpuinfo), as SUPERCOP.
The library is compiled for the host (-O3 -march=native, the runtime's flags).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cipherspec import modes  # noqa: E402
from cipherspec.registry import Registry  # noqa: E402
from driver.targets import make_cipher as make_ref_cipher  # noqa: E402

from generator.c.schedules import c_schedules  # noqa: E402
from generator.c import BACKEND as C_BACKEND  # noqa: E402

make_cipher = C_BACKEND.load

PEER_ROUNDS = {"cham64_128": 80, "cham128_128": 80, "cham128_256": 96}
CRYPTOPP = {"lea128", "lea192", "lea256", "cham64_128", "cham128_128", "cham128_256", "hight",
            "aria128", "aria192", "aria256"}
OPENSSL = {"aria128", "aria192", "aria256", "aes128", "aes192", "aes256"}
NO_AESNI = "~0x200000200000000"


def pattern(n: int) -> np.ndarray:
    i = np.arange(n, dtype=np.uint64)
    return ((i * np.uint64(131) + (i >> np.uint64(8))) & np.uint64(0xFF)).astype(np.uint8)


def cpu_info() -> tuple[str, float]:
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.*)", text)
    mhz = re.search(r"cpu MHz\s*:\s*([\d.]+)", text)
    return (model.group(1).strip() if model else platform.processor()), (float(mhz.group(1)) if mhz else 0.0)


def time_ours(c, rk, mode: str, data: np.ndarray, iv: bytes, reps: int) -> tuple[float, np.ndarray]:
    """Best wall time of one library call over the whole buffer (ctypes overhead is one call)."""
    from runtime.c_target import _ptr

    n = data.size
    out = np.empty(n, np.uint8)
    best = 1e30
    for _ in range(reps):
        ivb = np.frombuffer(iv, np.uint8).copy()
        t0 = time.perf_counter()
        if mode == "ecb":
            rc = c.fn["ecb_encrypt"](_ptr(rk), _ptr(data), _ptr(out), n)
        else:
            rc = c.fn["ctr"](_ptr(rk), _ptr(ivb), _ptr(data), _ptr(out), n)
        best = min(best, time.perf_counter() - t0)
        assert rc == 0
    return best, out


def run_peer(peers: Path, lib: str, cipher: str, mode: str, mb: int, reps: int, env=None):
    p = subprocess.run([str(peers), lib, cipher, mode, str(mb), str(reps)], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    if p.returncode != 0:
        return None
    secs, digest = p.stdout.split()
    return float(secs), digest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--peers", default=str(ROOT / "bench" / "c" / "peers"))
    ap.add_argument("--only", default="")
    ap.add_argument("--schedules", default=None, help="only our schedules whose full name matches this regex")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--spec", action="append", default=[], help="also a cipher spec file of your own (repeatable)")
    args = ap.parse_args(argv)
    reg = Registry(extra=[Path(p) for p in args.spec])
    size = args.mb << 20
    data = pattern(size)
    model, mhz = cpu_info()
    peers = Path(args.peers)
    rows = []
    for name in reg.names():
        if args.only and not re.search(args.only, name):
            continue
        rounds = PEER_ROUNDS.get(name)
        module = reg.module(name, rounds)
        ref = make_ref_cipher(reg, name, rounds, "ref")
        key = bytes(range(module.key.nbytes))
        iv = bytes(range(0xF0, 0xF0 + module.block.nbytes))
        rr = ref.expand_key(key)
        head = data[: 64 << 10].tobytes()
        want = {"ecb": modes.ecb_encrypt(ref, rr, head), "ctr": modes.ctr(ref, rr, iv, head)[0]}
        label = name + (f" r{rounds}" if rounds else "")
        for mode in ("ecb", "ctr"):
            digests = {}
            for sched in c_schedules(module, rounds):
                if args.schedules and not re.search(args.schedules, sched.name):
                    continue
                c = make_cipher(reg, name, rounds, sched.name)
                rk = c.expand_key(key)
                secs, out = time_ours(c, rk, mode, data, iv, args.reps)
                if out[: 64 << 10].tobytes() != want[mode]:
                    raise SystemExit(f"{sched.name} {mode}: output differs from the interpreter")
                digest = hashlib.sha256(out.tobytes()).hexdigest()
                digests[sched.name] = digest
                rows.append({"cipher": label, "name": name, "mode": mode, "impl": sched.name.split("_c_", 1)[1],
                             "kind": "ours", "secs": secs, "digest": digest})
                print(f"{label:16} {mode} {rows[-1]['impl']:22} {size / secs / 1e6:9.1f} MB/s", flush=True)
            if len(set(digests.values())) != 1:
                raise SystemExit(f"{name} {mode}: schedules disagree: {digests}")
            ours = next(iter(digests.values()))
            peer_runs = []
            if name in CRYPTOPP:
                peer_runs.append(("Crypto++ 8.7", "cryptopp", None))
            if name in OPENSSL:
                peer_runs.append(("OpenSSL 3" + (" (AES-NI)" if name.startswith("aes") else ""), "openssl", None))
                if name.startswith("aes"):
                    peer_runs.append(("OpenSSL 3 (no AES-NI)", "openssl", {"OPENSSL_ia32cap": NO_AESNI}))
            for title, lib, env in peer_runs:
                got = run_peer(peers, lib, name, mode, args.mb, args.reps, env) if peers.exists() else None
                if got is None:
                    print(f"{label:16} {mode} {title}: not available", flush=True)
                    continue
                secs, digest = got
                if digest != ours:
                    raise SystemExit(f"{name} {mode} {title}: output differs from ours ({digest} vs {ours})")
                rows.append({"cipher": label, "name": name, "mode": mode, "impl": title, "kind": "peer",
                             "secs": secs, "digest": digest})
                print(f"{label:16} {mode} {title:22} {size / secs / 1e6:9.1f} MB/s", flush=True)
    for r in rows:
        r["mbps"] = size / r["secs"] / 1e6
        r["cpb"] = r["secs"] * mhz * 1e6 / size if mhz else 0.0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "c-host.json").write_text(json.dumps({"cpu": model, "mhz": mhz, "mb": args.mb, "reps": args.reps,
                                                  "rows": rows}, indent=1, sort_keys=True) + "\n")
    from report import write_report  # noqa: E402  (bench/c/report.py)

    write_report(out, rows, model, mhz, args.mb, args.reps)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
