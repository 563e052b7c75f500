"""The host side of the CUDA library (the .cu's host section, templates/host.cu.j2): the key schedule,
a block's words from its bytes, the counter's low 32 bits, and the launch shape's shared-memory opt-in.

    host = host_parts(lea128, "cs_lea128_...")
    host.words[0]  == "((uint32_t)b[0] << 0) | ((uint32_t)b[1] << 8) | ..."   (block word 0 from bytes b)
    host.counter_lo == "((uint32_t)ctr[12] << 24) | ... | ctr[15]"            (IV + i bits 0..31)

The entry points themselves (device pointers, host buffers over streams, multi-key) are the template's
skeleton: they depend only on the block and key sizes, the threads per block and the shared bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Module

from . import keysched, layout
from .placement import rk_index


@dataclass(frozen=True)
class HostParts:
    tables: str  # the key schedule's S-boxes as static C arrays
    key_schedule: str  # P_key_schedule(key bytes, round-key words)
    words: list[str]  # block word j from bytes b[]: the CTR segment's uniform words
    counter_lo: str  # the counter's low 32 bits from its big-endian bytes ctr[]
    expand: str  # the function set_key calls: the key schedule (then, in a lane layout, its derived words)


def host_parts(module: Module, P: str, expand_c: str = "") -> HostParts:
    """``expand_c``: a lane layout's P_expand_key (key schedule + derived words), placed after the schedule."""
    words = []
    for p in layout.pieces(module.block):
        words.append(" | ".join(f"((uint32_t)b[{4 * p.mem + byte}] << {8 * s})" for s, byte in enumerate(p.bytes)))
    B = module.block.nbytes
    lo = f"((uint32_t)ctr[{B - 4}] << 24) | ((uint32_t)ctr[{B - 3}] << 16) | ((uint32_t)ctr[{B - 2}] << 8) | ctr[{B - 1}]"
    ks = keysched.key_schedule_c(module, f"{P}_key_schedule", rk_index(module))
    return HostParts(
        keysched.tables_c(module), ks + expand_c, words, lo, f"{P}_expand_key" if expand_c else f"{P}_key_schedule"
    )
