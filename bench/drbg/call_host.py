"""The host side of a device-resident CTR_DRBG bulk call, per call (no GPU needed): what the multi-GPU context's
P_mg_ctr_multi_dev does on the CPU around its launches, timed over the C the generator emits.

    python3 bench/drbg/call_host.py [--root TREE] [--reqs 1024,2048,16384] [--reps 300]

For 64 KiB requests (the DRBG's 2^19-bit requests; 2,048 = 128 MiB, 16,384 = 1 GiB), the best of --reps runs:
  plan    P_mk_plan: every request's descriptor (V + 1 as big-endian limbs, blocks, first CTA, first block) and
          the CTA map, into a buffer (the context's page-locked one on a GPU machine)
  V's     what replaces the plan for whole waves over equal requests (branch drbgwave): the V's copied as they
          are (memcpy), each CTA working out its descriptors (P_mk_req_v)
  split   P_mg_split_requests over 2 parts (requests balanced by bytes over two GPUs), then the keys' copy (memcpy)
  wipe    the keys' staged copy zeroed after the call, 16 bytes a request: a volatile byte loop (the way before)
          and memset plus a compiler barrier (P_wipe)
--root: the tree whose generator/ptx/multikey.py and hostapi.py give the C (another checkout for a before/after,
e.g. --root /work/main); the wipe's two forms are this script's own.  Writes nothing; prints one line per size.
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
#include <string.h>
#include <time.h>
#define CS_HD
%(helpers)s
%(split)s
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void wipe_volatile(uint8_t *p, size_t n) { volatile uint8_t *v = p; for (size_t i = 0; i < n; ++i) v[i] = 0; }
static void wipe_memset(uint8_t *p, size_t n) { memset(p, 0, n); __asm__ __volatile__("" : : "r"(p) : "memory"); }
int main(int argc, char **argv)
{
    const uint64_t nreq = strtoull(argv[1], 0, 10);
    const int reps = atoi(argv[2]), parts = atoi(argv[3]);  /* (parts from the command line: not a constant) */
    const uint32_t ch = 2048;  /* blocks a CTA (LEA-128's default at 128 MiB): two CTAs a 64 KiB request */
    uint8_t *vs = malloc(nreq * 16), *keys = malloc(nreq * 16);
    uint64_t *lens = malloc(nreq * 8), first[9];
    for (uint64_t r = 0; r < nreq; ++r) {
        lens[r] = 65536;
        for (int b = 0; b < 16; ++b) vs[r * 16 + b] = (uint8_t)rand(), keys[r * 16 + b] = (uint8_t)rand();
    }
    const uint64_t nctas = b_mk_ctas(lens, nreq, ch);
    const size_t q = nreq * sizeof(b_mreq), m = nctas * 4;
    uint8_t *h = malloc(q + m + nreq * 16);
    memset(h, 1, q + m + nreq * 16);
    double best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
    for (int i = 0; i < reps; ++i) {
        const double t0 = now();
        b_mk_plan(vs, lens, nreq, ch, (b_mreq *)h, (uint32_t *)(h + q));
        const double t1 = now();
        b_mg_split_requests(lens, nreq, parts, first);
        memcpy(h + q + m, keys, nreq * 16);
        const double t2 = now();
        wipe_volatile(h + q + m, nreq * 16);
        const double t3 = now();
        memcpy(h + q + m, keys, nreq * 16);
        const double t4 = now();
        wipe_memset(h + q + m, nreq * 16);
        const double t5 = now();
        memcpy(h, vs, nreq * 16);
        __asm__ __volatile__("" : : "r"(h) : "memory");
        const double t6 = now();
        const double d[5] = {t1 - t0, t2 - t1, t3 - t2, t5 - t4, t6 - t5};
        for (int k = 0; k < 5; ++k) if (d[k] < best[k]) best[k] = d[k];
    }
    if (parts == 2 && first[1] != nreq / 2) return 3;
    printf("%%llu %%.2f %%.2f %%.2f %%.2f %%.2f\n", (unsigned long long)nreq, best[0] * 1e6, best[1] * 1e6,
           best[2] * 1e6, best[3] * 1e6, best[4] * 1e6);
    return 0;
}
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    ap.add_argument("--reqs", type=lambda s: [int(x) for x in s.split(",")], default=[1024, 2048, 8192, 16384])
    ap.add_argument("--reps", type=int, default=300)
    a = ap.parse_args()
    sys.path.insert(0, str(a.root.resolve()))
    from generator.ptx import hostapi, multikey

    src = HARNESS % {"helpers": multikey.helpers_c("b", 16), "split": hostapi.split_c("b")}
    with tempfile.TemporaryDirectory() as d:
        c, exe = Path(d) / "h.c", Path(d) / "h"
        c.write_text(src)
        subprocess.run(["cc", "-O2", "-std=gnu99", "-o", str(exe), str(c)], check=True)
        print(f"tree {a.root}: best of {a.reps}, microseconds (64 KiB requests)")
        print(
            "| requests | output | plan | V's copied | split in 2 + keys memcpy | wipe, volatile loop "
            "| wipe, memset + barrier |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for n in a.reqs:
            out = subprocess.run(
                [str(exe), str(n), str(a.reps), "2"], capture_output=True, text=True, check=True
            ).stdout
            _, plan, split, vol, mem, vcopy = out.split()
            print(f"| {n} | {n >> 4} MiB | {plan} | {vcopy} | {split} | {vol} | {mem} |")


if __name__ == "__main__":
    main()
