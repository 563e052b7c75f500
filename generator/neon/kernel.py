"""The NEON kernel driver: one schedule's kernels (ECB encrypt/decrypt, CTR) as allocated assembly lines,
in one pass through the schedule's layout object (sliced.Sliced or packed.Packed; layout.py).

The route, each step its own module, none calling back:  prepare (prepare.py) -> per mode: counters ->
layout.load -> layout.body (interleave, isel) -> layout.store -> dead code -> allocate (regalloc) ->
render (lines with origins; stream k indented by k spaces).  The skeleton around the body (prologue,
loop, epilogue) is emit.py's Jinja2 template.

    b = build_kernels(module, sched)          -> Built(module, layout, lanes, il, pool, kernels)
    b.kernels[0].body  -> ["ld4 {v16.16b-v19.16b}, [x1], #64   // load group 0", ...]
    k.frame -> stack bytes;  k.saved_d -> ["d8", "d9"];  k.stats -> {"instructions": 2410, ...}
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from cipherspec.ir import Module
from cipherspec.schedule import Schedule

from ..mir import dce as mir_dce
from ..mir import reorder
from ..mir.mir import Instr, Text, Vec, VRegFactory
from ..mir.regalloc import Allocation, TargetHooks, allocate
from . import keyload, polarity
from . import ldp as LDP
from .isel import check_ops
from .layout import Draft, Layout, key_names
from .packed import check_packed
from .pool import Pool, lut_tables
from .prepare import prepare
from .schedules import check, crypto, sha3
from .sliced import check_sliced

REORDER_REGISTERS = 28  # the list scheduler's budget: the 32 q registers less room for reloaded keys and constants
VREG_ORDER = list(range(16, 32)) + list(range(0, 8)) + list(range(8, 16))  # caller-saved first
SLICE_GPRS = [
    "x10",
    "x11",
    "x12",
    "x13",
    "x14",
    "x16",
    "x17",
    "x19",
    "x20",
    "x21",
    "x22",
    "x23",
    "x24",
    "x25",
    "x26",
    "x27",
    "x28",
]
MODES = ("ecb_encrypt", "ecb_decrypt", "ctr")


@dataclass
class Kernel:
    symbol: str
    mode: str
    body: list[str]
    frame: int
    saved_d: list[str]
    saved_x: list[str]
    setup: list[str]  # prologue lines after the frame is set (table pointers, counters)
    step: list[str]  # end-of-iteration lines (counter advance)
    stats: dict = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    blocks: int = 0
    block_bytes: int = 16


def modes_for(module: Module) -> list[str]:
    return list(MODES) if module.block.nbytes in (8, 16) else ["ecb_encrypt", "ecb_decrypt"]


@dataclass
class Built:
    """A schedule's kernels with what emit.py renders around them."""

    module: Module  # prepared
    layout: Layout
    lanes: int
    il: int
    pool: Pool
    kernels: list[Kernel]


def build_kernels(module: Module, sched: Schedule) -> Built:
    """Every kernel of the schedule, one per mode of modes_for(module), sharing one constant pool."""
    module = prepare(module)
    for fname in ("encrypt", "decrypt"):  # an op without a selection rule: say which, and where
        check_ops(module.functions[fname], module.tables, module.block.width)
    lanes, il = check(sched, module)
    layout: Layout
    if sched.layout == "packed":
        layout = check_packed(module, f"schedule {sched.name}")
    else:
        where = os.path.basename(module.source or module.cipher)
        layout = check_sliced(module.block, f"{where} (block declaration of {module.cipher})")
    tables = {}
    for fname in ("encrypt", "decrypt"):
        for op in module.functions[fname].ops:
            if op.code == "lut":
                tables.update(lut_tables(op.imm[0], module.tables[op.imm[0]]))
    pool = Pool(dict(sorted(tables.items())))
    kernels = [
        build_kernel(module, layout, il, mode, pool, f"{sched.name}_{mode}", crypto(sched), sha3(sched))
        for mode in modes_for(module)
    ]
    return Built(module, layout, lanes, il, pool, kernels)


def build_kernel(
    module: Module,
    layout: Layout,
    il: int,
    mode: str,
    pool: Pool,
    symbol: str,
    crypto: bool = False,
    sha3: bool = False,
) -> Kernel:
    """layout: a sliced.Sliced or a packed.Packed; crypto: AESE/AESD S-boxes, sha3: EOR3/BCAX (sliced only).

    A schedulable (sliced), non-interleaved kernel that spills is also built in demand-driven op order
    (common/sink.py: e.g. AES's MixColumns column by column); the one with fewer instructions is kept
    (stats["order"]).  Every schedulable kernel is then also allocated with its machine code list-scheduled
    for latency within the register file (mir/reorder.py) where it has one block group (an interleave
    already weaves independent streams) or spills, and that order is kept unless it costs instructions
    (reloads, copies, lost LDP pairs): stats["schedule"] says which.  A sha3 kernel is also built with values
    held inverted where BCAX fuses more (polarity.py), kept where that is fewer instructions
    (stats["polarity"])."""
    module = prepare(module)
    k = _build(module, layout, il, mode, pool, symbol, crypto, sha3, False)
    if k.stats["spills"] and layout.schedulable and il == 1:  # sinking would undo an interleave's weave
        s = _build(module, layout, il, mode, pool, symbol, crypto, sha3, True)
        if s.stats["instructions"] < k.stats["instructions"]:
            k = s
    fn = module.functions["decrypt" if mode == "ecb_decrypt" else "encrypt"]
    if sha3 and layout.schedulable and polarity.apply(fn) is not None:
        q = _build(module, layout, il, mode, pool, symbol, crypto, sha3, k.stats["order"] == "sink", True)
        if len(q.body) < len(k.body):
            k = q
    return k


def _build(
    module: Module,
    layout: Layout,
    il: int,
    mode: str,
    pool: Pool,
    symbol: str,
    crypto: bool,
    sha3: bool,
    sink: bool,
    inverted: bool = False,
) -> Kernel:
    fn = module.functions["decrypt" if mode == "ecb_decrypt" else "encrypt"]  # prepared by build_kernel
    vf = VRegFactory()
    bb = module.block.nbytes
    used_tables = sorted(
        {
            p
            for op in fn.ops
            if op.code == "lut" and len(module.tables[op.imm[0]].values) == 256
            for p in lut_tables(op.imm[0], module.tables[op.imm[0]])
        }
    )  # sliced 256-entry tables
    slice_ptr: dict[tuple[str, int], str] = {}
    setup: list[str] = []
    for t in used_tables:
        for s in range(4):
            if len(slice_ptr) < len(SLICE_GPRS):
                reg = SLICE_GPRS[len(slice_ptr)]
                slice_ptr[(t, s)] = reg
                setup.append(f"add {reg}, x8, #{pool.table_offset(t) + 64 * s}")
    blocks = layout.blocks(il)
    d = Draft(module, fn, key_names(module, fn), il, mode, pool, vf, slice_ptr, crypto, sha3, sink, inverted)
    step: list[str] = []
    scratch = 0
    if mode == "ctr":
        scratch = blocks * bb
        for b in range(blocks):
            d.code += _counter(bb, b)
        d.code.append(Instr("mov x9, x7", (), kind="raw", origin="walk the counter blocks"))
        step = [f"adds x6, x6, #{blocks}", "adc x5, x5, xzr"] if bb == 16 else [f"add x6, x6, #{blocks}"]
        step = [f"{line:<48}// ctr: next counter" for line in step]
    state = layout.load(d, "x9" if mode == "ctr" else "x1")
    layout.store(d, layout.body(d, state))
    code = mir_dce.run(d.code)
    key_ptr = next((r for r in SLICE_GPRS if r not in slice_ptr.values()), None)
    grouped = keyload.run(code, d.key_vregs, key_ptr) if key_ptr and layout.schedulable else None
    hooks = TargetHooks(
        spill=lambda v, s: Instr(
            "str", (Vec(v, "q"), Text(f"[sp, #{scratch + 16 * s}]")), uses=(v,), kind="spill", origin="spill"
        ),
        reload=lambda v, s: Instr(
            "ldr", (Vec(v, "q"), Text(f"[sp, #{scratch + 16 * s}]")), defs=(v,), kind="load", origin="reload"
        ),
        move=lambda dst, s: Instr("mov", (Vec("dst", "16b"), Vec(s, "16b")), kind="move", origin="copy"),
        new_vreg=lambda name: vf.new(name),
    )

    def allocated(seq: list[Instr]) -> tuple[str, Allocation, list[str]]:
        alloc = allocate(seq, VREG_ORDER, hooks)
        best = ("selection", alloc, LDP.pair([_render(ins, regs) for ins, regs in alloc.code]))
        if layout.schedulable and (il == 1 or alloc.spills):  # latency order within the register budget
            alt = allocate(reorder.run(seq, REORDER_REGISTERS, latency), VREG_ORDER, hooks)
            alt_body = LDP.pair([_render(ins, regs) for ins, regs in alt.code])
            if len(alt_body) <= len(best[2]):
                best = ("latency", alt, alt_body)
        return best

    order, alloc, body = allocated(code)
    keys4 = False
    if grouped is not None:  # round keys four per LD1 through key_ptr (keyload.py), where that is fewer instructions
        g = allocated(grouped)
        if len(g[2]) < len(body) and g[1].spills <= alloc.spills:  # keys loaded early must not cost spills
            (order, alloc, body), keys4 = g, True
    saved_d = [f"d{r}" for r in range(8, 16) if r in alloc.used]
    gprs = set(slice_ptr.values()) | ({key_ptr} if keys4 else set())
    saved_x = sorted({r for r in gprs if r and int(r[1:]) >= 19}, key=lambda r: int(r[1:]))
    frame = scratch + 16 * alloc.slots
    stats = {
        "instructions": len(alloc.code),
        "spills": alloc.spills,
        "reloads": alloc.reloads,
        "remats": alloc.remats,
        "moves": alloc.moves,
        "slots": alloc.slots,
        "order": "sink" if sink else "spec",
        "schedule": order,
        "polarity": inverted,
    }
    return Kernel(symbol, mode, body, frame, saved_d, saved_x, setup, step, stats, d.key_table, blocks, bb)


def _counter(bb: int, t: int) -> list[Instr]:
    """GPR code writing counter block IV+t (big-endian, full carry) to the scratch area at [x7]."""
    o = f"ctr block {t}: IV + {t}"
    if bb == 8:
        lines = [f"add x9, x6, #{t}", "rev x9, x9", f"str x9, [x7, #{8 * t}]"]
    else:
        lines = [f"adds x9, x6, #{t}", "adc x15, x5, xzr", "rev x9, x9", "rev x15, x15"]
        lines += (
            [f"stp x15, x9, [x7, #{16 * t}]"]
            if 16 * t <= 504
            else [f"str x15, [x7, #{16 * t}]", f"str x9, [x7, #{16 * t + 8}]"]
        )
    return [Instr(line, (), kind="raw", origin=o) for line in lines]


def latency(ins: Instr) -> int:
    """Result latency in cycles (Neoverse-V2-like: loads 6, AES and table lookups 2-3, other vector ops 2)."""
    if ins.mnemonic.startswith("ld"):
        return 6
    if ins.mnemonic in ("aese", "aesd", "tbx"):
        return 3
    return 2


def _render(ins: Instr, regs: dict) -> str:
    text = " " * ins.stream + ins.render(regs)
    return f"{text:<48}// {ins.origin}" if ins.origin else text
