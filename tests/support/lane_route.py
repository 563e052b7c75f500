"""A lane layout's whole route on the interpreter (generator/ptx/lanes.py), for tests without a GPU:

memory_words(blocks, G) -> {"M[i]": words}   lanes_in's inputs (group g = G consecutive blocks)
derived(lay, module, rkd) -> key words and set_key's derived words D[k]
blocks_of(out, G, B)   -> lanes_out's M[i] back to blocks
"""

from __future__ import annotations

import numpy as np

from cipherspec.interp import Interpreter
from generator.ptx.placement import rk_index


def memory_words(blocks: np.ndarray, G: int) -> dict[str, np.ndarray]:
    """Group g's M[b*MW + k] = little-endian word k of block g*G + b (one lane per group)."""
    n, B = blocks.shape
    words = blocks.reshape(n // G, G, B // 4, 4).astype(np.uint32)
    words = words[..., 0] | words[..., 1] << 8 | words[..., 2] << 16 | words[..., 3] << 24
    return {f"M[{b * (B // 4) + k}]": words[:, b, k] for b in range(G) for k in range(B // 4)}


def blocks_of(out: dict[str, np.ndarray], G: int, B: int) -> np.ndarray:
    ng = len(next(iter(out.values())))
    words = np.stack([np.broadcast_to(out[f"M[{i}]"], (ng,)) for i in range(G * B // 4)], 1).astype(np.uint32)
    return words.reshape(ng * G, B // 4).view(np.uint8).reshape(ng * G, B) if words.dtype.byteorder in "=<|" else None


def _rk_word(rkd, name: str) -> int:
    """Round-key word ``name`` of the prepared module; a u64 word split by split_u64 is "rk[i][0]" (low
    half) and "rk[i][1]" (high half) of the reference's "rk[i]"."""
    if name in rkd:
        return int(np.asarray(rkd[name]).reshape(-1)[0])
    base, half = name[: name.rindex("[")], int(name[name.rindex("[") + 1 : -1])
    return int(np.asarray(rkd[base]).reshape(-1)[0]) >> (32 * half) & 0xFFFFFFFF


def derived(lay, module, rkd) -> dict[str, np.ndarray]:
    keys = {n: np.uint32(_rk_word(rkd, n)) for n in rk_index(module)}
    return keys | Interpreter(module.tables).run(lay.derive, keys)
