"""A cipher variant as a batch block function over bytes, run by the interpreter (target "ref").

    c = RefCipher(registry.module("lea128"))
    rk = c.expand_key(key)                         # round keys (one key, or one per lane)
    ct = c.encrypt_blocks(rk, blocks)              # blocks: uint8 array (N, block_bytes)

Bytes become words as the spec's ``block``/``key`` declarations say
(``u32[4] little``: four little-endian words; ``u16[4] big``: big-endian).
"""

from __future__ import annotations

import numpy as np

from .errors import UsageError
from .interp import DTYPES, Interpreter
from .ir import Module, WordLayout


def bytes_to_words(layout: WordLayout, data: np.ndarray) -> list[np.ndarray]:
    """(N, nbytes) uint8 -> ``count`` arrays of N words."""
    data = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1, layout.nbytes)
    if layout.width == 8:
        return [data[:, i] for i in range(layout.count)]
    order = "<" if layout.endian == "little" else ">"
    words = data.view(np.dtype(f"{order}u{layout.width // 8}")).reshape(-1, layout.count)
    return [words[:, i].astype(DTYPES[layout.width]) for i in range(layout.count)]


def words_to_bytes(layout: WordLayout, words: list[np.ndarray], n: int) -> np.ndarray:
    """``count`` arrays of words (broadcast to N lanes) -> (N, nbytes) uint8."""
    if layout.width == 8:
        cols = [np.broadcast_to(w, (n,)).astype(np.uint8) for w in words]
        return np.stack(cols, axis=1) if cols else np.zeros((n, 0), np.uint8)
    order = "<" if layout.endian == "little" else ">"
    mat = np.stack([np.broadcast_to(w, (n,)) for w in words], axis=1).astype(np.dtype(f"{order}u{layout.width // 8}"))
    return np.ascontiguousarray(mat).view(np.uint8).reshape(n, layout.nbytes)


def as_blocks(data, block_bytes: int) -> np.ndarray:
    """bytes-like or uint8 array -> (N, block_bytes) uint8 array (the length must be whole blocks)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = np.frombuffer(bytes(data), np.uint8)
    arr = np.ascontiguousarray(data, dtype=np.uint8)
    if arr.size % block_bytes:
        raise UsageError(f"{arr.size} bytes is not a whole number of {block_bytes}-byte blocks")
    return arr.reshape(-1, block_bytes)


class RefCipher:
    """The reference target: the optimized IR, run by the interpreter."""

    target = "ref"
    lane_keys = True  # expand_key accepts one key per lane (used to batch KAT files)

    def __init__(self, module: Module):
        self.module = module
        self.name = module.cipher
        self.block_bytes = module.block.nbytes
        self.key_bytes = module.key.nbytes
        self._interp = Interpreter(module.tables)

    def check_key(self, key: bytes) -> None:
        if len(key) != self.key_bytes:
            raise UsageError(f"{self.name} needs a {self.key_bytes}-byte key, got {len(key)} bytes")

    def expand_key(self, key: bytes | np.ndarray) -> dict[str, np.ndarray]:
        """Round keys for one key (bytes) or for many (uint8 array (M, key_bytes): lane i uses key i)."""
        if isinstance(key, (bytes, bytearray)):
            self.check_key(key)
            key = np.frombuffer(bytes(key), np.uint8)
        words = bytes_to_words(self.module.key, key)
        fn = self.module.functions["key_schedule"]
        names = [name for name, _, _ in fn.inputs()]
        return self._interp.run(fn, dict(zip(names, words)))

    def _run(self, kind: str, rk: dict[str, np.ndarray], blocks: np.ndarray) -> np.ndarray:
        blocks = as_blocks(blocks, self.block_bytes)
        n = blocks.shape[0]
        if n == 0:
            return blocks.copy()
        fn = self.module.functions[kind]
        inputs: dict[str, np.ndarray] = dict(rk)
        state_names = [name for name, _, _ in fn.inputs() if name not in rk]
        inputs.update(zip(state_names, bytes_to_words(self.module.block, blocks)))
        out = self._interp.run(fn, inputs)
        return words_to_bytes(self.module.block, [out[name] for name, _ in fn.outputs], n)

    def encrypt_blocks(self, rk: dict[str, np.ndarray], blocks: np.ndarray) -> np.ndarray:
        return self._run("encrypt", rk, blocks)

    def decrypt_blocks(self, rk: dict[str, np.ndarray], blocks: np.ndarray) -> np.ndarray:
        return self._run("decrypt", rk, blocks)


def round_trip_fails(module: Module, keys: int = 3, blocks: int = 8, seed: int = 0) -> bool:
    """Whether decrypt(encrypt(x)) differs from x on the interpreter for some of ``keys`` random keys and ``blocks``
    random blocks each (False for a spec without decrypt).  A block cipher's decrypt inverts its encrypt; a spec
    that tests constructs need not (tests/conformance/), and every target is compared with the spec as written
    either way -- so this is a lint that `cipherspec check` prints, not an error:

        round_trip_fails(lea128) -> False        round_trip_fails(logic_u32) -> True   (tests/conformance/logic.cs)
    """
    if "decrypt" not in module.functions or "encrypt" not in module.functions:
        return False
    ref = RefCipher(module)
    rng = np.random.default_rng(seed)
    for _ in range(keys):
        rk = ref.expand_key(rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes())
        x = rng.integers(0, 256, (blocks, ref.block_bytes), dtype=np.uint8)
        if not np.array_equal(ref.decrypt_blocks(rk, ref.encrypt_blocks(rk, x)), x):
            return True
    return False
