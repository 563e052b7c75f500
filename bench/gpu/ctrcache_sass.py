"""SASS of the bitsliced CTR kernel with and without the host-computed segment planes (bs_ctr.py), without a GPU:
per cipher, the default schedule generated twice (now, and CIPHERSPEC_PTX_CTR=v1: the plain encrypt core), the
inline-PTX flavour only and no GCM kernels (to bound nvcc time), ptxas for sm_90, cuobjdump -> instructions a
block in the CTR kernel's grid-stride loop (sass.py), registers and spills, the pipe model's roof.

    CIPHERSPEC_BENCH_SPECS=examples/ciphers/sm4.cs:examples/ciphers/present.cs \\
        python3 bench/gpu/ctrcache_sass.py aes128 aria128 sm4 present80      (a markdown table)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sass_report import ctr_sass  # noqa: E402

from bench import registry  # noqa: E402


def arm(name: str, former: bool, sms: int = 132, mhz: float = 1980) -> dict:
    from generator.ptx.build import schedule_for

    if former:
        os.environ["CIPHERSPEC_PTX_CTR"] = "v1"
    else:
        os.environ.pop("CIPHERSPEC_PTX_CTR", None)
    module = registry().module(name)
    out = ctr_sass(module, schedule_for(module, None), sms, mhz)
    return out | {"hoisted": out["src"].hoisted_ops, "ops": out["src"].encrypt_ops}


def main() -> int:
    print(
        "| cipher (default schedule) | plane ops hoisted | SASS instr / block: v1 -> now | regs v1 -> now | spill B | roof Gbps v1 -> now (est.) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name in sys.argv[1:]:
        a, b = arm(name, True), arm(name, False)
        print(
            f"| {name} (`{b['name']}`) | {b['hoisted']} of {b['ops']} | {a['total']:.1f} -> {b['total']:.1f} "
            f"({100 * (b['total'] / a['total'] - 1):+.1f}%) | {a['regs']} -> {b['regs']} | {a['spills']} / {b['spills']} | "
            f"{a['roof']:,.0f} -> {b['roof']:,.0f} ({b['pipe']}) |",
            flush=True,
        )
    os.environ.pop("CIPHERSPEC_PTX_CTR", None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
