"""The ALU-pipe roof of a kernel from its SASS: instructions per block, by pipe, in the grid-stride loop.

    mix = loop_mix(funcs[ctr_kernel(funcs, "ptx", False)])  -> {"LOP3": 144, "IADD3": 72, "SHF": 72, ...} (per loop trip)
    roof = roof_gbps(mix, ilp, block_bytes, sms, clock_mhz)

Pipe model (per SM sub-partition per clock, sm_80/sm_90; a model, stated so it can be checked):
    issue: 1 warp instruction;  alu pipe: 1/2 (LOP3, SHF, PRMT, ISETP, SEL, LEA, BMSK, ...);
    fma pipe: 1/2 (IMAD, IMUL, FFMA, ...);  IADD3/IADD/MOV may go to either pipe.
A loop trip costs max(alu/0.5, fma/0.5, (alu+fma+flex)/1, all/1) cycles per warp; the roof is
blocks/s = SMs x 4 x clock x 32 x ILP / cycles, times the block's bits.  A measured figure above it
means the kernel did not do the work (dead code, unconsumed output): the benchmark flags it.
"""

from __future__ import annotations

import re
from collections import Counter

ALU = {
    "LOP3",
    "LOP",
    "SHF",
    "PRMT",
    "ISETP",
    "SEL",
    "LEA",
    "BMSK",
    "SGXT",
    "FLO",
    "POPC",
    "BREV",
    "IABS",
    "IMNMX",
    "VIMNMX",
    "PLOP3",
    "P2R",
    "R2P",
    "CSET",
    "CSETP",
    "SHL",
    "SHR",
    "BFE",
    "BFI",
    "IDP",
}
FMA = {"IMAD", "IMUL", "FFMA", "FMUL", "FADD", "HFMA2", "IMADSP"}
FLEX = {"IADD3", "IADD", "MOV", "VIADD"}
_FUNC = re.compile(r"^\s*Function : (\S+)")
_INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[A-Z0-9_.]+)?\s*([^;]*);")


def functions(sass: str) -> dict[str, list[tuple[int, str, str]]]:
    """Per function: (address, opcode, operands)."""
    out: dict[str, list[tuple[int, str, str]]] = {}
    cur = None
    for line in sass.splitlines():
        m = _FUNC.match(line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        m = _INS.search(line)
        if m:
            cur.append((int(m.group(1), 16), m.group(3), m.group(5)))
    return out


def _loops(ins: list[tuple[int, str, str]]) -> list[tuple[int, int]]:
    """(target, branch address) of every backward branch."""
    out = []
    for addr, op, args in ins:
        if op == "BRA":
            m = re.search(r"0x([0-9a-f]+)", args)
            if m and int(m.group(1), 16) < addr:
                out.append((int(m.group(1), 16), addr))
    return out


def loop_mix(ins: list[tuple[int, str, str]], inner_trips: int = 1) -> Counter:
    """Opcode counts of one trip of the outermost backward branch's body (the grid-stride loop); a loop
    nested in it (a bitsliced kernel's round loop, roundloop.py) counts ``inner_trips`` times."""
    loops = _loops(ins)
    if not loops:
        return Counter(op for _, op, _ in ins)
    outer = max(loops, key=lambda s: s[1] - s[0])
    inner = [s for s in loops if s != outer and outer[0] <= s[0] and s[1] <= outer[1]]
    mix: Counter = Counter()
    for addr, op, _ in ins:
        if outer[0] <= addr <= outer[1]:
            mix[op] += inner_trips if any(a <= addr <= b for a, b in inner) else 1
    return mix


def round_trips(cu: str, flavour: str = "ptx", core: str = "enc") -> int:
    """Iterations of the round loop of a generated .cu's encryption core (1: no round loop); ``core``: "main" for
    the bitsliced CTR kernels' core (bs_ctr.py), whose loop may start a round later."""
    head = rf"void cs_{core}_{flavour}\([^\n]*\n\{{\n[^\n]*\n[^\n]*_pre\([^\n]*\n#pragma unroll 1\n"
    m = re.search(head + r"\s*for \(int i = 0; i < (\d+);", cu)
    if m:
        return int(m.group(1))
    # (the trips read at run time: rk[0] - spare, rk[0] the rows set_key stores -- keyorder.py)
    head = rf"void cs_{core}_{flavour}\([^\n]*\n\{{\n[^\n]*\n[^\n]*_pre\([^\n]*\n"
    m = re.search(head + r"\s*const int trips = \(int\)rk(?:\.w)?\[0\](?: - (\d+))?;", cu)
    rows = re.search(r"^    rk\[0\] = (\d+);  // the round loops' rows", cu, re.M)
    return int(rows.group(1)) - int(m.group(1) or 0) if m and rows else 1


def ctr_trips(cu: str, flavour: str = "ptx") -> int:
    """round_trips of the core the CTR kernel calls: cs_main where the bitsliced CTR kernels read host-computed
    segment planes (generator/ptx/bs_ctr.py), else cs_enc."""
    return round_trips(cu, flavour, "main" if f"void cs_main_{flavour}(" in cu else "enc")


def cycles_per_trip(mix: Counter) -> tuple[float, str]:
    alu = sum(v for k, v in mix.items() if k in ALU)
    fma = sum(v for k, v in mix.items() if k in FMA)
    flex = sum(v for k, v in mix.items() if k in FLEX)
    total = sum(mix.values())
    bounds = {"alu": alu / 0.5, "fma": fma / 0.5, "alu+fma": float(alu + fma + flex), "issue": float(total)}
    pipe = max(bounds, key=bounds.get)
    return bounds[pipe], pipe


def roof_gbps(mix: Counter, ilp: int, block_bytes: int, sms: int, clock_mhz: float) -> tuple[float, str]:
    cyc, pipe = cycles_per_trip(mix)
    blocks_per_s = sms * 4 * clock_mhz * 1e6 * 32 * ilp / cyc
    return blocks_per_s * block_bytes * 8 / 1e9, pipe


def pick(funcs: dict, *needles: str) -> str | None:
    for name in sorted(funcs):
        if all(n in name for n in needles):
            return name
    return None


def ctr_kernel(funcs: dict, flavour: str, xor: bool) -> str | None:
    """The CTR kernel of a flavour: one kernel for both modes (``P_ctr_ptx``, the XOR a uniform test since
    the cudamerge branch: its loop holds both store loops, about 1% of a bitsliced trip), or in an older
    library the template instance (``P_ctr_ptx<true>`` / ``<false>``)."""
    return pick(funcs, f"_ctr_{flavour}ILb1" if xor else f"_ctr_{flavour}ILb0") or pick(funcs, f"_ctr_{flavour}E")
