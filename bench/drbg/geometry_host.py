"""The launch geometry of a device-resident CTR_DRBG bulk call on the host, per call (no GPU needed): host.cu.j2's
P_mk_geometry (the pass over the request lengths that sizes the keystream grid), taken out of LEA-128's generated CUDA
source and timed as C++ here.

    python3 bench/drbg/geometry_host.py [--root TREE] [--reqs 1024,2048,16384] [--reps 300]

For 64 KiB requests (2,048 = 128 MiB, 16,384 = 1 GiB), the best of --reps calls, microseconds, with the grid it
picks for 132 SMs x 5 resident CTAs (an H200's, LEA-128's default kernel).  --root: the tree whose generator makes
the source (e.g. --root /work/main for a before/after).  Writes nothing; prints a markdown table.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
enum { CS_OK = 0, CS_ELEN = 3 };
%(geometry)s
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv)
{
    const uint64_t n = strtoull(argv[1], 0, 10);
    const int reps = atoi(argv[2]);
    uint64_t *lens = (uint64_t *)malloc(n * 8);
    for (uint64_t r = 0; r < n; ++r) lens[r] = 65536;
    double best = 1e9;
    uint32_t ch = 0, cpr = 0;
    uint64_t nctas = 0, total = 0;
    for (int k = 0; k < reps; ++k) {
        const double t0 = now();
        %(call)s
        __asm__ __volatile__("" : : "r"(lens) : "memory");
        const double t = now() - t0;
        if (t < best) best = t;
    }
    printf("%%llu %%.2f %%u %%llu\n", (unsigned long long)n, best * 1e6, ch, (unsigned long long)nctas);
    return 0;
}
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    ap.add_argument("--reqs", type=lambda s: [int(x) for x in s.split(",")], default=[1024, 2048, 16384])
    ap.add_argument("--reps", type=int, default=300)
    a = ap.parse_args()
    sys.path.insert(0, str(a.root.resolve()))
    from cipherspec.registry import Registry
    from generator.ptx.ctchoice import default_for
    from generator.ptx.source import generate, prepared

    module = Registry().module("lea128")
    cu = generate(module, default_for(prepared(module))).cu
    start = cu.rindex("static int ", 0, cu.index("_mk_geometry("))
    geo = cu[start : cu.index("\n}\n", start) + 3]
    P = geo.split("static int ", 1)[1].split("_mk_geometry(", 1)[0]
    flat = "int *flat" in geo  # (the whole-wave form, branch drbgwave; a tree before it has no such argument)
    call = (
        f"int flat = 1; {P}_mk_geometry(lens, n, 132, 5, &ch, &nctas, &total, &cpr, 4, &flat);"
        if flat
        else f"{P}_mk_geometry(lens, n, 132, 5, &ch, &nctas, &total, &cpr, 4);"
    )
    with tempfile.TemporaryDirectory() as d:
        c, exe = Path(d) / "g.cpp", Path(d) / "g"
        c.write_text(HARNESS % {"geometry": geo, "call": call})
        subprocess.run(["c++", "-O2", "-o", str(exe), str(c)], check=True)
        print(f"tree {a.root}: best of {a.reps}, microseconds (64 KiB requests; 132 SMs x 5 CTAs)")
        print("| requests | output | P_mk_geometry | blocks a CTA | CTAs |")
        print("|---:|---:|---:|---:|---:|")
        for n in a.reqs:
            out = subprocess.run([str(exe), str(n), str(a.reps)], capture_output=True, text=True, check=True).stdout
            _, us, ch, nctas = out.split()
            print(f"| {n} | {n >> 4} MiB | {us} | {ch} | {nctas} |")


if __name__ == "__main__":
    main()
