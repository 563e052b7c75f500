"""Inline-PTX statements grouped into asm blocks: a printing pass over a core's emitted lines (isel.py, wide.py).

A bitsliced core is thousands of one-instruction ``asm`` statements; nvcc's optimizer (cicc) spends most of a
library's build walking them, once per kernel that inlines the core.  This pass prints each straight-line run
of them as one ``asm`` statement per group of at most ``CAP`` operands: the values the run reads from outside
become its inputs, the values read after it its outputs, the rest PTX registers local to the block.  The PTX
instructions, their order and their operands are the ones the statements held; only who names the registers
changes.  Every other line (a table load, a C definition) ends a run and is printed as it was, and a statement
stays alone where a block would change what nvcc makes of the code around it (``fuse``: one that reads memory,
one that reads no state).

    before:  uint32_t v5; asm("xor.b32 %0, %1, %2;" : "=r"(v5) : "r"(x[0]), "r"(x[1]));   // %5 xor ...
             uint32_t v6; asm("and.b32 %0, %1, %2;" : "=r"(v6) : "r"(v5), "r"(x[2]));     // %6 and ...
    after:   uint32_t v6;  // asm block: 2 statements, 1 values out (asmblock.py)
             asm("{\\n\\t.reg .b32 v5, v6;\\n\\t"
                 "xor.b32 v5, %1, %2;\\n\\t"  // %5 xor ...
                 "and.b32 v6, v5, %3;\\n\\t"  // %6 and ...
                 "mov.b32 %0, v6;\\n\\t}" : "=r"(v6) : "r"(x[0]), "r"(x[1]), "r"(x[2]));

Outputs are written only by the trailing ``mov``s, after every input is read, so an output may share a
register with an input.  ``expand`` turns a block back into the one-statement form (the CPU emulator and the
CPU shim read that form).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

CAP = 96  # operands (inputs + outputs) per block
# On by default: every shipped library's kernels compile to the same SASS as with the statements one by one but
# AES-128/192/256's multi-key CTR kernel (the same count, one instruction fewer a grid-stride trip, another order),
# which the device A/B measured at no loss (bench/results/cuda-build-time.md, sixth pass).  The switch:
# CIPHERSPEC_PTX_ASMBLOCK unset or 1 prints blocks of up to CAP operands, =N (N >= 2) of up to N, 0 statements.
# statements a block holds at least: a shorter one saves nvcc little and still moves the code around it (the
# ARX ciphers' runs of 2-3 between round-key reads changed LEA-192's CTR and CHAM's GCM kernels' SASS)
MIN_RUN = 8
_ONE = re.compile(r'^uint32_t (\w+); asm\("([^"]+)" : "=r"\(\1\) : (.*)\);$')
_TWO = re.compile(r'^uint32_t (\w+), (\w+); asm\("([^"]+)" : "=r"\(\1\), "=r"\(\2\) : (.*)\);$')
_IN = re.compile(r'"r"\(((?:[^()]|\([^()]*\))*)\)')
_ID = re.compile(r"\b[A-Za-z_]\w*\b")
_OPND = re.compile(r"%(\d+)")
_REG = re.compile(r"^(\w+|[xh]\[\d+\])$")


@dataclass
class Stmt:
    dsts: list[str]
    template: str  # over %0.. (dsts) then the inputs
    srcs: list[str]  # input expressions
    comment: str
    line: str = ""  # as emitted (printed back unchanged where the statement stays alone)


def cap() -> int:
    """The operand cap CIPHERSPEC_PTX_ASMBLOCK asks for (CAP by default, WIDE_CAP with CIPHERSPEC_PTX_CORE's "cap"
    part; 0: no blocks; N: N)."""
    env = os.environ.get("CIPHERSPEC_PTX_ASMBLOCK", "1")
    n = int(env) if env.isdigit() else 0
    return (WIDE_CAP if wide("cap") else CAP) if n == 1 else n


def multi() -> bool:
    """Whether the multi-key core (the DRBG bulk's and GCM batch's keystream) is printed as blocks too: yes unless
    CIPHERSPEC_PTX_ASMBLOCK_MULTI=0.  Fused, AES-128/192/256's multi-key CTR kernel compiles to other SASS (the
    same count, one instruction fewer a grid-stride trip, another order; on an H200 0.3-0.5% either way of its
    launch time, the device A/B of bench/gpu/buildtime3.sh); statements, every shipped kernel's SASS is the same as
    without blocks."""
    return os.environ.get("CIPHERSPEC_PTX_ASMBLOCK_MULTI", "1") != "0"


WIDE_CAP = 256  # operands per block with the "cap" part on (fewer, larger blocks: fewer C values for cicc)
PARTS = ("lanes_out", "cap", "main")


def wide(part: str) -> bool:
    """Whether the seventh pass's ``part`` is on (cuda-build-time.md): "lanes_out", blocks for the lane transform
    out of the planes; "cap", blocks of up to WIDE_CAP operands; "main", blocks for the bitsliced CTR core that
    reads the segment's planes (its reads of them stay statements of their own, as the round keys' do).
    CIPHERSPEC_PTX_CORE=1: all of PARTS, else a comma list of them; unset or 0: none (the default).  With all three
    AES-128's cicc takes 11-17% less CPU, but 7 of its 27 kernels compile to other SASS and on an H200 its CTR
    keystream ran 0.9-1.0% slower (two device rounds), so they stay off."""
    env = os.environ.get("CIPHERSPEC_PTX_CORE", "0")
    parts = PARTS if env == "1" else () if env == "0" else tuple(env.split(","))
    return part in parts


def _parse(line: str) -> Stmt | None:
    code, sep, comment = line.partition("//")
    code = code.strip()
    m = _ONE.match(code)
    if m:
        return Stmt([m.group(1)], m.group(2), _IN.findall(m.group(3)), (sep + comment).strip(), line)
    m = _TWO.match(code)
    if m:
        return Stmt([m.group(1), m.group(2)], m.group(3), _IN.findall(m.group(4)), (sep + comment).strip(), line)
    return None


_CDEF = re.compile(r"^const \w+ (\w+) = (.*);")


def _varying(lines: list[str], stmts: list[Stmt | None]) -> set[str]:
    """The values that depend on the state ``x`` (the rest read only keys, tables and hoisted planes)."""
    varying = {"x"}
    for ln, st in zip(lines, stmts, strict=True):
        if st is not None:
            if any(varying.intersection(_ids(s)) for s in st.srcs):
                varying.update(st.dsts)
        else:
            m = _CDEF.match(ln.partition("//")[0].strip())
            if m and varying.intersection(_ids(m.group(2))):
                varying.add(m.group(1))
    return varying


def _ids(text: str) -> list[str]:
    return _ID.findall(text.partition("//")[0])


def fuse(lines: list[str], after: list[str], limit: int | None = None, min_run: int = MIN_RUN) -> list[str]:
    """``lines`` printed with each run of inline-PTX statements as blocks of at most ``limit`` operands and at
    least ``min_run`` statements; ``after``: expressions read after the lines (the core's outputs), which keep a
    value live."""
    limit = cap() if limit is None else limit
    if limit < 2:
        return list(lines)
    stmts = [_parse(ln) for ln in lines]
    defs = {d for st in stmts if st for d in st.dsts}
    varying = _varying(lines, stmts)
    for k, st in enumerate(stmts):
        if st is None:
            continue
        # stays a statement of its own: one with an input that computes with a value (not the value itself),
        # one that reads memory (a round key, a hoisted plane: nvcc loads it right before the statement, a
        # block's loads would all come before the block), one that reads no state (nvcc may hoist it out of
        # the caller's loops)
        if (
            any(s not in defs and defs.intersection(_ids(s)) for s in st.srcs)
            or not varying & set(st.dsts)
            or not all(_REG.match(s) for s in st.srcs)
        ):
            stmts[k] = None
    uses: dict[str, int] = {}
    for ln, st in zip(lines, stmts, strict=True):
        for name in (i for s in st.srcs for i in _ids(s)) if st else _ids(ln):
            uses[name] = uses.get(name, 0) + 1
    for e in after:
        for name in _ids(e):
            uses[name] = uses.get(name, 0) + 1
    out: list[str] = []
    run: list[Stmt] = []
    for ln, st in zip(lines, stmts, strict=True):
        if st is None:
            out += _blocks(run, uses, limit, min_run)
            run = []
            out.append(ln)
        else:
            run.append(st)
    return out + _blocks(run, uses, limit, min_run)


def _blocks(run: list[Stmt], uses: dict[str, int], limit: int, min_run: int) -> list[str]:
    """One straight-line run, cut greedily into groups whose inputs + live outputs stay within ``limit``."""
    out: list[str] = []
    group: list[Stmt] = []
    ins: set[str] = set()  # the group's inputs
    inside: dict[str, int] = {}  # the group's own values -> their uses within the group
    live = 0  # the group's values read after it (its outputs)
    for st in run:
        if group and len(ins) + live + _growth(st, ins, inside, uses) > limit:
            out += _print(group, uses, min_run)
            group, ins, inside, live = [], set(), {}, 0
        for s in st.srcs:
            if s in inside:
                inside[s] += 1
                live -= inside[s] == uses.get(s, 0)
            else:
                ins.add(s)
        for d in st.dsts:
            inside[d] = 0
            live += uses.get(d, 0) > 0
        group.append(st)
    return out + _print(group, uses, min_run)


def _growth(st: Stmt, ins: set[str], inside: dict[str, int], uses: dict[str, int]) -> int:
    """How many operands the group gains with ``st``: its new inputs and values, less the values it reads last."""
    grow = len({s for s in st.srcs if s not in inside} - ins) + sum(uses.get(d, 0) > 0 for d in st.dsts)
    for s in set(st.srcs) & inside.keys():
        grow -= inside[s] < uses.get(s, 0) <= inside[s] + st.srcs.count(s)
    return grow


def _print(group: list[Stmt], uses: dict[str, int], min_run: int) -> list[str]:
    if not group:
        return []
    defs = {d: 0 for st in group for d in st.dsts}
    for st in group:
        for s in st.srcs:
            if s in defs:
                defs[s] += 1
    outs = [d for d, n in defs.items() if uses.get(d, 0) > n]
    if len(group) < max(min_run, 2) or not outs:  # little to gain (or a dead run: leave it to nvcc to drop)
        return [st.line for st in group]
    ins: list[str] = []
    for st in group:
        ins += [s for s in st.srcs if s not in defs and s not in ins]
    ref = {s: f"%{len(outs) + k}" for k, s in enumerate(ins)}
    lines = [
        f"uint32_t {', '.join(outs)};  // asm block: {len(group)} statements, {len(outs)} values out (asmblock.py)"
    ]
    lines.append(f'asm("{{\\n\\t.reg .b32 {", ".join(defs)};\\n\\t"')
    for st in group:
        names = st.dsts + [s if s in defs else ref[s] for s in st.srcs]
        text = _OPND.sub(lambda m, names=names: names[int(m.group(1))], st.template)  # type: ignore[misc]
        lines.append(f'    "{text}\\n\\t"  {st.comment}'.rstrip())
    movs = "".join(f"mov.b32 %{k}, {d};\\n\\t" for k, d in enumerate(outs))
    o = ", ".join(f'"=r"({d})' for d in outs)
    i = ", ".join(f'"r"({s})' for s in ins)
    lines.append(f'    "{movs}}}" : {o} : {i});')
    return lines


def _single(st: Stmt) -> str:
    ins = ", ".join(f'"r"({s})' for s in st.srcs)
    outs = ", ".join(f'"=r"({d})' for d in st.dsts)
    code = f'uint32_t {", ".join(st.dsts)}; asm("{st.template}" : {outs} : {ins});'
    return f"{code:<96} {st.comment}".rstrip()


# ----------------------------------------------------------------------------------------------- expand
_BLOCK = re.compile(
    r"^(?P<ind>[ \t]*)uint32_t (?P<outs>[\w, ]+);  // asm block:[^\n]*\n"
    r'[ \t]*asm\("\{\\n\\t\.reg \.b32 (?P<defs>[\w, ]+);\\n\\t"\n'
    r'(?P<body>(?:[ \t]*"[^"\n]*\\n\\t"[^\n]*\n)*)'
    r'[ \t]*"(?P<movs>(?:mov\.b32 %\d+, \w+;\\n\\t)*)\}" : (?P<o>[^\n]*?) : (?P<i>[^\n]*)\);',
    re.M,
)
_INSN = re.compile(r'^[ \t]*"([^"\n]*)\\n\\t"\s*(//.*)?$')


def expand(text: str) -> str:
    """Every asm block of a source printed back as one statement per instruction line (same semantics)."""
    return _BLOCK.sub(_expand_one, text)


def _expand_one(m: re.Match) -> str:
    ind = m.group("ind")
    outs = [s.strip() for s in m.group("outs").split(",")]
    local = {s.strip() for s in m.group("defs").split(",")}
    ins = _IN.findall(m.group("i"))
    lines = []
    for ln in m.group("body").splitlines():
        im = _INSN.match(ln)
        if im is None:
            raise ValueError(f"asmblock: cannot read {ln!r}")
        dsts: list[str] = []
        srcs: list[str] = []
        parts = []
        for insn in filter(None, (t.strip() for t in im.group(1).split(";"))):
            op, _, rest = insn.partition(" ")
            toks = [t.strip() for t in rest.split(",")]
            dsts.append(toks[0])
            parts.append((op, toks[1:]))
        for _, toks in parts:
            for t in toks:
                e = ins[int(t[1:]) - len(outs)] if t.startswith("%") else t if t in local else None
                if e is not None and e not in srcs:
                    srcs.append(e)
        n = len(dsts)

        def name(t: str, srcs: list[str] = srcs, n: int = n) -> str:
            e = ins[int(t[1:]) - len(outs)] if t.startswith("%") else t if t in local else None
            return t if e is None else f"%{n + srcs.index(e)}"

        tpl = " ".join(f"{op} {', '.join([f'%{k}'] + [name(t) for t in toks])};" for k, (op, toks) in enumerate(parts))
        lines.append(ind + _single(Stmt(dsts, tpl, srcs, im.group(2) or "")))
    return "\n".join(lines)
