"""SASS of the CTR keystream kernel per CIPHER:SCHEDULE, without a GPU: the lockstep arms of bench/gpu/ariaroof.sh
(sync-trip / sync-round / sync-pair, generator/ptx/lockstep.py) beside the free-running ones.  The inline-PTX
flavour only and no GCM kernels (to bound nvcc time); ptxas for sm_90, cuobjdump.

    python3 bench/gpu/lockstep_sass.py aria128:bs_rk-const_t256 aria128:bs_rk-const_t256_sync-pair
        -> a markdown row each: SASS instructions a block (the grid-stride loop, sass.py), the round loop's
           instructions and static stall cycles (sass_static.py), BAR instructions in it, registers, spill bytes
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sass  # noqa: E402
import sass_static  # noqa: E402
from sass_report import ptx_sass  # noqa: E402

from bench import group_of, registry  # noqa: E402


def arm(job: str, sms: int = 132, mhz: float = 1980) -> dict:
    from generator.ptx.placement import CudaSchedule
    from generator.ptx.source import generate

    cipher, text = job.split(":", 1)
    module = registry().module(cipher)
    sched = CudaSchedule.parse(text, module)
    src = generate(module, sched, with_gcm=False)
    rep, dump = ptx_sass(src)
    funcs = sass.functions(dump)
    fname = sass.ctr_kernel(funcs, "ptx", False)
    mix = sass.loop_mix(funcs[fname], sass.ctr_trips(src.cu, "ptx"))
    blocks = sched.ilp * group_of(sched)
    roof, _ = sass.roof_gbps(mix, blocks, module.block.nbytes, sms, mhz)
    body = sass_static.innermost_loop(sass_static.kernel(dump, fname))
    loop = sass_static.report(body)
    uses = [u for k, u in rep.kernels.items() if k == fname]
    return {
        "name": src.name,
        "per_block": sum(mix.values()) / blocks,
        "loop": loop["instructions"],
        "stalls": loop["stall_cycles"],
        "bar": sum(1 for _, t, _ in body if t.split()[0].startswith("BAR")),
        "regs": max((u.registers for u in uses), default=0),
        "spills": max((max(u.spill_stores, u.spill_loads) for u in uses), default=0),
        "roof": roof,
    }


def main() -> int:
    print("| schedule | SASS / block | round loop: instr, stall cycles, BAR | regs | spill B | roof Gbps (alu, est.) |")
    print("|---|---:|---|---:|---:|---:|")
    for job in sys.argv[1:]:
        a = arm(job)
        print(
            f"| `{a['name']}` | {a['per_block']:.1f} | {a['loop']:,}, {a['stalls']:,}, {a['bar']} | {a['regs']} | "
            f"{a['spills']} | {a['roof']:,.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
