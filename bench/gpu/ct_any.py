"""The constant-time CUDA defaults of specs outside the shipped set (bench/gpu/ct_any.sh's helper): the example
ciphers (examples/ciphers/) and the conformance cells with tables or bit permutations.

    python3 bench/gpu/ct_any.py specs        the spec files (for --spec), one a line
    python3 bench/gpu/ct_any.py nodeids      those ciphers' GPU tests (test_conformance_matrix_gpu.py), node ids
    python3 bench/gpu/ct_any.py prebuild     builds every default library in parallel (no GPU needed)
    python3 bench/gpu/ct_any.py schedules    the benchmark's CIPHER:SCHEDULE list: the examples' defaults (no --schedule)
                                             and those of the cells with lookups on 64-bit words, then EXTRA (the
                                             former defaults, other thread counts; the opt-in table layouts, leaky)
    python3 bench/gpu/ct_any.py schedules --all   every cell's default too
    python3 bench/gpu/ct_any.py defaults     every example's and cell's default alone, CIPHER:SCHEDULE comma-separated
    python3 bench/gpu/ct_any.py memcheck N   one default run small against the interpreter (under compute-sanitizer)
    python3 bench/gpu/ct_any.py report DIR   DIR/results.json -> a table of Tbps per default beside the targets
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cipherspec.registry import Registry  # noqa: E402

EXAMPLES = sorted((ROOT / "examples" / "ciphers").glob("*.cs"))
CONFORMANCE = [
    ROOT / "tests" / "conformance" / f"{s}.cs"
    for s in ("sbox4", "sbox8", "sbox_inv", "sbox_words", "tables", "arx64", "bitperm", "bitlinear")
]
TARGETS_TBPS = {"present80": 2.0, "sm4": 2.5}  # issue 25 (constant-time defaults)
EXTRA = [
    "present80:bs_rk-const_t128",  # the former default (key planes in the constant bank, past its 8 KB working set)
    "sm4:bs_rk-const_t256",
    "present80:bs_rk-const_t256",
    "sm4:rk-const_t256_tab-shared32",  # the former (leaky) defaults, for the cost of constant time
    "present80:rk-const_t256_tab-shared32",  # (its pLayer a delta-swap network now: bitgather.py)
]


def specs() -> list[Path]:
    return EXAMPLES + CONFORMANCE


def registry() -> Registry:
    return Registry(extra=specs())


def names() -> list[str]:
    """Every cipher of the example specs, and each conformance cell with tables or bit permutations."""
    from cipherspec.parse import parse_file

    reg = registry()
    out = []
    for p in specs():
        for c in parse_file(p).ciphers:
            m = reg.module(c.name)
            if p in EXAMPLES or m.tables or "perm" in p.stem:
                out.append(c.name)
    return out


def wide_names() -> list[str]:
    """The conformance cells with table lookups on 64-bit words (bitsliced by default since split_u64 halves them)."""
    reg = registry()
    return [n for n in names() if reg.module(n).tables and reg.module(n).block.width == 64]


def example_names() -> list[str]:
    from cipherspec.parse import parse_file

    return [c.name for p in EXAMPLES for c in parse_file(p).ciphers]


def default_name(reg: Registry, name: str) -> str:
    from generator.ptx.build import schedule_for
    from generator.ptx.source import prepared

    m = reg.module(name)
    s = schedule_for(m, None)
    return s.name(prepared(m, s))


def main(argv: list[str]) -> int:
    os.environ.setdefault("CIPHERSPEC_BENCH_SPECS", os.pathsep.join(str(p) for p in specs()))
    cmd = argv[0]
    if cmd == "specs":
        print("\n".join(str(p.relative_to(ROOT)) for p in specs()))
    elif cmd == "nodeids":
        print("\n".join(f"tests/differential/test_conformance_matrix_gpu.py::test_on_the_gpu[{n}]" for n in names()))
    elif cmd == "schedules":
        reg = registry()
        picked = set(example_names() + wide_names())
        which = names() if argv[1:] == ["--all"] else [n for n in names() if n in picked]
        print(",".join([f"{n}:{default_name(reg, n).partition('_cuda_ctr_')[2]}" for n in which] + EXTRA))
    elif cmd == "defaults":
        reg = registry()
        print(",".join(f"{n}:{default_name(reg, n).partition('_cuda_ctr_')[2]}" for n in names()))
    elif cmd == "prebuild":
        from bench import build_all

        jobs = [(n, None) for n in names()] + [tuple(e.split(":", 1)) for e in EXTRA]
        res = build_all(jobs, os.cpu_count() or 4)  # type: ignore[arg-type]
        bad = {k: v for k, v in res.items() if v != "ok"}
        print("prebuild:", len(jobs), "defaults; failures:", bad or "none")
        return 1 if bad else 0
    elif cmd == "memcheck":
        import numpy as np

        from driver.targets import make_cipher

        reg, name = registry(), argv[1]
        c, ref = make_cipher(reg, name, None, "cuda"), make_cipher(reg, name, None, "ref")
        rng = np.random.default_rng(5)
        key = rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes()
        blocks = rng.integers(0, 256, (4099, ref.block_bytes), dtype=np.uint8)
        ok = (
            np.asarray(c.encrypt_blocks(c.expand_key(key), blocks)) == ref.encrypt_blocks(ref.expand_key(key), blocks)
        ).all()
        print(f"memcheck workload {default_name(reg, name)}: {'ok' if ok else 'MISMATCH'}")
        return 0 if ok else 1
    elif cmd == "report":
        rows = json.loads((Path(argv[1]) / "results.json").read_text())["rows"]
        print(
            "| cipher | schedule | ks Tbps ptx / c | roof Tbps (pipe) | % of own roof (ptx) | SASS instr./iter (top) | target |"
        )
        print("|---|---|---:|---:|---:|---|---:|")
        for r in rows:
            ks = [r[k]["gbps"] / 1000 if r[k]["verified"] else 0.0 for k in ("ks_ptx", "ks_c")]
            t = TARGETS_TBPS.get(r["cipher"]) if "tab-" not in r["params"] else None
            mark = "" if t is None else f"{t} ({'met' if max(ks) >= t else 'MISSED'})"
            pct = r["ks_ptx"].get("pct_roof")
            mix = ", ".join(f"{k} {v:.0f}" for k, v in list(r["ks_ptx"].get("mix", {}).items())[:4])
            pcts = f"{pct:.0f}%" if pct is not None else "?"
            roof = f"{r['ks_ptx']['roof_gbps'] / 1000:.2f} ({r['ks_ptx']['pipe']})"
            print(f"| {r['cipher']} | {r['params']} | {ks[0]:.2f} / {ks[1]:.2f} | {roof} | {pcts} | {mix} | {mark} |")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
