"""Experiment (not what the library ships): PIPO-64/128's sha3 kernel with a wider polarity search and no
EOR3/BCAX pipe budget, to show where the instruction count goes when only instructions matter.

    python3 -m bench.neon.polarity_search     -> prints instr/byte (QEMU count) and llvm-mca cycles/byte

The shipped plan is polarity.plan's local search (one sweep of single flips).  Here a seeded simulated
annealing continues from it for a fixed number of moves over the same cost model (deterministic; about 30 s
on this machine), and isel.THREE_INPUT_SHARE is lifted (the budget that keeps three-input ops, which
Neoverse-V2 issues on one pipe, under a sixth of the code).  Measured: fewer instructions, more estimated
cycles on V2 (figures in bench/results/neon-issue20.md).
"""

from __future__ import annotations

import math
import random
import sys
import tempfile
from pathlib import Path

from cipherspec.registry import Registry
from generator.neon import isel, polarity
from generator.neon.prepare import prepare
from generator.neon.schedules import parse

from .run import measure

MOVES = 12000


def annealed(fn, moves: int = MOVES, seed: int = 1) -> list[int]:
    g = polarity._Graph(fn)
    p, best, _ = polarity.plan(fn, 1)
    rng, cur, bp, free, temp = random.Random(seed), best, list(p), list(g.free), 2.0
    for _ in range(moves):
        i = rng.choice(free)
        p[i] ^= 1
        polarity._follow(fn, g, p)
        c = g.cost(p)
        if c <= cur or rng.random() < math.exp((cur - c) / temp):
            cur = c
            if c < best:
                best, bp = c, list(p)
        else:
            p[i] ^= 1
            polarity._follow(fn, g, p)
        temp = max(0.05, temp * 0.9995)
    return bp


def main(argv: list[str]) -> int:
    name, schedule = "pipo64_128", "pipo64_128_neon_b16_il2_sha3"
    reg = Registry()
    module = prepare(reg.module(name))
    fn = module.functions["encrypt"]
    new = polarity.rewrite(fn, annealed(fn))
    shipped_apply = polarity.apply
    polarity.apply = lambda f: new if f is fn else shipped_apply(f)  # type: ignore[assignment]
    isel.THREE_INPUT_SHARE = 1  # type: ignore[misc]
    reg.module = lambda n, rounds=None: module  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as d:
        r = measure(reg, parse(schedule, name, None), Path(d))
    print(
        f"{schedule} (annealed polarity, no pipe budget): {r['neon_ipb']:.2f} instr/byte (QEMU), "
        f"V2 {r['neon_neoverse-v2']:.2f} cycles/byte (mca), N1 {r['neon_neoverse-n1']:.2f}; {r['stats']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
