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


def inline_ptx_encrypt(registry, name: str, layout: str, n_groups: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(got, want): ``n_groups`` groups of random blocks encrypted through the generated inline-PTX text of
    lanes_in, the encryption core and lanes_out, run by the CPU emulator; and by the reference cipher."""
    from cipherspec.blockcipher import RefCipher
    from generator.ptx import cores, emulate
    from generator.ptx.lanes import lanes_for
    from generator.ptx.placement import CudaSchedule
    from generator.ptx.source import prepared

    module = prepared(registry.module(name), CudaSchedule(layout=layout))
    lay = lanes_for(module, layout)
    ref = RefCipher(registry.module(name))
    rng = np.random.default_rng(seed)
    rkd = ref.expand_key(rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes())
    keys = derived(lay, module, rkd)
    idx = dict(rk_index(module)) | {n: len(rk_index(module)) + k for k, (n, _) in enumerate(lay.derive.outputs)}
    rk = np.zeros(len(idx), np.uint64)
    for n, i in idx.items():
        rk[i] = int(np.asarray(keys[n]).reshape(-1)[0])
    acc = cores.access(module, CudaSchedule(layout=layout), "RK")
    g, b = lay.group, ref.block_bytes
    blocks = rng.integers(0, 256, (n_groups * g, b), dtype=np.uint8)
    mem = memory_words(blocks, g)
    text_in = cores.core("i", lay.lanes_in, module, cores.NO_ACCESS, "ptx", list(mem))
    text = cores.core("e", lay.cores["encrypt"], module, acc, "ptx", lay.state["encrypt"], rk_idx=idx)
    text_out = cores.core("o", lay.lanes_out, module, cores.NO_ACCESS, "ptx", lay.state["encrypt"])
    x = emulate.run_core(text_in, [mem[f"M[{i}]"].astype(np.uint64) for i in range(len(mem))], rk, {})
    m = emulate.run_core(text_out, emulate.run_core(text, x, rk, {}), rk, {})
    got = blocks_of({f"M[{i}]": v.astype(np.uint32) for i, v in enumerate(m)}, g, b)
    return got, ref.encrypt_blocks(rkd, blocks)
