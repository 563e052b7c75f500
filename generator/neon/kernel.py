"""One NEON kernel: a cipher function in a mode (ECB encrypt/decrypt, CTR) as allocated assembly lines.

The pipeline, each step its own module:  prepare (gmul lowered, wide values split) -> interleave (il block groups)
-> select (isel) -> dead code -> allocate (regalloc) -> render (lines with origins; stream k indented by
k spaces).  The skeleton around the body (prologue, loop, epilogue) is the Jinja2 template.

    k = build_kernel(module, sched, "ecb_encrypt", pool, prefix)
    k.body   -> ["ld4 {v16.16b-v19.16b}, [x1], #64   // load group 0", ...]
    k.frame  -> stack bytes;  k.saved_d -> ["d8", "d9"];  k.stats -> {"instructions": 2410, ...}
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cipherspec.ir import Function, Module
from cipherspec.passes import constfold, cse, dce, lower_gmul, mask_rotate, split_wide
from cipherspec.pipeline import Pass, run_passes

from ..mir import dce as mir_dce
from ..mir import reorder
from ..mir.interleave import interleave, stream_name
from ..mir.mir import Instr, Text, Vec, VRegFactory
from ..mir.regalloc import TargetHooks, allocate
from . import ldp as LDP
from . import packed as PK
from . import sliced as SL
from .isel import Selector
from .pool import Pool, lut_tables

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


CLEANUP = (Pass("constfold", constfold.run), Pass("cse", cse.run), Pass("dce", dce.run))


def neon_passes(module: Module) -> tuple[Pass, ...]:
    """The NEON target's passes, each only where the spec needs it, then a clean-up: gmul has no NEON
    instruction (lowered to xtime chains); a lane holds one block word, so values wider than the block
    words become limbs of the word width (split_wide); a rotation masked to one of its halves becomes
    that shift (mask_rotate: a bit permutation's masked rotations).  Any other spec compiles the shared
    IR as it is."""
    passes = []
    if any(op.code == "gmul" for fn in module.functions.values() for op in fn.ops):
        passes.append(Pass("lower_gmul", lower_gmul.run))
    if split_wide.wide_values(module):
        passes.append(Pass("split_wide", run_module=split_wide.run_module))
    if any(mask_rotate.applies(fn) for fn in module.functions.values()):  # a rotation is SHL + SRI here
        passes.append(Pass("mask_rotate", mask_rotate.run))
    return tuple(passes) + CLEANUP if passes else ()


def prepare(module: Module) -> Module:
    """The module after the NEON passes (what isel sees); a module needing none is returned as it is, so
    preparing twice costs nothing."""
    return run_passes(module, neon_passes(module))


def key_names(module: Module, fn: Function) -> list[str]:
    """Round-key inputs of fn, in order: the vectors of the kernel's key table."""
    flat = {n for ka in module.key_arrays for n in ka.flat_names()}
    return [name for name, _, _ in fn.inputs() if name in flat]


def state_names(module: Module, fn: Function) -> list[str]:
    keys = set(key_names(module, fn))
    return [name for name, _, _ in fn.inputs() if name not in keys]


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


def build_kernel(
    module: Module, layout, il: int, mode: str, pool: Pool, symbol: str, crypto: bool = False, sha3: bool = False
) -> Kernel:
    """layout: a sliced.Sliced, or "packed" (packed.py); crypto: AESE/AESD S-boxes, sha3: EOR3/BCAX (sliced only).

    A sliced, non-interleaved kernel that spills is also built in demand-driven op order (common/sink.py: e.g. AES's
    MixColumns column by column); the one with fewer instructions is kept (stats["order"]).  Every sliced kernel is
    then also allocated with its machine code list-scheduled for latency within the register file (mir/reorder.py)
    where it has one block group (an interleave already weaves independent streams) or spills, and that order is
    kept unless it costs instructions (reloads, copies, lost LDP pairs): stats["schedule"] says which."""
    module = prepare(module)
    k = _build(module, layout, il, mode, pool, symbol, crypto, sha3, False)
    if k.stats["spills"] and layout != "packed" and il == 1:  # sinking would undo an interleave's weave
        s = _build(module, layout, il, mode, pool, symbol, crypto, sha3, True)
        if s.stats["instructions"] < k.stats["instructions"]:
            return s
    return k


def _build(
    module: Module,
    layout,
    il: int,
    mode: str,
    pool: Pool,
    symbol: str,
    crypto: bool,
    sha3: bool,
    sink: bool,
) -> Kernel:
    fn_name = "decrypt" if mode == "ecb_decrypt" else "encrypt"
    fn = module.functions[fn_name]  # prepared by build_kernel
    keys = key_names(module, fn)
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
    packed = layout == "packed"
    blocks = il * 64 // bb if packed else il * layout.lanes
    code: list[Instr] = []
    step: list[str] = []
    scratch = 0
    if mode == "ctr":
        scratch = blocks * bb
        for b in range(blocks):
            code += _counter(bb, b)
        code.append(Instr("mov x9, x7", (), kind="raw", origin="walk the counter blocks"))
        step = [f"adds x6, x6, #{blocks}", "adc x5, x5, xzr"] if bb == 16 else [f"add x6, x6, #{blocks}"]
        step = [f"{line:<48}// ctr: next counter" for line in step]
    src = "x9" if mode == "ctr" else "x1"
    if packed:
        key_table = _packed_body(module, fn, keys, il, mode, pool, vf, slice_ptr, code, src)
    else:
        key_table = keys
        _sliced_body(module, fn, keys, layout, il, mode, pool, vf, slice_ptr, code, src, crypto, sha3, sink)
    code = mir_dce.run(code)
    hooks = TargetHooks(
        spill=lambda v, s: Instr(
            "str", (Vec(v, "q"), Text(f"[sp, #{scratch + 16 * s}]")), uses=(v,), kind="spill", origin="spill"
        ),
        reload=lambda v, s: Instr(
            "ldr", (Vec(v, "q"), Text(f"[sp, #{scratch + 16 * s}]")), defs=(v,), kind="load", origin="reload"
        ),
        move=lambda d, s: Instr("mov", (Vec("dst", "16b"), Vec(s, "16b")), kind="move", origin="copy"),
        new_vreg=lambda name: vf.new(name),
    )
    order, alloc = "selection", allocate(code, VREG_ORDER, hooks)
    body = LDP.pair([_render(ins, regs) for ins, regs in alloc.code])
    if not packed and (il == 1 or alloc.spills):  # latency order within the register budget (mir/reorder.py)
        alt = allocate(reorder.run(code, REORDER_REGISTERS, latency), VREG_ORDER, hooks)
        alt_body = LDP.pair([_render(ins, regs) for ins, regs in alt.code])
        if len(alt_body) <= len(body):
            order, alloc, body = "latency", alt, alt_body
    saved_d = [f"d{r}" for r in range(8, 16) if r in alloc.used]
    saved_x = sorted({r for r in slice_ptr.values() if int(r[1:]) >= 19}, key=lambda r: int(r[1:]))
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
    }
    return Kernel(symbol, mode, body, frame, saved_d, saved_x, setup, step, stats, key_table, blocks, bb)


def _sliced_body(
    module, fn, keys, layout, il, mode, pool, vf, slice_ptr, code, src, crypto=False, sha3=False, sink=False
) -> None:
    states = state_names(module, fn)
    woven, streams = interleave(fn, il, set(keys))
    L = layout.lanes
    sel = Selector(
        woven,
        module.tables,
        module.block.width,
        vf,
        pool,
        {n: i for i, n in enumerate(keys)},
        slice_ptr,
        streams,
        crypto=crypto,
        sha3=sha3,
        sink=sink,
    )
    state_in = {}
    for k in range(il):
        what = f"counter blocks {k * L}..{k * L + L - 1}" if mode == "ctr" else f"load blocks {k * L}..{k * L + L - 1}"
        ins, words = SL.load(layout, vf, src, what, k)
        code += ins
        for name, v in zip(states, words):
            state_in[stream_name(k, name)] = v
    sel.run(state_in)
    outputs = [[sel.at(v, 0) for name, v in woven.outputs if name.startswith(f"s{k}:")] for k in range(il)]
    code += sel.code
    for k in range(il):
        outs = outputs[k]
        if mode == "ctr":
            ins, data = SL.load(layout, vf, "x1", f"input blocks {k * L}..{k * L + L - 1}", k)
            code += ins
            outs = _ctr_mix(outs, data, vf, code, k)
        code += SL.store(layout, vf, _distinct(outs, vf, code, k), "x2", f"store blocks {k * L}..{k * L + L - 1}", k)


def _packed_body(module, fn, keys, il, mode, pool, vf, slice_ptr, code, src) -> list:
    """The packed kernel body; returns the key table: per vector, the 16 round-key names of its lanes."""
    bb = module.block.nbytes
    sel = Selector(fn, module.tables, 8, vf, pool, {}, slice_ptr, [0] * len(fn.ops))
    packer = PK.Packer(fn, sel, set(keys), il * 64 // bb, bb)
    ins, regs = PK.load(vf, src, il, "counter blocks" if mode == "ctr" else "load blocks")
    code += ins
    outs = packer.run(regs)
    code += sel.code
    if mode == "ctr":
        ins, data = PK.load(vf, "x1", il, "input blocks")
        code += ins
        outs = _ctr_mix(outs, data, vf, code, 0)
    for k in range(0, len(outs), 4):
        outs[k : k + 4] = _distinct(outs[k : k + 4], vf, code, k // 4)
    code += PK.store(outs, "x2", "store blocks")
    return [names for names, _ in sorted(packer.key_slots.items(), key=lambda kv: kv[1])]


def _ctr_mix(outs: list, data: list, vf: VRegFactory, code: list[Instr], k: int) -> list:
    mixed = []
    for a, b in zip(outs, data):
        d = vf.new()
        code.append(
            Instr(
                "eor",
                (Vec(d, "16b"), Vec(a, "16b"), Vec(b, "16b")),
                (d,),
                (a, b),
                origin="ctr: keystream ^ input",
                stream=k,
            )
        )
        mixed.append(d)
    return mixed


def _distinct(words: list, vf: VRegFactory, code: list[Instr], k: int) -> list:
    """A register list needs distinct registers: copy a value stored twice."""
    seen, out = set(), []
    for v in words:
        if v in seen:
            c = vf.new()
            code.append(
                Instr("orr", (Vec(c, "16b"), Vec(v, "16b"), Vec(v, "16b")), (c,), (v,), origin="copy", stream=k)
            )
            v = c
        seen.add(v)
        out.append(v)
    return out


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
