"""Lane layouts: a thread runs G blocks at once in "lane words", a layout derived from the IR by a lowering.

    swar  G = 4   byte j of the four blocks in one register, byte b = block b (swar.py)
    bs    G = 32  bit i of block word j of the 32 blocks in one register, bit b = block b (bitsliced.py)

A layout owns its whole route: the lowering of encrypt and decrypt, the key-only work split off to
set_key (keysplit.py), and the transforms between a group's memory words M[b*MW + k] (block b's
little-endian word k) and the lane words -- both transposes (bytes for swar, bits for bs), written as
IR so that instruction selection, the emulator and the interpreter check them like any core:

    swar, u8[8] blocks: L[4k + j] = (byte j of M[k], M[MW + k], M[2MW + k], M[3MW + k])   (8 PRMT per k)
    bs,   u8[16]:       L[32k + c] = (bit c of M[k], M[MW + k], ..., M[31MW + k])        (256 ops per k)

CTR's counter blocks share every memory word but the last (U[k], k < MW-1): lanes_in_ctr transposes only
the last word; bitsliced, a shared word's plane c is bit c of U[k] in all 32 lanes, 0 - ((U[k] >> c) & 1)
(3 ops a plane instead of a share of the 32x32 transpose).

    lay = lanes_for(module, "swar")
    lay.cores["encrypt"], lay.derive, lay.lanes_in, lay.lanes_out: Functions
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace

from cipherspec.errors import UsageError
from cipherspec.ir import Function, Module
from cipherspec.passes.hoist_uniform import Hoisted

from ..common.memo import by_identity
from . import abswitch, bitsliced, bs_ctr, ctr, keyorder, keysplit, roundloop, swar, xor3
from .abswitch import former_bitsliced
from .irbuild import Builder
from .lane_support import why_not
from .placement import rk_index
from .roundloop import RoundLoop

GROUP = {"swar": swar.LANES, "bs": bitsliced.LANES}
CONSTANT_TIME = {"swar": "yes when the spec reads no table", "bs": "yes (no table is read)"}


@dataclass(frozen=True)
class Lanes:
    name: str
    group: int  # blocks per slot
    cores: Mapping[str, Function]  # encrypt / decrypt on lane words, reading derived key words D[k] (_Lazy)
    derive: Function  # round-key words -> D[k] (set_key, on the host)
    lanes_in: Function  # M[0 .. G*MW) -> the lane words, in the cores' input order
    lanes_out: Function  # the cores' outputs, in order -> M[0 .. G*MW)
    lanes_in_ctr: Function  # lanes_in for CTR: words k < MW-1 the same U[k] in every block (the counter's)
    state: dict[str, list[str]]  # function -> its lane-word input names, in lane-word order (x[0], x[1], ...)
    constant_time: bool
    loops: dict[str, RoundLoop | None]  # function -> its rounds re-rolled (roundloop.py), or None: straight-line
    ctr: Hoisted | None = None  # bs CTR: encrypt's core split at the segment-uniform planes (bs_ctr.py); its
    # main part is cores["ctr_main"] (and loops["ctr_main"]), its pre part runs on the host
    rows: int = 0  # where > 0: the struct holds keyorder.HEAD words (the first: rows), the derived words in
    # keyorder.py's order, then the key schedule's (else the schedule's words first, the derived ones after them)

    @property
    def derived_first(self) -> bool:
        return self.rows > 0

    @property
    def derived(self) -> int:
        return len(self.derive.outputs)


class _Lazy(Mapping[str, Function]):
    """``{k: f(v) for k, v in base.items()}``, each value made on first access: a bitsliced core that re-rolls
    is emitted from its round loop's parts, so its whole unshared form (xor3.unshare: seconds for AES or ARIA)
    is made only where something reads it (the encrypt core's op count in the build notes).

        cores = _Lazy({"encrypt": enc, "decrypt": dec}, xor3.unshare)
        cores["encrypt"]     -> unshare(enc), made now and kept; unshare(dec) is never made
    """

    def __init__(self, base: Mapping[str, Function], f: Callable[[Function], Function]):
        self._base, self._f = dict(base), f
        self._done: dict[str, Function] = {}

    def __getitem__(self, k: str) -> Function:
        if k not in self._done:
            self._done[k] = self._f(self._base[k])
        return self._done[k]

    def __iter__(self) -> Iterator[str]:
        return iter(self._base)

    def __len__(self) -> int:
        return len(self._base)


def mask_bits(s: int) -> int:
    """Bits whose position has bit ``s`` clear (s a power of two): 0x0000ffff for 16, 0x55555555 for 1."""
    return sum(1 << p for p in range(32) if not p & s)


def transpose(b: Builder, rows: list[int], e: int) -> list[int]:
    """32/e rows of 32/e elements of e bits: element (r, c) -> (c, r).  Per level, rows i and i+d swap the
    blocks off the diagonal by a bit select (one LOP3; byte levels one PRMT, isel.py)."""
    rows = list(rows)
    n = len(rows)
    d = n // 2
    while d:
        s = d * e
        m = b.const(mask_bits(s))
        for i in range(n):
            if i & d:
                continue
            a, c = rows[i], rows[i + d]
            cs, as_ = b.op("shl", c, imm=s), b.op("shr", a, imm=s)
            rows[i] = b.op("xor", cs, b.op("and", b.op("xor", a, cs), m))  # a where m, c << s elsewhere
            rows[i + d] = b.op("xor", c, b.op("and", b.op("xor", as_, c), m))  # a >> s where m, c elsewhere
        d //= 2
    return rows


def _transforms(module: Module, name: str, state: list[str]) -> tuple[Function, Function, Function]:
    """(memory words -> lane words, lane words -> memory words, CTR's memory words -> lane words) of one group."""
    G, MW = GROUP[name], module.block.nbytes // 4
    e = 8 if name == "swar" else 1
    per = 32 // e  # lane words per memory word index
    fin, fout, fctr = Builder("lanes_in"), Builder("lanes_out"), Builder("lanes_in_ctr")
    outs_in, outs_out, outs_ctr = [], [], []
    for k in range(MW):
        rows = transpose(fin, [fin.input(f"M[{b * MW + k}]") for b in range(G)], e)
        outs_in += [(state[per * k + c], rows[c]) for c in range(per)]
        back = transpose(fout, [fout.input(state[per * k + c]) for c in range(per)], e)
        outs_out += [(f"M[{b * MW + k}]", back[b]) for b in range(G)]
        if k < MW - 1 and name == "bs":  # a word every block shares: its planes are its bits, broadcast
            u, one, zero = fctr.input(f"U[{k}]"), fctr.const(1), fctr.const(0)
            for c in range(per):
                bit = fctr.op("and", fctr.op("shr", u, imm=c) if c else u, one)
                outs_ctr.append((state[per * k + c], fctr.op("sub", zero, bit)))
        else:
            ins = [fctr.input(f"U[{k}]")] * G if k < MW - 1 else [fctr.input(f"M[{b * MW + k}]") for b in range(G)]
            rows = transpose(fctr, ins, e)
            outs_ctr += [(state[per * k + c], rows[c]) for c in range(per)]
    outs_out.sort(key=lambda t: int(t[0][2:-1]))
    return fin.function(outs_in), fout.function(outs_out), fctr.function(outs_ctr)


def _state(module: Module, fname: str, name: str) -> list[str]:
    """The core's lane-word inputs in order: the block words (swar), or their planes in memory-bit order (bs)."""
    keys = set(rk_index(module))
    xs = [n for n, _, _ in module.functions[fname].inputs() if n not in keys]
    return xs if name == "swar" else bitsliced.state_planes(module.block, xs)


def lanes_for(module: Module, name: str, reroll: bool = False, ctr_hoist: bool = False) -> Lanes:
    """``module``: prepared for the layout (source.prepared_for); ``reroll``: find each core's round loop
    (roundloop.py) so that the kernel runs the repeated rounds in a loop instead of unrolled; ``ctr_hoist``
    (bs): split encrypt for CTR at the segment-uniform planes (bs_ctr.py), its main part as core "ctr_main"."""
    why = why_not(module, name)
    if why:
        raise UsageError(why)
    keys = set(rk_index(module))
    lowered, split = _lowered(module, sys.intern(name))
    for f, fn in split.cores.items():
        if keysplit.reads_keys_directly(fn, keys):
            raise UsageError(f"{name} layout: the {f} core reads round-key words directly (internal)")
    state = {f: _state(module, f, name) for f in lowered}
    lin, lout, lctr = _transforms(module, name, state["encrypt"])
    # bitsliced: round loops cut where the fewest planes are live, then the XOR sharing that LOP3 does not need
    # dropped (xor3.py) in each part; the A/B switch (abswitch.py) turns both off (and isel's slices.py order)
    plain = name != "bs" or former_bitsliced()
    hoisted: Hoisted | None = None
    found: dict[str, RoundLoop | None] = {}
    if ctr_hoist and name == "bs":
        hoisted, found = _ctr_split(module, split, reroll, not plain)
        if hoisted is not None:
            split = replace(split, cores=split.cores | {"ctr_main": hoisted.main})
            state["ctr_main"] = state["encrypt"]
    ct = name == "bs" or not module.tables
    loops = _round_loops(split.cores, split.derive, not plain, found) if reroll else dict.fromkeys(split.cores)
    ordered = keyorder.reorder(split.derive, split.cores, loops)  # (None without a round loop)
    if ordered is not None:
        split = replace(split, derive=ordered.derive)
    cores: Mapping[str, Function] = split.cores
    if not plain:
        cores = _Lazy(cores, _unshare)
        loops = {
            f: loop
            and replace(loop, pre=xor3.unshare(loop.pre), body=xor3.unshare(loop.body), post=xor3.unshare(loop.post))
            for f, loop in loops.items()
        }
    rows = ordered.rows if ordered is not None else 0
    return Lanes(name, GROUP[name], cores, split.derive, lin, lout, lctr, state, ct, loops, hoisted, rows)


@by_identity(4, extra=abswitch.state)
def _lowered(module: Module, name: str) -> tuple[dict[str, Function], keysplit.KeySplit]:
    """encrypt and decrypt lowered to the layout's lane words, and their key-only work split off: computed once
    for a module (ctchoice.estimates and the source both ask, seconds for a bitsliced cipher)."""
    keys = set(rk_index(module))
    low = swar.lower if name == "swar" else bitsliced.lower
    lowered = {f: low(module.functions[f], module, keys) for f in ("encrypt", "decrypt")}
    return lowered, keysplit.split(lowered, keys)


_unshare = by_identity(8)(xor3.unshare)  # the same split cores: estimates' call and the source's


def _ctr_split(
    module: Module, split: keysplit.KeySplit, reroll: bool, narrow: bool
) -> tuple[Hoisted | None, dict[str, RoundLoop | None]]:
    """encrypt's core split for the bitsliced CTR kernels (bs_ctr.py).  Where the round loop of its main part would
    end earlier than the core's -- rounds moved from the loop into the straight-line code after it (ARIA: the
    loop, 2 rounds an iteration, starts at round 3 and leaves rounds 10-11 unrolled, and its CTR kernel measured
    5% slower) -- the split keeps in main what the loop's first round computes, so that main re-rolls as the
    core does; the loop may start later (AES: its first round, 12 S-boxes hoisted, leaves the loop), not end
    earlier.  Also the round loops it found ("encrypt", and "ctr_main" where main is the split returned), so that
    lanes_for does not search them again."""
    enc = split.cores["encrypt"]
    words = ctr.state_names(module, "encrypt")
    derived = {n for n, _ in split.derive.outputs}
    hoisted = bs_ctr.split(enc, module, words, derived)
    if hoisted is None or not reroll:
        return hoisted, {}
    loops = _round_loops({"encrypt": enc, "ctr_main": hoisted.main}, split.derive, narrow)
    core_loop, main_loop = loops["encrypt"], loops["ctr_main"]
    if core_loop is None or (main_loop is not None and main_loop.post.work() <= core_loop.post.work()):
        return hoisted, loops
    rounds = [op.origin.round for op in core_loop.body.ops if op.origin is not None and op.origin.round is not None]
    if not rounds:
        return hoisted, loops
    # a core loop from the first round on (its first round compared equal to the rest) would leave the host nothing
    # of the round that reads the counter's uniform planes: main's loop starts a round later (bitlinear_perm: 144
    # plane ops a trip, 4.3 SASS a block, kept on the host), as where that round differs from the others
    first = min(op.origin.round for op in enc.ops if op.origin is not None and op.origin.round is not None)
    kept = bs_ctr.split(enc, module, words, derived, before_round=max(min(rounds), first + 1))
    return (kept, {"encrypt": core_loop}) if kept is not None else (hoisted, loops)


def _round_loops(
    cores: dict[str, Function], derive: Function, narrow: bool = True, found: dict[str, RoundLoop | None] | None = None
) -> dict[str, RoundLoop | None]:
    """Each core's round loop, where it has one whose key words (derived words D[k], in the order set_key
    stores them) sit at one stride per iteration; else None (the core stays straight-line).  ``found``: cores
    whose loops an earlier call gave (the same core, derive and narrow), not searched again."""
    index = {n: k for k, (n, _) in enumerate(derive.outputs)}
    found = found or {}
    out: dict[str, RoundLoop | None] = {}
    for f, fn in cores.items():
        if f in found:
            out[f] = found[f]
            continue
        loop = roundloop.find(fn, index.__contains__, narrow)
        out[f] = loop if loop is not None and loop.stride(index) is not None else None
    return out
