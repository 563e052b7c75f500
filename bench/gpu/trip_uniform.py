"""How much of a bitsliced CTR core would be uniform per thread-trip if a thread's 32 blocks were aligned to 32
counters (issue 25, lever 1), without a GPU: an IR count, no kernel built.

In the bitsliced CTR kernel a thread-trip encrypts 32 counters, lane b holding counter C + b.  The kernels today
start a group at the segment's first counter, so C is not a multiple of 32 and a carry out of the low 5 bits can
differ between lanes: only the words outside the counter's low 32 bits are uniform (bs_ctr.py hoists what depends
on them to the host).  With C a multiple of 32, counter bits 0..4 would be the same constant planes in every
trip (0xaaaaaaaa, 0xcccccccc, ...) and bits 5..31 all-0/all-1 planes, the same in all 32 lanes of the trip: every
op that depends only on those, the segment-uniform planes and the round keys is then *trip-uniform*.  A plane op
on a trip-uniform value carries one bit of information in 32, so those ops could be evaluated for 32 trips at
once (bit k = trip k) and each value the per-lane part reads (the *frontier*) expanded back to a plane per trip.

    python3 bench/gpu/trip_uniform.py aes128 aria128     -> one line per core (plane ops; a LOP3 fuses ~1.5-2)

Counted on the lowered core (bitsliced.py) and on the CTR main core (what cs_main runs after the host split),
by round (origin.round; None: outside the rounds).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import registry  # noqa: E402

LANE_BITS = 5  # 32 blocks a thread-trip


def counter_bit(module, words: list[str], name: str) -> int | None:
    """The counter bit (big-endian over the block, as ctr.py counts) that plane ``name`` ("W.b<i>") holds; None
    for a plane of no block word."""
    base, _, bit = name.rpartition(".b")
    if base not in words or not bit.isdigit():
        return None
    i, j, nb = int(bit), words.index(base), module.block.width // 8
    m = j * nb + (i // 8 if module.block.endian == "little" else nb - 1 - i // 8)  # its memory byte
    return 8 * (module.block.nbytes - 1 - m) + i % 8


def classify(fn, module, words: list[str]) -> list[int]:
    """Per value: 0 segment-uniform (constants, round keys, the counter's upper words), 1 trip-uniform (reads
    counter bits 5..31 and nothing per lane), 2 per lane (reads counter bits 0..4)."""
    cls: list[int] = []
    for op in fn.ops:
        if op.code == "input":
            b = counter_bit(module, words, op.imm[0])
            cls.append(0 if b is None or b >= 32 else (2 if b < LANE_BITS else 1))
        elif op.code == "const":
            cls.append(0)
        else:
            cls.append(max(cls[a] for a in op.args))
    return cls


def count(fn, module, words: list[str]) -> dict:
    cls = classify(fn, module, words)
    work = [op.code not in ("input", "const") for op in fn.ops]
    trip = [i for i in range(len(fn.ops)) if cls[i] == 1 and work[i]]
    front = {a for i, op in enumerate(fn.ops) if cls[i] == 2 for a in op.args if cls[a] == 1 and work[a]}
    front |= {v for _, v in fn.outputs if cls[v] == 1 and work[v]}
    rounds = Counter(fn.ops[i].origin.round if fn.ops[i].origin else None for i in trip)
    return {
        "ops": fn.work(),
        "segment": sum(1 for i in range(len(fn.ops)) if cls[i] == 0 and work[i]),
        "trip": len(trip),
        "by_round": dict(sorted(rounds.items(), key=lambda t: (t[0] is None, t[0] or 0))),
        "frontier": len(front),
    }


def main() -> int:
    from generator.ptx import ctr, source
    from generator.ptx.build import schedule_for
    from generator.ptx.lanes import lanes_for

    reg = registry()
    print("| cipher | core | plane ops | segment-uniform | trip-uniform (by round) | frontier |")
    print("|---|---|---:|---:|---|---:|")
    for name in sys.argv[1:]:
        m0 = reg.module(name)
        sched = schedule_for(m0, None)
        module = source.prepared(m0, sched)
        lay = lanes_for(module, "bs", reroll=not sched.unroll, ctr_hoist=True)
        words = ctr.state_names(module, "encrypt")
        cores = [("encrypt", lay.cores["encrypt"])] + ([("ctr main", lay.ctr.main)] if lay.ctr is not None else [])
        for label, fn in cores:
            r = count(fn, module, words)
            print(
                f"| {name} | {label} | {r['ops']} | {r['segment']} | {r['trip']} {r['by_round']} | {r['frontier']} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
