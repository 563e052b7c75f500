"""The static schedule ptxas gave a kernel's round loop, without a GPU: from each instruction's control word
(cuobjdump prints it as the second 64-bit word) the stall cycles, the scoreboard a variable-latency instruction
sets and the ones an instruction waits on, and the operand reuse flags.

    cuobjdump --dump-sass lib.so > k.sass
    python3 bench/gpu/sass_static.py k.sass _ctr_ptxILb0     -> the kernel's innermost backward loop:
        instructions, stall cycles (and how many carry each stall), the distance in instructions / stall cycles
        from each load (LDC, LDS, ...) to its first waiting reader, and the share of LOP3 whose three fresh
        register operands sit in one bank (register number parity, the operands not in the reuse cache)

Control word (Volta and later): bits 41-44 stall, 46-48 the scoreboard written, 49-51 the one read, 52-57 the
scoreboards waited on, 58-61 the reuse flags of operand slots 0-3.  bench/results/ariaroof.md has a reading.
"""

from __future__ import annotations

import re
import statistics
import sys
from collections import Counter

_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/")
_HI = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/")


def kernel(dump: str, needle: str) -> list[tuple[int, str, int]]:
    """(address, instruction text, control bits) of the first function whose name holds ``needle``."""
    out: list[tuple[int, str, int]] = []
    lines = dump.splitlines()
    inside = False
    for i, line in enumerate(lines):
        if "Function :" in line:
            if inside:
                break
            inside = needle in line
            continue
        m = _LINE.search(line) if inside else None
        if m and i + 1 < len(lines):
            hi = _HI.match(lines[i + 1])
            if hi:
                out.append((int(m.group(1), 16), m.group(2), int(hi.group(1), 16) >> 41))
    return out


def innermost_loop(ins: list[tuple[int, str, int]]) -> list[tuple[int, str, int]]:
    """The body of the backward branch with the fewest instructions that still spans more than 64 (the round
    loop, not the grid-stride loop around it nor a short copy loop)."""
    spans = []
    for addr, text, _ in ins:
        m = re.search(r"\bBRA 0x([0-9a-f]+)", text)
        if m and int(m.group(1), 16) < addr:
            spans.append((int(m.group(1), 16), addr))
    spans = [s for s in spans if (s[1] - s[0]) // 16 > 64]
    if not spans:
        return ins
    lo, hi = min(spans, key=lambda s: s[1] - s[0])
    return [x for x in ins if lo <= x[0] <= hi]


def report(body: list[tuple[int, str, int]]) -> dict:
    stall = [c & 0xF for _, _, c in body]
    pending: dict[int, int] = {}
    gaps = []  # (instructions, stall cycles) from a scoreboard's setter to its first waiter
    prev_reuse: dict[int, int] = {}
    same_bank = lop3 = 0
    for k, (_, text, c) in enumerate(body):
        wait, written = (c >> 11) & 0x3F, (c >> 5) & 7
        for sb in [b for b in range(6) if wait >> b & 1 and b in pending]:
            s = pending.pop(sb)
            gaps.append((k - s, sum(stall[s:k])))
        if written != 7:
            pending[written] = k
        ops = [a.strip() for a in text.split(None, 1)[-1].split(",")][1:]
        fresh, reuse = [], {}
        for slot, a in enumerate(ops):
            m = re.match(r"-?~?R(\d+)(\.reuse)?", a)
            if not m:
                continue
            if m.group(2):
                reuse[slot] = int(m.group(1))
            if prev_reuse.get(slot) != int(m.group(1)):
                fresh.append(int(m.group(1)))
        prev_reuse = reuse
        if text.split()[0].startswith("LOP3"):
            lop3 += 1
            same_bank += len(set(fresh)) == 3 and len({r % 2 for r in fresh}) == 1
    return {
        "instructions": len(body),
        "stall_cycles": sum(stall),
        "stall_hist": dict(sorted(Counter(stall).items())),
        "loads_to_reader_median": (
            statistics.median(g[0] for g in gaps) if gaps else None,
            statistics.median(g[1] for g in gaps) if gaps else None,
        ),
        "waits": len(gaps),
        "lop3": lop3,
        "lop3_three_fresh_one_bank_pct": 100 * same_bank / lop3 if lop3 else 0.0,
    }


def main() -> int:
    dump = open(sys.argv[1]).read()
    ins = kernel(dump, sys.argv[2])
    if not ins:
        raise SystemExit(f"no function with {sys.argv[2]!r} in {sys.argv[1]}")
    for k, v in report(innermost_loop(ins)).items():
        print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
