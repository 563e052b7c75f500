"""What a layout is to the kernel driver: one object per layout kind (sliced.Sliced, packed.Packed) with
``load`` / ``body`` / ``store``, each appending machine IR to a Draft, the kernel under construction.

    d = Draft(module, fn, keys, il, mode, pool, vf, slice_ptr)
    state = layout.load(d, "x1")      # ld4 + uzp (sliced) / ld1 (packed)       -> d.code
    outs = layout.body(d, state)      # isel of the cipher function over the layout  -> d.code, d.key_table
    layout.store(d, outs)             # (CTR: input ^ keystream) zip + st4 / st1    -> d.code
The driver (kernel.py) runs these in this order and owns everything around them (counters, allocation,
rendering); a layout never calls back into the driver.  The helpers here are the parts every layout's
store shares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from cipherspec.ir import Function, Module

from ..mir.mir import Instr, Vec, VRegFactory
from .pool import Pool


def key_names(module: Module, fn: Function) -> list[str]:
    """Round-key inputs of fn, in order: the vectors of the kernel's key table."""
    flat = {n for ka in module.key_arrays for n in ka.flat_names()}
    return [name for name, _, _ in fn.inputs() if name in flat]


def state_names(module: Module, fn: Function) -> list[str]:
    keys = set(key_names(module, fn))
    return [name for name, _, _ in fn.inputs() if name not in keys]


@dataclass
class Draft:
    """One kernel being built: its inputs, and the machine IR the layout appends to ``code``."""

    module: Module
    fn: Function
    keys: list[str]
    il: int
    mode: str
    pool: Pool
    vf: VRegFactory
    slice_ptr: dict
    crypto: bool = False
    sha3: bool = False
    sink: bool = False
    polarity: bool = False  # sliced: values held inverted where BCAX then fuses (polarity.py)
    code: list[Instr] = field(default_factory=list)
    key_table: list = field(default_factory=list)  # set by body: the key-table vectors, in order
    key_vregs: dict = field(default_factory=dict)  # set by body: round-key vreg -> key-table vector (keyload.py)


class Layout(Protocol):
    """The interface kernel.py drives; ``schedulable``: the driver may try demand-driven op order and
    list scheduling (mir/reorder.py) on its code."""

    schedulable: ClassVar[bool]

    def blocks(self, il: int) -> int: ...
    def load(self, d: Draft, src: str) -> Any: ...
    def body(self, d: Draft, state: Any) -> list: ...
    def store(self, d: Draft, outs: list) -> None: ...


def ctr_mix(outs: list, data: list, vf: VRegFactory, code: list[Instr], k: int) -> list:
    """CTR: input block words ^ keystream words (EOR each pair)."""
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


def distinct(words: list, vf: VRegFactory, code: list[Instr], k: int) -> list:
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
