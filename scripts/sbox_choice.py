"""Records the GPU's S-box circuit picks (generator/ptx/sbox_choice.json): python3 scripts/sbox_choice.py
(~90 s of CPU; run it after changing the search, the circuits or the LOP3 cover, and commit the JSON)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator.common.bitslice import best_lowering, two_sided  # noqa: E402
from generator.ptx.bitsliced import IRPlanes, lop3_count  # noqa: E402
from generator.ptx.sbox_choice import RECORD, RECORD_KEEP, digest  # noqa: E402


def record(tables: list[tuple[str, tuple[int, ...]]]) -> dict[str, dict]:
    """The search over ``tables`` ((where from, values)), RECORD_KEEP decompositions a circuit."""
    out: dict[str, dict] = {}
    for where, values in tables:
        base = best_lowering(values, IRPlanes.SBOX_SHAPES, lop3_count, 1)
        n, (a, k), shape, how = best_lowering(values, IRPlanes.SBOX_SHAPES, lop3_count, RECORD_KEEP)
        out[digest(values)] = {
            "a": a,
            "k": k,
            "shape": shape,
            "how": how,
            "lop3": n,
            "lop3_own": base[0],
            "seen_in": where,
        }
        print(f"{where}: {base[0]} -> {n} LOP3 ((a, k) = ({a}, {k}), {shape}, {how})", flush=True)
    return out


def _spec_tables() -> list[tuple[str, tuple[int, ...]]]:
    """Every distinct 8-bit table affine-equivalent to inversion in the shipped, example and conformance specs."""
    from cipherspec.registry import Registry

    root = Path(__file__).resolve().parents[1]
    extra = sorted((root / "examples" / "ciphers").glob("*.cs")) + sorted((root / "tests" / "conformance").glob("*.cs"))
    reg = Registry(extra=extra)
    seen: dict[tuple[int, ...], str] = {}
    for name in reg.names():
        for tname, table in sorted(reg.module(name).tables.items()):
            values = tuple(table.values)
            if table.in_width == table.out_width == 8 and values not in seen and two_sided(values) is not None:
                seen[values] = f"{name} {tname}"
    return [(where, values) for values, where in seen.items()]


def main() -> int:
    RECORD.write_text(json.dumps(record(_spec_tables()), indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
