"""The host side of the CUDA library (the .cu's host section, templates/host.cu.j2): the key schedule
(keysched.py: constant-time, the C library's), a block's words from its bytes, the counter's low 32 bits.

    host = host_parts(lea128, "cs_lea128_...")
    host.words[0]  == "((uint32_t)b[0] << 0) | ((uint32_t)b[1] << 8) | ..."   (block word 0 from bytes b)
    host.counter_lo == "((uint32_t)ctr[12] << 24) | ... | ctr[15]"            (IV + i bits 0..31)

The entry points themselves (device pointers, host buffers over streams, multi-key) are the template's
skeleton: they depend only on the block and key sizes, the threads per block and the shared bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function, Module

from . import layout
from .keysched import KeySection, key_section


@dataclass(frozen=True)
class HostParts:
    key: KeySection  # set_key's C (key.text) and the function it calls (key.entry): the key schedule, then
    # in a lane layout its derived words
    words: list[str]  # block word j from bytes b[]: the CTR segment's uniform words
    counter_lo: str  # the counter's low 32 bits from its big-endian bytes ctr[]


def host_parts(module: Module, P: str, derive: Function | None = None, rows: int = 0) -> HostParts:
    """``derive``: a lane layout's derived words (keysplit.py), which set_key computes after the schedule;
    ``rows`` > 0: stored before the schedule's words, after a head whose first word is ``rows`` (keyorder.py)."""
    words = []
    for p in layout.pieces(module.block):
        words.append(" | ".join(f"((uint32_t)b[{4 * p.mem + byte}] << {8 * s})" for s, byte in enumerate(p.bytes)))
    B = module.block.nbytes
    lo = f"((uint32_t)ctr[{B - 4}] << 24) | ((uint32_t)ctr[{B - 3}] << 16) | ((uint32_t)ctr[{B - 2}] << 8) | ctr[{B - 1}]"
    return HostParts(key_section(module, P, derive, rows=rows), words, lo)
