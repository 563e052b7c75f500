"""What the constant-time key schedule costs the CUDA libraries' set_key on the host: the key section of each
shipped cipher's default .cu (generator/ptx/keysched.py: S-boxes as circuits) against the same key schedule
with table lookups (ct=False), both compiled with g++ -std=c++17 -O3 as nvcc's host pass does.  It matters
where a call expands many keys: the multi-key CTR entry (CTR_DRBG bulk) runs set_key's function once per
request on the host.

    PYTHONPATH=. python3 bench/gpu/host_keysched.py [--keys N] [--only aes128,aria128]

Verified, not optimised away: every key is different (a function of the run-time seed), the round keys of
all keys are folded into a checksum that is printed; the circuit and the table versions must agree on it,
and the first key's round keys must equal the interpreter's.  Prints a Markdown table (ns per key).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from cipherspec.blockcipher import RefCipher
from cipherspec.registry import Registry
from generator.ptx.build import schedule_for
from generator.ptx.keysched import KeySection, key_section
from generator.ptx.placement import rk_index
from generator.ptx.source import prepared

MAIN = r"""
#include <chrono>
int main(int argc, char **argv)
{
    const unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1u;
    const long n = argc > 2 ? atol(argv[2]) : 1000;
    static uint8_t key[KB];
    static uint32_t rk[NRK];
    uint64_t sum = 0;
    for (int j = 0; j < KB; ++j) key[j] = (uint8_t)(seed * 7u + (unsigned)j);
    ENTRY(key, rk);
    for (int i = 0; i < NRK; ++i) printf("%u ", rk[i]);
    printf("\n");
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < n; ++k) {
        for (int j = 0; j < KB; ++j) key[j] = (uint8_t)(seed * 7u + (unsigned)j + (unsigned)k * 131u + (unsigned)(k >> 8));
        ENTRY(key, rk);
        for (int i = 0; i < NRK; ++i) sum = (sum ^ rk[i]) * 0x100000001b3ull;
    }
    const auto t1 = std::chrono::steady_clock::now();
    printf("%llu %.1f\n", (unsigned long long)sum, std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
    return 0;
}
"""


def _run(tmp: Path, tag: str, sec: KeySection, key_bytes: int, keys: int) -> tuple[list[int], int, float]:
    src = tmp / f"{tag}.cpp"
    head = "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    defs = f"#define KB {key_bytes}\n#define NRK {sec.words}\n#define ENTRY {sec.entry}\n"
    src.write_text(head + sec.text + defs + MAIN)
    exe = tmp / tag
    subprocess.run(["g++", "-std=c++17", "-O3", "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe), "1", str(keys)], capture_output=True, text=True, check=True).stdout.splitlines()
    first = [int(w) for w in out[0].split()]
    checksum, ns = out[1].split()
    return first, int(checksum), float(ns)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, default=20000)
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    reg = Registry()
    names = args.only.split(",") if args.only else reg.names()
    print("| cipher | schedule | set_key, circuits (ns/key) | set_key, tables (ns/key) | ratio |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name in names:
            base = reg.module(name)
            sched = schedule_for(base, None)
            module = prepared(base, sched)
            key = bytes((7 + j) & 0xFF for j in range(module.key.nbytes))
            want = RefCipher(module).expand_key(key)
            want_rk = [int(np.asarray(want[n]).reshape(-1)[0]) for n in rk_index(module)]
            res = {}
            for ct in (True, False):
                sec = key_section(module, "cs_bench", ct=ct)
                res[ct] = _run(tmp, f"{name}_{ct}", sec, module.key.nbytes, args.keys)
                if res[ct][0][: len(want_rk)] != want_rk:
                    sys.exit(f"{name}: round keys differ from the interpreter's (ct={ct})")
            if res[True][1] != res[False][1]:
                sys.exit(f"{name}: circuit and table key schedules disagree over {args.keys} keys")
            c, t = res[True][2], res[False][2]
            print(f"| {name} | {sched.name(base)} | {c:.0f} | {t:.0f} | {c / t:.1f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
