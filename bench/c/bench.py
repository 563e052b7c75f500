"""Host throughput of the C libraries as shipped (every cipher's default library, every kernel variant this
CPU runs, ECB and CTR encryption) and of the peers (Crypto++, OpenSSL with and without AES-NI), in one run;
every output is verified.

    python bench/c/bench.py [--mb 64] [--reps 3] [--peers bench/c/peers] [--only REGEX] [--schedules REGEX]
                            [--build-time] [--out bench/results] [--spec FILE ...]

The libraries are what `cipherspec build` ships: generator.c.build.build_shared links the same objects (the
same sources, flags and ISA variants; no -march=native), and the run refuses CIPHERSPEC_LIB_CFLAGS.  A
variant is run by setting up its keys with <cipher>_set_key_isa; the default one is what the dispatcher
picks on this CPU.  --schedules REGEX adds other schedules (e.g. bitsliced_v32, sliced_v16 tables).
--build-time first times `cipherspec build --all --target c` into a temporary directory with an empty cache.
Input: byte i = (i * 131 + (i >> 8)) & 0xff; key = 00 01 02 ..; IV = f0 f1 ...  Verification: the first
64 KiB of every output equals the interpreter's; the whole output's SHA-256 is equal across our variants
and equal to the peer's where a peer runs the same cipher.  CHAM is compared at the peer's (original)
round counts (80/80/96).  Cycles/byte use the TSC-nominal clock (cpu MHz of /proc/cpuinfo), as SUPERCOP.
The load average is recorded before and after: the machine may be shared.
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
from generator.c import BACKEND as C_BACKEND  # noqa: E402
from generator.c.schedules import c_schedules  # noqa: E402

make_cipher = C_BACKEND.load

PEER_ROUNDS = {"cham64_128": 80, "cham128_128": 80, "cham128_256": 96}
CRYPTOPP = {
    "lea128",
    "lea192",
    "lea256",
    "cham64_128",
    "cham128_128",
    "cham128_256",
    "hight",
    "aria128",
    "aria192",
    "aria256",
}
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


def time_ours(c, rk, mode: str, data: np.ndarray, iv: bytes, reps: int) -> tuple[float, float, np.ndarray]:
    """Best wall time (as the peers measure) and best thread CPU time of one library call over the whole
    buffer (ctypes overhead is one call)."""
    from runtime.c_library import address

    n = data.size
    out = np.empty(n, np.uint8)
    best, best_cpu = 1e30, 1e30
    for _ in range(reps):
        ivb = np.frombuffer(iv, np.uint8).copy()
        t0, c0 = time.perf_counter(), time.thread_time()
        if mode == "ecb":
            rc = c.fn["ecb_encrypt"](address(rk), data.ctypes.data, out.ctypes.data, n)
        else:
            rc = c.fn["ctr"](address(rk), ivb.ctypes.data, data.ctypes.data, out.ctypes.data, n)
        best, best_cpu = min(best, time.perf_counter() - t0), min(best_cpu, time.thread_time() - c0)
        assert rc == 0
    return best, best_cpu, out


def run_peer(peers: Path, lib: str, cipher: str, mode: str, mb: int, reps: int, env=None):
    p = subprocess.run(
        [str(peers), lib, cipher, mode, str(mb), str(reps)],
        capture_output=True,
        text=True,
        env=dict(os.environ, **(env or {})),
    )
    if p.returncode != 0:
        return None
    secs, digest = p.stdout.split()
    return float(secs), digest


def build_time() -> dict:
    """`cipherspec build --all --target c` with an empty cache: wall and CPU seconds of the whole command."""
    import resource
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, CIPHERSPEC_CACHE=str(Path(d) / "cache"))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "driver", "build", "--all", "--target", "c", "-o", str(Path(d) / "out")],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall": wall,
        "user": after.ru_utime - before.ru_utime,
        "sys": after.ru_stime - before.ru_stime,
        "cpus": os.cpu_count(),
        "load": os.getloadavg(),
    }


def our_rows(reg, name, rounds, sched, key, iv, data, want, args, label, size) -> list[dict]:
    """Every variant of one library this CPU runs, ECB and CTR; outputs checked."""
    c = make_cipher(reg, name, rounds, sched)
    rows = []
    for variant in c.variants():
        cv = c.with_isa(variant)
        if cv.variant_for(variant) != variant:
            continue  # compiled, but this CPU lacks it
        rk = cv.expand_key(key)
        for mode in ("ecb", "ctr"):
            secs, cpu, out = time_ours(cv, rk, mode, data, iv, args.reps)
            if out[: 64 << 10].tobytes() != want[mode]:
                raise SystemExit(f"{c.schedule.name} {variant} {mode}: output differs from the interpreter")
            rows.append(
                {
                    "cipher": label,
                    "name": name,
                    "mode": mode,
                    "impl": c.schedule.name.split("_c_", 1)[1],
                    "variant": variant,
                    "default": variant == c.variant,
                    "kind": "ours",
                    "secs": secs,
                    "cpu": cpu,
                    "digest": hashlib.sha256(out.tobytes()).hexdigest(),
                }
            )
            print(f"{label:16} {mode} {rows[-1]['impl']:22} {variant:12} {size / secs / 1e6:9.1f} MB/s", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--peers", default=str(ROOT / "bench" / "c" / "peers"))
    ap.add_argument("--only", default="")
    ap.add_argument("--schedules", default=None, help="also our schedules whose name matches this regex")
    ap.add_argument("--build-time", action="store_true", help="time `cipherspec build --all` (empty cache) first")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--spec", action="append", default=[], help="also a cipher spec file of your own (repeatable)")
    args = ap.parse_args(argv)
    if os.environ.get("CIPHERSPEC_LIB_CFLAGS"):
        raise SystemExit("CIPHERSPEC_LIB_CFLAGS is set: the benchmark measures the libraries as shipped; unset it")
    load_before = os.getloadavg()
    build = build_time() if args.build_time else None
    if build:
        print(
            f"build --all --target c: {build['wall']:.1f} s wall, {build['user']:.1f} s user, "
            f"{build['sys']:.1f} s sys on {build['cpus']} CPUs (load {build['load'][0]:.1f})",
            flush=True,
        )
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
        extra = [s.name for s in c_schedules(module, rounds) if args.schedules and re.search(args.schedules, s.name)]
        mine = []
        for sched in dict.fromkeys([None] + extra):
            mine += our_rows(reg, name, rounds, sched, key, iv, data, want, args, label, size)
        rows += mine
        for mode in ("ecb", "ctr"):
            digests = {(r["impl"], r["variant"]): r["digest"] for r in mine if r["mode"] == mode}
            if len(set(digests.values())) != 1:
                raise SystemExit(f"{name} {mode}: variants disagree: {digests}")
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
                rows.append(
                    {
                        "cipher": label,
                        "name": name,
                        "mode": mode,
                        "impl": title,
                        "kind": "peer",
                        "secs": secs,
                        "digest": digest,
                    }
                )
                print(f"{label:16} {mode} {title:22} {size / secs / 1e6:9.1f} MB/s", flush=True)
    for r in rows:
        r["mbps"] = size / r["secs"] / 1e6
        r["cpb"] = r["secs"] * mhz * 1e6 / size if mhz else 0.0
    meta = {
        "cpu": model,
        "mhz": mhz,
        "mb": args.mb,
        "reps": args.reps,
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "build": build,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "c-host.json").write_text(json.dumps(dict(meta, rows=rows), indent=1, sort_keys=True) + "\n")
    from report import write_report  # noqa: E402  (bench/c/report.py)

    write_report(out, rows, meta)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
