"""NEON figures of issue 20: PIPO-64/128 instructions per byte, ARIA-128 estimated cycles vs reference C, and
SM4 (examples/ciphers/sm4.cs) with TBL lookups vs AESE with an affine map on each side of AES's S-box.

    python3 -m bench.neon.issue20   -> bench/results/neon-issue20.md (+ .json)

Same measurement as bench/neon/run.py (its ``measure``): executed instructions per byte counted under QEMU's
TCG (unicorn code hook) over one steady-state loop iteration, each kernel's output checked against the
interpreter; cycles are llvm-mca-19 estimates (Neoverse-V2 / N1), not measurements.  No ARM hardware.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from cipherspec.registry import Registry
from generator.neon.schedules import parse

from .measure import mca_tool
from .run import ROOT, measure

ROWS = [  # (schedule, what it shows)
    ("pipo64_128_neon_b16_il2_sha3", "PIPO-64/128 as the library runs it on a CPU with FEAT_SHA3"),
    ("pipo64_128_neon_b16_il2", "PIPO-64/128 portable variant"),
    ("pipo64_128_neon_b16_il3_sha3", "PIPO-64/128, three groups interleaved (not shipped: spills)"),
    ("aria128_neon_b16_crypto_il1_sha3", "ARIA-128 as the library runs it on Neoverse-V2"),
    ("aria128_neon_b16_crypto_il1", "ARIA-128 on a CPU with FEAT_AES only"),
    ("lea128_neon_b4_il4", "LEA-128 (round keys four per LD1)"),
    ("sm4_neon_b4_il2_sha3", "SM4 as the library runs it: TBL/TBX lookups (picked: fewer instructions)"),
    ("sm4_neon_b4_crypto_il2_sha3", "SM4 with AESE + nibble-TBL affine maps (not picked)"),
    ("sm4_neon_b4_il2", "SM4 portable: TBL/TBX lookups"),
    ("sm4_neon_b4_crypto_il2", "SM4 with AESE, no SHA3"),
]
NOTE = (
    "No ARM hardware: instruction counts are executed instructions counted under QEMU's TCG "
    "(unicorn code hook); cycles are llvm-mca-19 estimates, not measurements."
)


def main(argv: list[str]) -> int:
    if not mca_tool():
        print("bench/neon needs llvm-mca-19 (apt-get install llvm-19)", file=sys.stderr)
        return 2
    reg = Registry(extra=[ROOT / "examples" / "ciphers" / "sm4.cs"])
    rows = []
    for name, what in ROWS:
        with tempfile.TemporaryDirectory() as d:
            r = measure(reg, parse(name, name.split("_neon_")[0], None), Path(d))
        r["what"] = what
        for cpu in ("neoverse-v2", "neoverse-n1"):
            r[f"ratio_{cpu}"] = r[f"ref_{cpu}"] / r[f"neon_{cpu}"]
        print(f"{name:34} ipb {r['neon_ipb']:.2f}  V2 {r['neon_neoverse-v2']:.2f} cpb  x{r['ratio_neoverse-v2']:.2f}")
        rows.append(r)
    out = ROOT / "bench" / "results"
    lines = [
        "# NEON, issue 20: PIPO instructions/byte, ARIA estimated cycles, SM4 TBL vs AESE",
        "",
        f"**{NOTE}**",
        "",
        "Command: `python3 -m bench.neon.issue20`.  ECB encryption, one steady-state loop iteration; reference C: "
        "the spec's IR as scalar C, `clang -O3 -mcpu=neoverse-n1`, one block per call (bench/neon/refc.py).",
        "",
        "| schedule | what | blocks/iter | instr/byte NEON (QEMU) | instr/byte ref C | cycles/byte V2 (mca) "
        "| × fewer cycles V2 (est.) | cycles/byte N1 (mca) | spills | values held inverted |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        st = r["stats"]
        lines.append(
            f"| {r['schedule']} | {r['what']} | {r['blocks']} | {r['neon_ipb']:.2f} | {r['ref_ipb']:.2f} "
            f"| {r['neon_neoverse-v2']:.2f} | {r['ratio_neoverse-v2']:.2f} | {r['neon_neoverse-n1']:.2f} "
            f"| {st['spills']} | {'yes' if st.get('polarity') else 'no'} |"
        )
    (out / "neon-issue20.md").write_text("\n".join(lines) + "\n")
    (out / "neon-issue20.json").write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
