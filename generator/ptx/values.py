"""A selected value of the PTX instruction selector and the comment naming the IR ops it came from: shared by
isel.py and wide.py (64-bit ops as two halves) so that neither imports the other.

    Val("%v3", clean=True)                 # a 32-bit register, no garbage above its width
    _comment(fn, 3, "xor")  ->  "// %3 xor @ lea.cs:24:9"
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function


@dataclass
class Val:
    expr: str  # a 64-bit value in the ptx flavour: its low half
    clean: bool
    hi: str | None = None  # ... and its high half (wide.py)
    register: bool = True  # False: a memory operand (a round key in the constant bank), no register to free


def _comment(fn: Function, ids, what: str) -> str:
    op = fn.ops[ids[0]] if isinstance(ids, (list, tuple)) else fn.ops[ids]
    vals = ",".join(f"%{i}" for i in (ids if isinstance(ids, (list, tuple)) else [ids]))
    return f"// {vals} {what} @ {op.origin}" if op.origin else f"// {vals} {what}"
