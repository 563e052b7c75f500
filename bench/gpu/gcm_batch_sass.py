"""SASS instruction counts of the GCM batch route with GHASH on the tensor cores (templates/tgb.cu.j2), beside
the library's CTR kernel, and the batch/CTR ratio they suggest -- an ESTIMATE from static counts (issue model,
the same efficiency for every kernel), not a measurement: bench/gpu/gcm_batch.sh measures it on a GPU.
Both finish kernels are counted (one core call a message; a warp's 32 messages in one core call, lane keys).

Counts are warp instructions: the CTR kernel's grid-stride trip (one core call: G blocks a thread, the round
loop counted as often as it runs) over G*32 blocks a warp; the batch's keystream kernel ({P}_gcm_keystream, one
slice a trip) the same way; the records' hashing ({P}_tgb_records, one warp a record) as prologue + tiles x loop + tail for a
record of --record bytes (64 blocks a tile).  The fused batch kernel ({P}_gcm_batch) is shown for
comparison.  Needs nvcc and cuobjdump (no GPU).

    python3 bench/gpu/gcm_batch_sass.py [--cipher aes128] [--record 16384] [--cubin PATH]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sass  # noqa: E402

from cipherspec.registry import Registry  # noqa: E402
from generator.ptx.build import schedule_for  # noqa: E402
from generator.ptx.lanes import GROUP  # noqa: E402
from generator.ptx.source import generate  # noqa: E402


def _trip(ins, trips: int) -> int:
    """The outermost loop's trip (the grid-stride loop; the keystream kernel's slice loop, whose row loop runs
    once for a record of one row): its round loop (the longest loop inside it with no loop inside) `trips`
    times, any other loop inside it once (the byte loops of a partial last block, the keystream kernel's key
    copy: code a whole block or an unchanged key does not run, so the count is an upper bound for them)."""
    loops = sass._loops(ins)
    outer = max(loops, key=lambda lp: lp[1] - lp[0])

    def inside(a, b):
        return a != b and b[0] <= a[0] and a[1] <= b[1]

    inner = [lp for lp in loops if inside(lp, outer)]
    leaves = [lp for lp in inner if not any(inside(o, lp) for o in inner)]
    rl = max(leaves, key=lambda lp: lp[1] - lp[0])
    body = sum(1 for a, _, _ in ins if outer[0] <= a <= outer[1])
    return body + (trips - 1) * sum(1 for a, _, _ in ins if rl[0] <= a <= rl[1])


def _records(ins) -> tuple[int, int, int]:
    """(prologue, one tile, tail) of the records kernel: the tile loop is the backward branch with BMMA in it;
    the tail is the longer of the straight code after it and the first loop after it (nvcc makes the tail's
    shuffles a warp-collective loop, run once when the warp is converged, and may keep a straight copy too)."""
    loops = sass._loops(ins)
    tile = next(lp for lp in loops if any(lp[0] <= a <= lp[1] and op == "BMMA" for a, op, _ in ins))
    pre = sum(1 for a, _, _ in ins if a < tile[0])
    body = sum(1 for a, _, _ in ins if tile[0] <= a <= tile[1])
    rest = [lp for lp in loops if lp[0] > tile[1]]
    after = [a for a, _, _ in ins if a > tile[1]]
    if rest:  # two copies of the tail: the straight one before the loop copy
        straight = sum(1 for a in after if a < rest[0][0])
        looped = sum(1 for a, _, _ in ins if rest[0][0] <= a <= rest[0][1])
        tail = max(straight, looped)
    else:
        tail = len(after)
    return pre, body, tail


def _finish(ins, trips: int, nrk: int) -> int:
    """A finish kernel's warp instructions (32 messages): its code once, the round loop `trips` times, and for the
    lane-key finish its key-word loop (the loop with the ballots, 16 words a trip) ceil(nrk / 16) times."""
    loops = sass._loops(ins)
    size = {lp: sum(1 for a, _, _ in ins if lp[0] <= a <= lp[1]) for lp in loops}
    rl = max(loops, key=lambda lp: size[lp])
    total = len(ins) + (trips - 1) * size[rl]
    votes = [lp for lp in loops if any(lp[0] <= a <= lp[1] and op == "VOTE" for a, op, _ in ins)]
    if votes:
        total += (-(-nrk // 16) - 1) * size[min(votes, key=lambda lp: size[lp])]
    return total


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cipher", default="aes128")
    ap.add_argument("--record", type=int, default=16384)
    ap.add_argument("--cubin", default=None, help="an sm_90 cubin of the generated source (else built here)")
    a = ap.parse_args()
    m = Registry().module(a.cipher)
    sched = schedule_for(m, None)
    src = generate(m, sched)
    cubin = a.cubin
    if cubin is None:
        d = Path(tempfile.mkdtemp())
        (d / f"{src.name}.cu").write_text(src.cu)
        (d / f"{src.name}.h").write_text(src.h)
        cubin = str(d / "lib.cubin")
        cmd = [
            "nvcc",
            "-cubin",
            "-arch=sm_90",
            "-O3",
            "-std=c++17",
            "-I",
            str(d),
            "-o",
            cubin,
            str(d / f"{src.name}.cu"),
        ]
        subprocess.run(cmd, check=True)
    text = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True, check=True).stdout
    funcs = sass.functions(text)
    trips = sass.round_trips(src.cu, sched.flavour)
    G = GROUP.get(sched.layout, 1)
    per_warp = 32 * G * sched.ilp  # blocks one warp's trip makes
    ctr = _trip(funcs[sass.ctr_kernel(funcs, sched.flavour, True)], trips)
    bat0 = _trip(funcs[sass.pick(funcs, "gcm_keystreamILb1") or sass.pick(funcs, "gcm_keystream")], trips)
    kb = [
        (lbl, sass.pick(funcs, key))
        for lbl, key in (
            ("former order, k0", "gcm_keystreamILb0"),
            ("keyed, plain core", "gcm_ks_key"),
            (
                "keyed, CTR core, round keys in constant memory (c0; upper bound: its E(K, J0) call site too)",
                "gcm_ks_seg_const",
            ),
            ("keyed, CTR core, round keys from the key table (upper bound, as above)", "gcm_ks_seg_table"),
            (
                "keyed, CTR core, round keys copied into shared memory (the default; upper bound, as above)",
                "gcm_ks_seg_smem",
            ),
        )
    ]
    bat1 = _trip(funcs[sass.pick(funcs, "gcm_batch")], trips)
    blocks = (a.record + 15) // 16
    tiles = (blocks + 63) // 64
    recs = {}  # the records kernel's instances: tgb_records (<2, 3>), tgb_records_v1 (<1, 2>, CIPHERSPEC_GCM_AB=t0)
    for name in sorted(funcs):
        if "tgb_records" in name and "_run" not in name:
            key = "<1, 2>" if "tgb_records_v1" in name else "<2, 3>"
            recs[key] = _records(funcs[name])
    pre, tile, tail = recs.get("<2, 3>", next(iter(recs.values())))
    rec = pre + tiles * tile + tail
    print(f"{src.name}: {G} block(s) a thread, round loop x{trips}; warp instructions per 16-byte block:")
    print(f"  CTR kernel                 {ctr / per_warp:6.2f}  ({ctr} a trip of {per_warp} blocks a warp)")
    print(
        f"  batch, keystream kernel    {bat0 / per_warp:6.2f}  ({bat0} a slice; upper bound: the partial-block code and a key copy too)"
    )
    for lbl, name in kb:
        if name:
            n = _trip(funcs[name], trips)
            print(f"  batch keystream, {lbl}: {n / per_warp:6.2f}  ({n} a trip)")
    print(f"  batch, fused GHASH         {bat1 / per_warp:6.2f}  ({bat1} a trip; upper bound)")
    nrk = int(src.h.split("_RK_WORDS ")[1].split()[0])
    for label, key in (
        ("finish (a core call a message)", "gcm_finishE"),
        ("finish, lane keys (a warp's)", "finish_lanes"),
    ):
        if any(key in f for f in funcs):
            n = _finish(funcs[sass.pick(funcs, key)], trips, nrk)
            print(f"  {label:30s} {n / 32:7.0f} warp instructions a message ({n} for 32)")
    print(
        f"  records' GHASH (BMMA)      {rec / blocks:6.2f}  ({pre} prologue + {tiles} x {tile} a tile + {tail} tail, "
        f"a {a.record}-byte record) = {32 * rec / blocks:.0f} thread instructions a block"
    )
    for key, (p, t, tl) in recs.items():
        if key:
            print(f"    tgb_records{key}: {p} + {tiles} x {t} + {tl} = {(p + tiles * t + tl) / blocks:.2f} a block")
    first = next(f for f in sorted(funcs) if f.endswith("_tgh_first"))  # (<2, true>; _tgh_first_v1 the A/B's)
    lpre, ltile, _ = _records(funcs[first])
    bmma = sum(1 for _, op, _ in funcs[first] if op == "BMMA")
    print(
        f"  long message's GHASH        {ltile / 64:6.2f}  (cs_tgh_first: {ltile} a tile of 64 blocks, {bmma} BMMA in all; "
        "after the CTR pass)"
    )
    est = ctr / (bat0 + rec * per_warp / blocks)
    print(f"  ESTIMATE (static counts, equal efficiency): batch / CTR >= ~{est:.2f} (finish and key set not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
