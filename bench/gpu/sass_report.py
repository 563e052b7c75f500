"""The SASS of a schedule's CTR keystream kernel, without a GPU: ptxas (sm_90) -> cuobjdump -sass -> the
grid-stride loop's instruction mix per block and the pipe model's roof (sass.py) for a given device.

    python3 bench/gpu/sass_report.py [--sms 132 --mhz 1980] CIPHER:SCHEDULE ...   (a markdown table)
    CIPHERSPEC_BENCH_SPECS=examples/ciphers/sm4.cs python3 bench/gpu/sass_report.py sm4:   (a spec outside the registry)

cuobjdump: the CUDA toolkit's, or the PyPI wheel nvidia-cuda-cuobjdump.  The roof is a model's estimate
(bench/gpu/NOTES.md says how well it has matched measurements): a ranking before device time is spent.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sass  # noqa: E402

from bench import group_of, registry  # noqa: E402


def cuobjdump() -> str:
    found = shutil.which("cuobjdump")
    if found:
        return found
    try:
        import nvidia

        for base in nvidia.__path__:
            for p in Path(base).glob("*/bin/cuobjdump"):
                return str(p)
    except ImportError:
        pass
    raise SystemExit("cuobjdump not found (the CUDA toolkit, or pip install nvidia-cuda-cuobjdump)")


def ptx_sass(src) -> tuple:
    """(ptxas -v's report, cuobjdump's SASS text) of a generated source's inline-PTX flavour alone, for sm_90."""
    from toolchain import nvcc

    with tempfile.TemporaryDirectory() as d:
        cu = Path(d) / f"{src.name}.cu"
        cu.write_text("#define CS_FLAVOURS 1\n" + src.cu)
        (Path(d) / f"{src.name}.h").write_text(src.h)
        rep = nvcc.compile_cubin(cu, "sm_90")
        tool = cuobjdump()
        env = dict(os.environ, PATH=f"{os.environ.get('PATH', '')}:{Path(tool).parent}")  # nvdisasm beside it
        cubin = str(nvcc.cubin_path(cu, "sm_90"))
        return rep, subprocess.run([tool, "--dump-sass", cubin], capture_output=True, text=True, env=env).stdout


def ctr_sass(module, sched, sms: int = 132, mhz: float = 1980) -> dict:
    """The CTR keystream kernel (inline PTX, no GCM kernels) of ``sched`` from SASS: the source, the SASS text, the
    kernel's name, SASS a block in its grid-stride loop, the pipe model's roof (sass.py), registers and spill bytes."""
    from generator.ptx.source import generate

    src = generate(module, sched, with_gcm=False)
    rep, dump = ptx_sass(src)
    funcs = sass.functions(dump)
    fname = sass.ctr_kernel(funcs, "ptx", False)
    mix = sass.loop_mix(funcs[fname], sass.ctr_trips(src.cu, "ptx"))
    blocks = sched.ilp * group_of(sched)
    roof, pipe = sass.roof_gbps(mix, blocks, module.block.nbytes, sms, mhz)
    uses = [u for k, u in rep.kernels.items() if k == fname]
    return {
        "src": src,
        "dump": dump,
        "kernel": fname,
        "name": src.name,
        "total": sum(mix.values()) / blocks,
        "regs": max((u.registers for u in uses), default=0),
        "spills": max((max(u.spill_stores, u.spill_loads) for u in uses), default=0),
        "roof": roof,
        "pipe": pipe,
    }


def row(name: str, text: str, sms: int, mhz: float) -> dict:
    from generator.ptx.build import schedule_for
    from generator.ptx.source import generate
    from toolchain import nvcc

    reg = registry()  # the shipped ciphers and CIPHERSPEC_BENCH_SPECS's (sm4, present80: examples/)
    module = reg.module(name)
    sched = schedule_for(module, text)
    src = generate(module, sched)
    with tempfile.TemporaryDirectory() as d:
        cu = Path(d) / f"{src.name}.cu"
        cu.write_text(src.cu)
        (Path(d) / f"{src.name}.h").write_text(src.h)
        rep = nvcc.compile_cubin(cu, "sm_90")
        cubin = nvcc.cubin_path(cu, "sm_90")
    out = {}
    for fl in ("ptx", "c"):
        tool = cuobjdump()
        env = dict(os.environ, PATH=f"{os.environ.get('PATH', '')}:{Path(tool).parent}")  # nvdisasm beside it
        funcs = sass.functions(
            subprocess.run([tool, "--dump-sass", str(cubin)], capture_output=True, text=True, env=env).stdout
        )
        fname = sass.ctr_kernel(funcs, fl, False)
        mix = sass.loop_mix(funcs[fname], sass.ctr_trips(src.cu, fl))  # a round loop counts its trips
        blocks = sched.ilp * group_of(sched)
        roof, pipe = sass.roof_gbps(mix, blocks, module.block.nbytes, sms, mhz)
        uses = [u for k, u in rep.kernels.items() if k == fname] or [
            u for k, u in rep.kernels.items() if f"_ctr_{fl}I" in k and "ILb0" in k or f"_ctr_{fl}E" in k
        ]
        regs = max((u.registers for u in uses), default=0)
        spills = max((max(u.spill_stores, u.spill_loads) for u in uses), default=0)
        out[fl] = {
            "mix": {k: v / blocks for k, v in mix.most_common()},
            "roof": roof,
            "pipe": pipe,
            "regs": regs,
            "spills": spills,
            "total": sum(mix.values()) / blocks,
        }
    return {"name": src.name, **out}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("jobs", nargs="+", help="CIPHER:SCHEDULE (SCHEDULE empty: the build default)")
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--mhz", type=float, default=1980)
    args = ap.parse_args()
    print(
        "| schedule | flavour | SASS instr / block (loop) | top of the mix per block | regs | spill B | roof Gbps (pipe) |"
    )
    print("|---|---|---:|---|---:|---:|---:|")
    for job in args.jobs:
        name, _, text = job.partition(":")
        r = row(name, text or None, args.sms, args.mhz)
        for fl in ("ptx", "c"):
            x = r[fl]
            top = ", ".join(f"{k} {v:.1f}" for k, v in list(x["mix"].items())[:6])
            print(
                f"| `{r['name']}` | {fl} | {x['total']:.1f} | {top} | {x['regs']} | {x['spills']} | {x['roof']:,.0f} ({x['pipe']}) |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
