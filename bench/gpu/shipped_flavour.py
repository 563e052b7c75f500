"""The library `cipherspec build --target cuda` ships (one kernel flavour, -DCS_FLAVOURS) on a GPU: its output
against the C library, its refusal of the left-out flavour (CS_EFLAVOUR), and its CTR keystream rate against
the runtime's two-flavour library of the same source (the same kernel: the rates should match).

    python3 bench/gpu/shipped_flavour.py OUT SPEC CIPHER     -> OUT/shipped-<CIPHER>.json, exit 1 on a mismatch
"""

from __future__ import annotations

import ctypes
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.registry import Registry  # noqa: E402
from driver.targets import make_cipher  # noqa: E402
from generator.ptx import build as cuda_build  # noqa: E402
from generator.ptx.source import generate  # noqa: E402
from runtime.cuda_target import FLAVOUR, CudaCipher, load_library  # noqa: E402


def rate_gbps(c: CudaCipher, rk: np.ndarray, nbytes: int, reps: int = 5) -> float:
    """Median Gbps of the device-pointer CTR keystream in the schedule's default flavour (the download of 16
    bytes after each launch waits for it)."""
    ivb = np.zeros(c.block_bytes, np.uint8)
    fn, fl = c.fn("ctr_dev_flavour"), FLAVOUR[c.sched.flavour]
    u8p = ctypes.POINTER(ctypes.c_uint8)
    times = []
    with c.device_buffer(nbytes) as dout:
        for i in range(reps + 1):
            t0 = time.perf_counter()
            c.check(fn(rk.ctypes.data, ivb.ctypes.data_as(u8p), None, dout.ptr, nbytes, None, fl), "CTR")
            dout.download(16)
            if i:  # the first one warms up
                times.append(time.perf_counter() - t0)
    return nbytes * 8 / sorted(times)[len(times) // 2] / 1e9


def main(out: Path, spec: str, name: str) -> int:
    out.mkdir(parents=True, exist_ok=True)
    reg = Registry(extra=[spec])
    lib_dir = out / f"shipped-{name}"
    t0 = time.perf_counter()
    notes = cuda_build.build(reg, [name], None, lib_dir)
    build_s = time.perf_counter() - t0
    module = reg.module(name)
    sched = cuda_build.schedule_for(module, None)
    src = generate(module, sched)
    so = next(lib_dir.glob("lib*.so"))
    shipped = CudaCipher(module, sched, src, lib=ctypes.CDLL(str(so)))
    both = CudaCipher(module, sched, src, lib=load_library(src))
    cref = make_cipher(reg, name, None, "c")
    rng = np.random.default_rng(25)
    key = rng.integers(0, 256, module.key.nbytes, dtype=np.uint8).tobytes()
    iv = rng.integers(0, 256, module.block.nbytes, dtype=np.uint8).tobytes()
    data = rng.integers(0, 256, (1 << 20) + 5, dtype=np.uint8).tobytes()
    rk = shipped.expand_key(key)
    want = cref.run_mode(cref.expand_key(key), "ctr", "encrypt", data, iv)
    ok_ctr = shipped.device_ctr(rk, iv, data) == want
    blocks = data[: (len(data) // module.block.nbytes) * module.block.nbytes]
    ok_ecb = shipped.device_ecb(rk, blocks, flavour=sched.flavour) == cref.run_mode(
        cref.expand_key(key), "ecb", "encrypt", blocks
    )
    other = "c" if sched.flavour == "ptx" else "ptx"
    try:
        shipped.device_ctr(rk, iv, data[:64], flavour=other)
        refused = "NOT refused"
    except Exception as e:  # the library's error, as the runtime raises it
        refused = str(e)
    n = 256 << 20
    r_shipped, r_both = rate_gbps(shipped, rk, n), rate_gbps(both, both.expand_key(key), n)
    row = dict(
        cipher=name,
        schedule=src.name,
        build_s=round(build_s, 1),
        ctr_ok=ok_ctr,
        ecb_ok=ok_ecb,
        other_flavour=refused,
        ks_gbps_shipped=round(r_shipped, 1),
        ks_gbps_two_flavour=round(r_both, 1),
        notes=notes,
    )
    (out / f"shipped-{name}.json").write_text(json.dumps(row, indent=1))
    print(json.dumps({k: v for k, v in row.items() if k != "notes"}))
    good = ok_ctr and ok_ecb and "flavour not compiled" in refused
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3]))
