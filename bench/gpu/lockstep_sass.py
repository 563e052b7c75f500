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

import sass_static  # noqa: E402
from sass_report import ctr_sass  # noqa: E402

from bench import registry  # noqa: E402


def arm(job: str, sms: int = 132, mhz: float = 1980) -> dict:
    from generator.ptx.placement import CudaSchedule

    cipher, text = job.split(":", 1)
    module = registry().module(cipher)
    out = ctr_sass(module, CudaSchedule.parse(text, module), sms, mhz)
    body = sass_static.innermost_loop(sass_static.kernel(out["dump"], out["kernel"]))
    loop = sass_static.report(body)
    bars = sum(1 for _, t, _ in body if t.split()[0].startswith("BAR"))
    return out | {"loop": loop["instructions"], "stalls": loop["stall_cycles"], "bar": bars}


def main() -> int:
    print("| schedule | SASS / block | round loop: instr, stall cycles, BAR | regs | spill B | roof Gbps (alu, est.) |")
    print("|---|---:|---|---:|---:|---:|")
    for job in sys.argv[1:]:
        a = arm(job)
        print(
            f"| `{a['name']}` | {a['total']:.1f} | {a['loop']:,}, {a['stalls']:,}, {a['bar']} | {a['regs']} | "
            f"{a['spills']} | {a['roof']:,.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
