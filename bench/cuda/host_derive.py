"""What compiling a lane layout's derived key words at -Og on the host (key.cu.j2's CS_DERIVE) saves in g++ time
and costs in set_key time: the key section of each cipher's default CUDA library (the key schedule, then
P_derive), compiled with g++ -std=c++17 -O3 as nvcc's host pass does, as generated (P_derive at -Og), with
P_derive at -O1 (the attribute before) and at -O3 (the attribute removed).

    PYTHONPATH=. python3 bench/cuda/host_derive.py [--only aes128,aria128] [--spec FILE] [--keys N]
    -> | aes128 | 7.8 | 5.9 | 3.9 | 11872 | 6840 | 6550 |   (g++ CPU s, then ns per key: -O3, -O1, -Og)

The round keys of every key are folded into a checksum (bench/gpu/host_keysched.py's harness): both builds
must print the same one.  ns per key: the median of three runs of ``--keys`` keys each.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gpu"))
from host_keysched import MAIN  # noqa: E402  (the timing harness: seeded keys, checksum, ns per key)

from cipherspec.registry import Registry  # noqa: E402
from generator.ptx.build import schedule_for  # noqa: E402
from generator.ptx.keysched import key_section  # noqa: E402
from generator.ptx.lanes import lanes_for  # noqa: E402
from generator.ptx.source import prepared  # noqa: E402

HEAD = "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
OG = '__attribute__((optimize("Og")))'  # as generated
O1 = '__attribute__((optimize("O1")))'


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _build_and_time(tmp: Path, tag: str, text: str, keys: int) -> tuple[float, int, float]:
    """(g++ CPU s, checksum, median ns per key)."""
    src, exe = tmp / f"{tag}.cpp", tmp / tag
    src.write_text(text)
    t0 = _cpu()
    subprocess.run(["g++", "-std=c++17", "-O3", "-o", str(exe), str(src)], check=True)
    cpu = _cpu() - t0
    runs = []
    for _ in range(3):
        out = subprocess.run([str(exe), "1", str(keys)], capture_output=True, text=True, check=True).stdout
        checksum, ns = out.splitlines()[1].split()
        runs.append((float(ns), int(checksum)))
    if len({c for _, c in runs}) != 1:
        sys.exit(f"{tag}: checksums differ between runs")
    return cpu, runs[0][1], sorted(ns for ns, _ in runs)[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="aes128,aria128")
    ap.add_argument("--spec", action="append", default=[])
    ap.add_argument("--keys", type=int, default=20000)
    args = ap.parse_args(argv)
    reg = Registry(args.spec)
    print("| cipher | g++ CPU s, P_derive -O3 | -O1 | -Og | set_key ns/key, -O3 | -O1 | -Og |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name in args.only.split(","):
            base = reg.module(name)
            sched = schedule_for(base, None)
            module = prepared(base, sched)
            if not sched.lanes:
                print(f"| {name} | (no derived words: {sched.name(module)}) | | | | | |")
                continue
            lay = lanes_for(module, sched.layout, reroll=sched.layout == "bs" and not sched.unroll)
            sec = key_section(module, "cs_bench", lay.derive)
            if OG not in sec.text:
                sys.exit(f"{name}: the key section has no -Og attribute on P_derive")
            defs = f"#define KB {module.key.nbytes}\n#define NRK {sec.words}\n#define ENTRY {sec.entry}\n"
            res = {}
            arms = (("O3", sec.text.replace(OG, "")), ("O1", sec.text.replace(OG, O1)), ("Og", sec.text))
            for tag, text in arms:
                res[tag] = _build_and_time(tmp, f"{name}_{tag}", HEAD + text + defs + MAIN, args.keys)
            if len({r[1] for r in res.values()}) != 1:
                sys.exit(f"{name}: the key schedules disagree between -O3, -O1 and -Og")
            cpu = " | ".join(f"{res[t][0]:.2f}" for t, _ in arms)
            ns = " | ".join(f"{res[t][2]:.0f}" for t, _ in arms)
            print(f"| {name} | {cpu} | {ns} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
