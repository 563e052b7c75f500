"""Machine IR: instructions and registers as Python objects (PeachPy style), virtual until allocation.

An ``Instr`` is one target instruction: a mnemonic, operands that render themselves once registers are
known, the virtual registers it defines and reads, and where it came from.  Nothing here knows a target's
syntax beyond the operand classes; a backend builds instructions and an allocator maps ``VReg`` to
physical numbers.

    a, b, d = VReg(), VReg(), VReg()
    i = Instr("eor", (Vec(d, "16b"), Vec(a, "16b"), Vec(b, "16b")), defs=(d,), uses=(a, b), origin="aria.cs:40")
    i.render({a: 1, b: 2, d: 0})   ->  "eor v0.16b, v1.16b, v2.16b"

Special forms the allocator understands:
  * ``tied``: the first def must share the physical register of this use (SRI, SLI, TBX, BSL);
  * ``group_defs`` / ``group_uses``: tuples of vregs that must sit in consecutive registers (LD4, ST4,
    TBL register lists);
  * ``VReg.remat``: a vreg whose value can be recreated at any point by a load with no vector inputs
    (round keys, constants, table slices); it is never spilled, only reloaded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count


class VReg:
    """A virtual vector register.  ``remat(vreg) -> [Instr]`` recreates its value (or None)."""

    __slots__ = ("id", "name", "remat", "group")
    _ids = None  # ids are assigned by a VRegFactory (no global counter)

    def __init__(self, id: int, name: str = "", remat: Callable[["VReg"], list["Instr"]] | None = None):
        self.id = id
        self.name = name
        self.remat = remat
        self.group = None  # (group tuple, position) when defined or used as part of a register list

    def __repr__(self) -> str:
        return f"%v{self.id}" + (f"({self.name})" if self.name else "")


class VRegFactory:
    """Hands out fresh vregs with dense ids; one per kernel (a builder, not global state)."""

    def __init__(self):
        self._ids = count()

    def new(self, name: str = "", remat=None) -> VReg:
        return VReg(next(self._ids), name, remat)


# ------------------------------------------------------------------------------------------ operands
@dataclass(frozen=True)
class Vec:
    """``vN.<arr>`` — a vector register with an arrangement (16b, 8h, 4s, 2d) or a scalar view (q, d)."""

    reg: VReg | str  # str: "dst", a move's destination in the allocator's register map (regalloc.bring)
    arr: str

    def render(self, regs: dict) -> str:
        n = regs[self.reg]
        return f"q{n}" if self.arr == "q" else f"v{n}.{self.arr}"


@dataclass(frozen=True)
class VecList:
    """``{vA.16b-vD.16b}`` — consecutive registers (the allocator guarantees they are)."""

    regs: tuple
    arr: str

    def render(self, regs: dict) -> str:
        first, last = regs[self.regs[0]], regs[self.regs[-1]]
        if len(self.regs) == 1:
            return f"{{v{first}.{self.arr}}}"
        return f"{{v{first}.{self.arr}-v{last}.{self.arr}}}"


@dataclass(frozen=True)
class Text:
    """Anything rendered verbatim: an immediate, a memory operand, a general-purpose register."""

    text: str

    def render(self, regs: dict) -> str:
        return self.text


@dataclass
class Instr:
    mnemonic: str
    operands: tuple
    defs: tuple = ()
    uses: tuple = ()
    origin: str = ""
    stream: int = 0  # interleaved block group it belongs to (for indentation)
    tied: VReg | None = None  # a use that must share the first def's register
    kind: str = "op"  # op / load (remat or spill reload) / spill / move / raw
    extra: dict = field(default_factory=dict)

    def render(self, regs: dict) -> str:
        ops = ", ".join(o.render(regs) for o in self.operands)
        return f"{self.mnemonic} {ops}" if ops else self.mnemonic

    def __repr__(self) -> str:
        return f"Instr({self.mnemonic} defs={self.defs} uses={self.uses})"


def raw(text: str, origin: str = "") -> Instr:
    """An instruction with no vector registers (GPR arithmetic, loop control): rendered verbatim."""
    return Instr(text, (), kind="raw", origin=origin)
