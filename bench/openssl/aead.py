"""GCM, CCM and XTS through the cipherspec provider vs OpenSSL's own ciphers, and TLS 1.2 over loopback;
writes bench/results/openssl-aead.{md,json}.

    python bench/openssl/aead.py [--seconds 2] [--repeats 3] [--tls-mib 512] [--out bench/results]

What runs (one script, one machine, back to back):
  1. `cipherspec build aes128 aria128 lea128 --target openssl-provider` (the provider as shipped);
  2. a check before anything is timed: 1 MiB + 5 bytes through EVP, ours vs OpenSSL's built-in, byte for byte
     (ciphertext and tag) for every algorithm both have; LEA (no OpenSSL peer) decrypts back;
  3. `openssl speed -evp ALG -bytes SIZE` with -propquery provider=cipherspec and, where OpenSSL has the
     algorithm, provider=default, alternating, REPEATS times: the median of each (MB/s = 10^6 bytes per CPU second);
  4. TLS 1.2 (ECDHE-ARIA128-GCM-SHA256, ECDHE-RSA-AES128-GCM-SHA256): `openssl s_client` sends TLS_MIB MiB of
     random bytes to `openssl s_server` over 127.0.0.1, both ends preferring our provider, then both ends on
     OpenSSL's built-in ciphers, alternating; the bytes received are compared with the bytes sent; wall-clock MB/s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))

from openssl_tls import provider_config, tls_transfer  # noqa: E402

from driver import cli  # noqa: E402
from runtime.libcrypto import libcrypto  # noqa: E402
from runtime.openssl_aead import aead_evp  # noqa: E402

CIPHERS = ["aes128", "aria128", "lea128"]
ALGORITHMS = {  # ours -> does OpenSSL have it
    "AES-128-GCM": True,
    "ARIA-128-GCM": True,
    "LEA-128-GCM": False,
    "AES-128-CCM": True,
    "ARIA-128-CCM": True,
    "AES-128-XTS": True,
    "ARIA-128-XTS": False,
    "LEA-128-XTS": False,
}
SUITES = ["ECDHE-ARIA128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"]
SIZES = (1024, 16384)


def speed(modules: Path, alg: str, size: int, seconds: int, propq: str) -> float:
    cmd = ["openssl", "speed", "-provider-path", str(modules), "-provider", "cipherspec", "-provider", "default"]
    cmd += ["-propquery", propq, "-evp", alg, "-bytes", str(size), "-seconds", str(seconds)]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = re.search(rf"^{re.escape(alg)}\s+([\d.]+)k", p.stdout, re.M | re.I)
    if not m:
        raise SystemExit(f"bench: no figure in `openssl speed` output for {alg}:\n{p.stdout[-500:]}")
    return float(m.group(1)) * 1000 / 1e6


def check(modules: Path) -> None:
    lib = libcrypto()
    ours_ctx, theirs_ctx = lib.OSSL_LIB_CTX_new(), lib.OSSL_LIB_CTX_new()
    assert lib.OSSL_PROVIDER_load(ours_ctx, str(modules / "cipherspec.so").encode())
    assert lib.OSSL_PROVIDER_load(theirs_ctx, b"default")
    data = os.urandom((1 << 20) + 5)
    for alg, peer in ALGORITHMS.items():
        mode = alg[-3:].lower()
        key, iv = os.urandom(32 if mode == "xts" else 16), os.urandom(16 if mode == "xts" else 12)
        kw = {} if mode == "xts" else {"aad": b"header"}
        ours_c = lib.EVP_CIPHER_fetch(ours_ctx, alg.encode(), b"provider=cipherspec")
        ours = aead_evp(lib, ours_c, mode, True, key, iv, data=data, **kw)
        back = aead_evp(lib, ours_c, mode, False, key, iv, data=ours[0], **kw, **({"tag": ours[1]} if kw else {}))
        assert back[0] == data, alg
        if peer:
            theirs = aead_evp(lib, lib.EVP_CIPHER_fetch(theirs_ctx, alg.encode(), b"provider=default"), mode, True,
                              key, iv, data=data, **kw)  # fmt: skip
            assert ours == theirs, f"{alg}: our provider's output differs from OpenSSL's"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tls-mib", type=int, default=512)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cs-aead-bench-"))
    out = tmp / "provider"
    if cli.run(["build", *CIPHERS, "--target", "openssl-provider", "-o", str(out)]) != 0:
        raise SystemExit("bench: the provider build failed")
    modules = out / "lib" / "ossl-modules"
    check(modules)
    rows = []
    for alg, peer in ALGORITHMS.items():
        for size in SIZES:
            ours, theirs = [], []
            for _ in range(args.repeats):
                ours.append(speed(modules, alg, size, args.seconds, "provider=cipherspec"))
                if peer:
                    theirs.append(speed(modules, alg, size, args.seconds, "provider=default"))
            o = statistics.median(ours)
            t = statistics.median(theirs) if theirs else None
            rows.append({"algorithm": alg, "bytes": size, "ours": o, "openssl": t, "ratio": o / t if t else None})
            print(rows[-1], flush=True)
    src = tmp / "payload"
    with open(src, "wb") as f:
        for _ in range(args.tls_mib):
            f.write(os.urandom(1 << 20))
    so = modules / "cipherspec.so"
    prefer = provider_config(tmp / "prefer.cnf", so, True)
    builtin = provider_config(tmp / "builtin.cnf", so, False)
    tls = []
    for suite in SUITES if args.tls_mib > 0 else []:  # --tls-mib 0: the `openssl speed` rows only
        times: dict[str, list[float]] = {"ours": [], "openssl": []}
        for _ in range(args.repeats):
            for side, cnf in (("ours", prefer), ("openssl", builtin)):
                got, seconds = tls_transfer(tmp, src, suite, cnf, cnf, modules)
                if subprocess.run(["cmp", "-s", str(got), str(src)]).returncode != 0:
                    raise SystemExit(f"bench: {suite} ({side}): the bytes received differ from the bytes sent")
                times[side].append(seconds)
        mb = args.tls_mib * (1 << 20) / 1e6
        o, t = mb / statistics.median(times["ours"]), mb / statistics.median(times["openssl"])
        tls.append({"suite": suite, "mib": args.tls_mib, "ours": o, "openssl": t, "ratio": o / t})
        print(tls[-1], flush=True)
    cpu = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text())
    result = {"machine": cpu.group(1) if cpu else "?", "cores": os.cpu_count(), "speed": rows, "tls": tls}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "openssl-aead.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# AEAD through the OpenSSL provider vs OpenSSL's own ciphers",
        "",
        f"`python3 bench/openssl/aead.py --seconds {args.seconds} --repeats {args.repeats} --tls-mib {args.tls_mib}`"
        f" on {result['machine']} ({result['cores']} cores), one thread per process. Outputs checked against OpenSSL"
        " before timing; TLS bytes compared end to end.",
        "",
        "| algorithm | message bytes | ours MB/s | OpenSSL MB/s | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        theirs = f"{r['openssl']:,.0f}" if r["openssl"] else "—"
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] else "—"
        lines.append(f"| {r['algorithm']} | {r['bytes']:,} | {r['ours']:,.0f} | {theirs} | {ratio} |")
    lines += ["", "| TLS 1.2 suite (s_server <- s_client, loopback) | MiB | ours MB/s | built-in MB/s | ratio |"]
    lines += ["|---|---:|---:|---:|---:|"]
    for r in tls:
        lines.append(f"| {r['suite']} | {r['mib']} | {r['ours']:,.0f} | {r['openssl']:,.0f} | {r['ratio']:.2f}x |")
    (args.out / "openssl-aead.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
