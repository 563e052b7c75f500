"""Load pairing: two 16-byte loads from one read-only base (key table x0, constant pool x8) become one LDP.

A later ``ldr qB, [xN, #o±16]`` joins an earlier ``ldr qA, [xN, #o]`` when qB is neither read nor
written between them (the pair defines qB earlier) and qA != qB; the offset must fit LDP's
-1024..1008.  Runs on the allocated, rendered lines of a straight-line loop body.

    before:  ldr q3, [x0, #32]   // round key a         after:  ldp q3, q5, [x0, #32]   // round key a + b
             eor v1.16b, v1.16b, v3.16b                         eor v1.16b, v1.16b, v3.16b
             ldr q5, [x0, #48]   // round key b
"""

from __future__ import annotations

import re

_LDR = re.compile(r"^(\s*)ldr q(\d+), \[(x0|x8), #(\d+)\]\s*(?://\s*(.*))?$")
_RANGE = re.compile(r"v(\d+)\.\w+-v(\d+)\.\w+")
_REG = re.compile(r"\b[vqdsb](\d+)\b")
WINDOW = 48  # lines looked back for a partner


def _regs(line: str) -> set[int]:
    code = line.split("//")[0]
    out = {int(r) for r in _REG.findall(code)}
    for a, b in _RANGE.findall(code):
        a, b = int(a), int(b)
        out |= {(a + k) % 32 for k in range((b - a) % 32 + 1)}
    return out


def pair(lines: list[str]) -> list[str]:
    out: list[str | None] = list(lines)
    for j, line in enumerate(lines):
        m = _LDR.match(line)
        if not m:
            continue
        rb, base, ob = int(m.group(2)), m.group(3), int(m.group(4))
        for i in range(j - 1, max(-1, j - WINDOW - 1), -1):
            prev = out[i]
            if prev is None:
                continue
            pm = _LDR.match(prev)
            if pm and pm.group(3) == base and int(pm.group(2)) != rb and abs(int(pm.group(4)) - ob) == 16:
                ra, oa = int(pm.group(2)), int(pm.group(4))
                lo, hi = ((ra, rb), oa) if oa < ob else ((rb, ra), ob)
                off = min(oa, ob)
                if off <= 1008:
                    text = f"{pm.group(1)}ldp q{lo[0]}, q{lo[1]}, [{base}, #{off}]"
                    why = " + ".join(w for w in (pm.group(5), m.group(5)) if w)
                    out[i] = f"{text:<48}// {why}" if why else text
                    out[j] = None
                break
            if rb in _regs(prev):
                break
    return [x for x in out if x is not None]
