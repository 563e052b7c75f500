"""What the library-against-library device A/Bs share (ctr_ab.py, gcm_fused_ab.py): each arm's library of a cipher,
as `cipherspec build --target cuda` wrote it, loaded side by side in one process; its outputs checked; then each
route timed, the arms alternating batch by batch, the median of the batches (the first round a warm-up).

    rows = run(arms, ["aes128"], check, routes, reps=10, batches=7, say=print_route)
    -> [{"cipher": "aes128", "schedule": .., "device": "NVIDIA H200", "check": {arm: "equal"},
         "<route>": {arm: ms a call}, ..}]
"""

from __future__ import annotations

import contextlib
import ctypes
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.registry import Registry  # noqa: E402
from generator.c import BACKEND as C_BACKEND  # noqa: E402
from generator.ptx.build import schedule_for  # noqa: E402
from generator.ptx.source import generate  # noqa: E402
from runtime.cuda_target import CudaCipher  # noqa: E402


def load(reg: Registry, name: str, out_dir: Path) -> CudaCipher:
    """The library `cipherspec build` wrote into out_dir for ``name``'s default schedule."""
    module = reg.module(name)
    sched = schedule_for(module, None)
    src = generate(module, sched, flavours=(sched.flavour,))
    so = out_dir / f"lib{src.name}.so"
    if not so.is_file():
        raise SystemExit(f"{so}: not built (cipherspec build {name} --target cuda -o {out_dir})")
    lib = ctypes.CDLL(str(so.resolve()), mode=ctypes.RTLD_LOCAL)
    return CudaCipher(module, sched, src, lib=lib)


def run(
    arms: dict[str, str],
    ciphers: list[str],
    check: Callable,
    routes: Callable,
    reps: int,
    batches: int,
    say: Callable[[str, str, dict[str, float]], None],
) -> list[dict]:
    """Per cipher: ``check(c, c_library, rng)`` -> "equal" or what differs, for each arm; ``routes(c, rng, stack)``
    -> {route: call(reps, ms)} (device buffers entered into ``stack``, released after the cipher's timing); each
    route's ms a call per arm; ``say(cipher, route, {arm: ms})`` after each route."""
    reg = Registry()
    rows = []
    for name in ciphers:
        cl = C_BACKEND.load(reg, name, None, None)
        libs = {arm: load(reg, name, Path(d)) for arm, d in arms.items()}
        first = next(iter(libs.values()))
        row: dict = {"cipher": name, "schedule": first.schedule_name, "device": None}
        row["check"] = {arm: check(c, cl, np.random.default_rng(5)) for arm, c in libs.items()}
        print(name, row["check"], flush=True)
        with contextlib.ExitStack() as stack:
            calls = {arm: routes(c, np.random.default_rng(9), stack) for arm, c in libs.items()}
            row["device"] = first.device["name"]
            ms = (ctypes.c_float * 1)()
            for route in next(iter(calls.values())):
                got: dict[str, list[float]] = {arm: [] for arm in arms}
                for b in range(batches + 1):
                    for arm in arms:
                        calls[arm][route](reps, ms)
                        if b:
                            got[arm].append(ms[0] / reps)
                row[route] = {arm: statistics.median(v) for arm, v in got.items()}
                say(name, route, row[route])
        rows.append(row)
    return rows
