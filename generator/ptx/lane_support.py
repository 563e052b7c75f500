"""Whether a lane layout (``swar``, ``bs``) can run a module: why not, or None.  Asked by placement.py when
it checks a schedule and by lanes.py when it builds one (apart from both, so neither imports the other).

    why_not(module, "swar")  ->  None, or "swar: ... reads a u32 word"
"""

from __future__ import annotations

from cipherspec.ir import Module

from . import bitsliced, swar


def why_not(module: Module, name: str) -> str | None:
    return swar.supports(module) if name == "swar" else bitsliced.supports(module)
