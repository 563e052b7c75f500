"""GPU benchmark + autotuner for the CUDA backend (runs on the device; bench/gpu/run.sh calls it).

Per cipher: stage 1 times every placement at 256 threads; stage 2 sweeps threads 32..1024 and ILP on
the stage-1 winner.  Each kernel runs CTR keystream-only and CTR XOR-in over >= 1 GiB of device
memory, in both flavours (inline PTX, plain CUDA C) side by side, timed with CUDA events (median of
batches), its output spot-checked against the interpreter; the roof comes from the kernel's own
SASS (sass.py) and the device's SM count and clock.  Writes results.json, gpu-report.md, gpu.png and
tuned.json under --out.

    python3 bench/gpu/bench.py --out $OUT [--size-mib 1024] [--ciphers lea128,cham128_128]
    python3 bench/gpu/bench.py --spec examples/ciphers/sm4.cs --schedules sm4:bs_rk-const_t128 --stage2 0
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sass  # noqa: E402

from cipherspec import modes  # noqa: E402
from cipherspec.blockcipher import RefCipher  # noqa: E402
from cipherspec.registry import Registry  # noqa: E402

CIPHERS = ["lea128", "cham128_128", "cham64_128", "hight", "aes128", "aria128", "pipo64_128"]
THREADS = [32, 64, 128, 256, 512, 1024]
TARGETS_TBPS = {
    "lea128": 10.0,
    "cham128_128": 4.95,
    "aes128": 4.0,
    "hight": 2.5,
    "aria128": 4.0,
    "pipo64_128": 4.0,
}  # issue 11
# the seeds' figures and their GPUs (SMs, boost clock GHz as published by NVIDIA)
SEEDS = [
    ("lea128", "LEA-128 (ARX seed)", 2593, "RTX 2070", 36, 1.62),
    ("cham128_128", "CHAM-128/128 (ARX seed)", 3063, "RTX 2070", 36, 1.62),
    ("hight", "HIGHT (ARX seed)", 468, "RTX 2070", 36, 1.62),
    ("aria128", "ARIA-128 (ARIA seed)", 147, "RTX 3060 Laptop", 30, 1.70),
    ("aes128", "AES-128 CTR keystream (Tezcan)", 878.6, "RTX 2070 Super", 40, 1.77),
]


SPEC_ENV = "CIPHERSPEC_BENCH_SPECS"  # --spec files, os.pathsep-joined (the build workers inherit it)


def registry() -> Registry:
    """The shipped ciphers and those of the --spec files."""
    return Registry(extra=[p for p in os.environ.get(SPEC_ENV, "").split(os.pathsep) if p])


def placements(module) -> list[str]:
    """Stage 1's schedules: every placement of the one-block-per-thread layout, and the lane layouts
    (lanes.py) the cipher takes -- byte-packed where it reads no table, bitsliced where it can."""
    from generator.ptx.source import prepared

    return scalar_placements(prepared(module)) + lane_placements(module)


def scalar_placements(module) -> list[str]:
    if module.tables:  # tab-const is left out: lanes' divergent indices serialize (first run: AES 131, ARIA 30 Gbps)
        out = [f"rk-const_tab-{t}" for t in ("global", "shared", "shared4", "shared16", "shared32")]
        return out + ["rk-shared_tab-shared32"]
    out = ["rk-const", "rk-shared", "rk-const_bal"]
    from generator.ptx.placement import REG_RK_LIMIT, rk_inputs

    if max(len(rk_inputs(module, f)) for f in ("encrypt", "decrypt")) <= REG_RK_LIMIT:
        out.append("rk-reg")
    return out


def lane_placements(module) -> list[str]:
    """``module``: the cipher after the shared pipeline.  T-tables where its lookups feed a column map
    (scalar layout, two table placements), the lane layouts it takes."""
    from cipherspec.errors import UsageError
    from generator.ptx.build import schedule_for

    out = []
    for text in (
        "rk-const_tab-shared32_tt_t512",
        "rk-const_tab-shared32_tt4_t1024",
        "rk-const_swar",
        "rk-const_swar_t128_ilp2",
        "rk-const_bs_t128",
    ):
        if ("swar" in text or "_bs" in text) and module.tables:
            continue  # byte-packed lookups cost more than they save; bitsliced S-box circuits: ptxas takes
            # over 20 minutes on AES/ARIA's cores (and the IR estimate is no faster than the tables)
        try:
            schedule_for(module, text)
        except UsageError:
            continue
        out.append(text)
    return out


def group_of(sched) -> int:
    """Blocks per thread and slot: 1, or the lane layout's group."""
    from generator.ptx.lanes import GROUP

    return GROUP.get(sched.layout, 1)


def _build(job: tuple[str, str]) -> tuple[str, str, str]:
    """Generates and compiles one schedule (in a worker process; no GPU needed)."""
    from generator.ptx.build import schedule_for
    from generator.ptx.source import generate
    from runtime.cuda_target import source_dir
    from toolchain import nvcc

    name, text = job
    reg = registry()
    try:
        src = generate(reg.module(name), schedule_for(reg.module(name), text))
    except Exception as e:  # an unsupported placement is a result, not a crash
        return name, text, f"skip: {e}"
    d = source_dir()
    (d / f"{src.name}.cu").write_text(src.cu)
    (d / f"{src.name}.h").write_text(src.h)
    nvcc.build_library(d / f"{src.name}.cu", d / f"lib{src.name}.so")
    return name, text, "ok"


def build_all(jobs: list[tuple[str, str]], workers: int) -> dict:
    t = time.time()
    with ProcessPoolExecutor(workers) as ex:
        res = {(n, s): r for n, s, r in ex.map(_build, jobs)}
    print(f"built {len(jobs)} schedules in {time.time() - t:.0f} s", flush=True)
    return res


class Bench:
    def __init__(self, size: int, reps: int, batches: int):
        self.size, self.reps, self.batches = size, reps, batches
        self.reg = registry()
        self.rng = np.random.default_rng(2024)
        self.host_in = self.rng.integers(0, 256, size, dtype=np.uint8)
        self.bufs = None
        self.sass_cache: dict[str, dict] = {}
        self.device: dict = {}
        self.mem: dict[str, float] | None = None

    def cipher(self, name: str, text: str):
        from generator.ptx import BACKEND as CUDA_BACKEND

        return CUDA_BACKEND.load(self.reg, name, None, text)

    def buffers(self, c):
        if self.bufs is None:
            din, dout = c.device_buffer(self.size), c.device_buffer(self.size)
            din.upload(self.host_in)
            self.bufs = (din, dout)
        return self.bufs

    def sass_funcs(self, c) -> dict:
        from runtime.cuda_target import source_dir

        so = source_dir() / f"lib{c.schedule_name}.so"
        if c.schedule_name not in self.sass_cache:
            out = subprocess.run(["cuobjdump", "--dump-sass", str(so)], capture_output=True, text=True)
            self.sass_cache[c.schedule_name] = sass.functions(out.stdout)
        return self.sass_cache[c.schedule_name]

    def time(self, c, rk, iv, xor: bool, flavour: int) -> float:
        din, dout = self.bufs
        f = c.fn("util_time")
        ivb = np.frombuffer(iv, np.uint8).copy()
        ms = (ctypes.c_float * self.reps)()
        per_batch = []
        for b in range(self.batches + 1):  # the first batch warms up
            rc = f(
                rk.ctypes.data,
                1,
                0,
                ivb.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)),
                din.ptr if xor else None,
                dout.ptr,
                self.size,
                flavour,
                self.reps,
                ms,
            )
            c.check(rc, "timing")
            if b:
                per_batch.append(ms[0] / self.reps)
        return statistics.median(per_batch)

    def verify(self, c, ref, rk, rkr, iv, xor: bool) -> bool:
        """The interpreter on the first and last 64 KiB and three random 16 KiB windows of the output."""
        _, dout = self.bufs
        B = c.block_bytes
        n_blocks = self.size // B
        out = dout.download(self.size)
        wins = [(0, 4096), (n_blocks - 4096, 4096)]
        wins += [(int(self.rng.integers(0, n_blocks - 1024)), 1024) for _ in range(3)]
        for start, cnt in wins:
            sub_iv = modes.ctr_next_iv(iv, start)
            ks = ref.encrypt_blocks(rkr, modes.counter_blocks(sub_iv, cnt)).reshape(-1)
            seg = out[start * B : (start + cnt) * B]
            want = ks ^ self.host_in[start * B : (start + cnt) * B] if xor else ks
            if not np.array_equal(seg, want):
                return False
        return True

    def mem_roof(self) -> dict[str, float]:
        """The device's own memory roof for this size, measured once: output Gbps of a cudaMemset over the
        output buffer (keystream: writes only) and of a device-to-device copy of it (XOR: reads and writes the
        same bytes).  A kernel's roof is the lower of this and its SASS roof, so a cipher cheap enough to be
        memory-bound is measured against memory, not against an ALU rate it could never reach.  Needs CuPy
        (installed on the lent GPU machines); without it the SASS roof stands alone.

            before: sbox4_u64 roof 61,119 Gbps (alu)       after: roof min(61,119, ~32,000) (mem)
        """
        if self.mem is None:
            self.mem = {}
            try:
                import cupy as cp
            except ImportError:
                return self.mem
            din, dout = self.bufs
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            for mode, op in (
                ("ks", lambda: cp.cuda.runtime.memsetAsync(dout.ptr, 0x5A, self.size, 0)),
                ("xor", lambda: cp.cuda.runtime.memcpyAsync(dout.ptr, din.ptr, self.size, 3, 0)),
            ):
                op()
                times = []
                for _ in range(5):
                    start.record()
                    for _ in range(self.reps):
                        op()
                    stop.record()
                    stop.synchronize()
                    times.append(cp.cuda.get_elapsed_time(start, stop) / self.reps)
                self.mem[mode] = self.size * 8 / (statistics.median(times) / 1e3) / 1e9
            print(f"memory roof: keystream {self.mem['ks']:,.0f} Gbps (memset), XOR {self.mem['xor']:,.0f} (copy)")
        return self.mem

    def run(self, name: str, text: str) -> dict:
        c = self.cipher(name, text)
        ref = RefCipher(self.reg.module(name))
        self.buffers(c)
        key = self.rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes()
        iv = self.rng.integers(0, 256, c.block_bytes, dtype=np.uint8).tobytes()
        rk, rkr = c.expand_key(key), ref.expand_key(key)
        dev = self.device = c.device
        funcs = self.sass_funcs(c)
        row = {
            "cipher": name,
            "schedule": c.schedule_name,
            "params": text,
            "threads": c.sched.threads,
            "ilp": c.sched.ilp,
            "hoisted_ops": c.source.hoisted_ops,
            "encrypt_ops": c.source.encrypt_ops,
        }
        for mode, xor in (("ks", False), ("xor", True)):
            for fl, flavour in (("ptx", 0), ("c", 1)):
                ms = self.time(c, rk, iv, xor, flavour)
                gbps = self.size * 8 / (ms / 1e3) / 1e9
                ok = self.verify(c, ref, rk, rkr, iv, xor)
                fname = sass.ctr_kernel(funcs, fl, xor)
                mix = sass.loop_mix(funcs[fname], sass.ctr_trips(c.source.cu, fl)) if fname else None
                roof, pipe = (
                    sass.roof_gbps(
                        mix, c.sched.ilp * group_of(c.sched), c.block_bytes, dev["sms"], dev["clock_khz"] / 1e3
                    )
                    if mix
                    else (float("nan"), "?")
                )
                sass_roof, mem = roof, self.mem_roof().get(mode)
                if mem and not mem >= roof:  # (NaN SASS roof: memory's)
                    roof, pipe = mem, "mem"
                row[f"{mode}_{fl}"] = {
                    "ms": ms,
                    "gbps": gbps,
                    "verified": ok,
                    "roof_gbps": roof,
                    "sass_roof_gbps": sass_roof,
                    "mem_roof_gbps": mem,
                    "pipe": pipe,
                    "pct_roof": 100 * gbps / roof if roof == roof else None,
                    "over_roof": bool(gbps > roof * 1.02),
                    "mix": dict(sorted(mix.items(), key=lambda kv: -kv[1])[:12]) if mix else {},
                }
        r = row["ks_ptx"]
        print(
            f"{c.schedule_name:48s} ks ptx {row['ks_ptx']['gbps']:8.0f} c {row['ks_c']['gbps']:8.0f} | "
            f"xor ptx {row['xor_ptx']['gbps']:8.0f} c {row['xor_c']['gbps']:8.0f} Gbps | roof {r['roof_gbps']:8.0f} "
            f"({r['pipe']}) {r['pct_roof'] or 0:5.1f}% | ok {all(row[k]['verified'] for k in ('ks_ptx', 'ks_c', 'xor_ptx', 'xor_c'))}",
            flush=True,
        )
        return row


def pick_tuned(rows: list[dict], names: list[str], reg, clean=None) -> dict:
    """Per cipher, the fastest verified (schedule, flavour) by keystream Gbps -- BOTH flavours ranked; when
    plain CUDA C wins, the schedule carries fl-c, so the built host API runs that flavour by default.

        before: aes128 -> rk-const_t512_tab-shared (inline PTX, 1.82 Tbps)
        after:  aes128 -> fl-c_rk-const_t512_tab-shared (plain C, 2.31 Tbps)
    ``clean(reg, name, sched)``: a schedule qualifies only if it holds (compiles_clean: no spills); and
    only constant-time schedules qualify (safe by default: a table layout is built only when named)."""
    from generator.ptx.build import schedule_for
    from generator.ptx.placement import FLAVOURS, constant_time
    from generator.ptx.source import prepared

    tuned = {}
    for n in names:
        cand = [
            (r[f"ks_{fl}"]["gbps"], fl, r)
            for r in rows
            for fl in FLAVOURS
            if r["cipher"] == n
            and r[f"ks_{fl}"]["verified"]
            and r[f"xor_{fl}"]["verified"]
            and "nohoist" not in r["params"]
        ]
        for gbps, fl, b in sorted(cand, key=lambda t: -t[0]):  # the fastest that compiles without spills
            sched = schedule_for(reg.module(n), b["schedule"] + ("_fl-c" if fl == "c" else ""))
            if not constant_time(prepared(reg.module(n), sched), sched):
                continue
            if clean is None or clean(reg, n, sched):
                tuned[n] = {
                    "schedule": sched.name(reg.module(n)),
                    "flavour": fl,
                    "layout": sched.layout,
                    "ks_gbps": round(gbps, 1),
                    "xor_gbps": round(b[f"xor_{fl}"]["gbps"], 1),
                }
                break
    return tuned


def compiles_clean(reg, name: str, sched) -> bool:
    """Every kernel of the schedule compiles for sm_90 with 0 spills and 0 local memory (a default must)."""
    import tempfile

    from generator.ptx.source import generate
    from toolchain import nvcc

    src = generate(reg.module(name), sched)
    with tempfile.TemporaryDirectory() as d:
        cu = Path(d) / f"{src.name}.cu"
        cu.write_text(src.cu)
        (Path(d) / f"{src.name}.h").write_text(src.h)
        return all(k.clean for k in nvcc.compile_cubin(cu, "sm_90").kernels.values())


def device_info() -> dict:
    q = "name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu"
    out = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True, text=True)
    return {"nvidia_smi": out.stdout.strip()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    ap.add_argument("--size-mib", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--ciphers", default=",".join(CIPHERS))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--stage2", default="1")
    ap.add_argument(
        "--layouts",
        action="store_true",
        help="stage 1: the lane layouts only (and each cipher's current default, to rank them against)",
    )
    ap.add_argument(
        "--schedules",
        default="",
        help="stage 1: exactly these, CIPHER:PARAMS,... (e.g. "
        "aes128:rk-const_t512_tab-shared32_tt4); --ciphers is then the set they belong to",
    )
    ap.add_argument("--tune", default="1", help="0: no tuned.json (skips the picks' serial sm_90 compiles)")
    ap.add_argument("--spec", action="append", default=[], help="also load the ciphers of this spec file")
    args = ap.parse_args()
    if args.spec:
        os.environ[SPEC_ENV] = os.pathsep.join(str(Path(p).resolve()) for p in args.spec)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = args.ciphers.split(",")
    reg = registry()
    if args.schedules:
        stage1 = [tuple(s.split(":", 1)) for s in args.schedules.split(",")]
        names = list(dict.fromkeys(n for n, _ in stage1))
    elif args.layouts:
        from generator.ptx.build import schedule_for

        stage1 = [
            (n, p)
            for n in names
            for p in [schedule_for(reg.module(n), None).name(reg.module(n))] + lane_placements(reg.module(n))
        ]
    else:
        stage1 = [(n, p) for n in names for p in placements(reg.module(n))]
    built = build_all(stage1, args.workers)
    bench = Bench(args.size_mib << 20, args.reps, args.batches)
    rows = []

    def save():
        (out / "results.json").write_text(
            json.dumps({"device": {**device_info(), **bench.device}, "size_bytes": bench.size, "rows": rows}, indent=1)
        )

    for job in stage1:
        if built[job] != "ok":
            print(job, built[job])
            continue
        rows.append(bench.run(*job))
        save()  # (after each row: a run cut by its caller's bound keeps the rows it measured)
    if args.stage2 == "1":
        best = {}
        for r in rows:
            top = max(
                r["ks_ptx"]["gbps"] if r["ks_ptx"]["verified"] else 0, r["ks_c"]["gbps"] if r["ks_c"]["verified"] else 0
            )
            if top and (r["cipher"] not in best or top > best[r["cipher"]][0]):
                best[r["cipher"]] = (top, r)
        best = {n: r for n, (_, r) in best.items()}
        stage2 = []
        for n, r in best.items():
            p = r["params"]
            if args.layouts and "swar" not in p and "_bs" not in p and "_tt" not in p:
                continue  # the current default: tuned before
            if "swar" in p or "_bs" in p or "_tt" in p:  # new layouts: threads only (ILP variants in stage 1)
                stage2 += [(n, f"{p}_t{t}") for t in (64, 256, 512) if f"t{t}" not in p]
                continue
            stage2 += [(n, f"{p}_t{t}") for t in THREADS if t != 256]
            stage2 += [(n, f"{p}_t256_ilp2"), (n, f"{p}_t256_nohoist")]
        built = build_all(stage2, args.workers)
        for job in stage2:
            if built[job] != "ok":
                print(job, built[job])
                continue
            rows.append(bench.run(*job))
        save()
    dev = bench.device
    if args.tune != "1":
        sys.stdout.flush()
        os._exit(0)
    tuned = pick_tuned(rows, names, bench.reg, compiles_clean)
    (out / "tuned.json").write_text(
        json.dumps({"device": dev["name"], "defaults": tuned}, indent=1, sort_keys=True) + "\n"
    )
    print(json.dumps(tuned, indent=1), flush=True)
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: several statically linked CUDA runtimes unload here


if __name__ == "__main__":
    main()
