"""The modes, defined once for every cipher and target: ECB, CBC, CTR.

A mode needs only a block function: ``encrypt_blocks(rk, blocks)`` /
``decrypt_blocks(rk, blocks)`` over uint8 arrays (N, block_bytes), which every
target provides.  CTR follows OpenSSL and Crypto++: block i is encrypted under
counter IV + i, the IV read as ONE big-endian integer over the whole block,
wrapping modulo 2^(8*block_bytes).

    ctr(c, rk, iv=bytes(16), data=b"...")  -> (ciphertext, next_iv)
"""

from __future__ import annotations

import numpy as np

from .errors import UsageError
from .modeargs import MODES, check_iv, check_mode


def _blocks(c, data: bytes, what: str) -> np.ndarray:
    if len(data) % c.block_bytes:
        raise UsageError(
            f"{what}: input is {len(data)} bytes, not a multiple of the {c.block_bytes}-byte block "
            "(ECB and CBC take whole blocks; pad first or use CTR)"
        )
    return np.frombuffer(bytes(data), np.uint8).reshape(-1, c.block_bytes)


def ecb_encrypt(c, rk, data: bytes) -> bytes:
    return c.encrypt_blocks(rk, _blocks(c, data, "ECB")).tobytes()


def ecb_decrypt(c, rk, data: bytes) -> bytes:
    return c.decrypt_blocks(rk, _blocks(c, data, "ECB")).tobytes()


def cbc_encrypt(c, rk, iv: bytes | None, data: bytes) -> bytes:
    blocks = _blocks(c, data, "CBC")
    prev = np.frombuffer(check_iv(c, iv), np.uint8)
    out = np.empty_like(blocks)
    for i in range(blocks.shape[0]):  # CBC encryption is sequential by definition
        prev = c.encrypt_blocks(rk, (blocks[i] ^ prev)[None, :])[0]
        out[i] = prev
    return out.tobytes()


def cbc_decrypt(c, rk, iv: bytes | None, data: bytes) -> bytes:
    blocks = _blocks(c, data, "CBC")
    prev = np.concatenate([np.frombuffer(check_iv(c, iv), np.uint8)[None, :], blocks[:-1]]) if len(blocks) else blocks
    return (c.decrypt_blocks(rk, blocks) ^ prev).tobytes()


def counter_blocks(iv: bytes, n: int) -> np.ndarray:
    """(n, len(iv)) uint8: IV + i for i < n, big-endian over the whole block, wrapping."""
    b = len(iv)
    if b not in (8, 16):  # general (slow) path for other block sizes
        base = int.from_bytes(iv, "big")
        mod = 1 << (8 * b)
        return np.frombuffer(b"".join(((base + i) % mod).to_bytes(b, "big") for i in range(n)), np.uint8).reshape(n, b)
    i = np.arange(n, dtype=np.uint64)
    lo0 = np.uint64(int.from_bytes(iv[-8:], "big"))
    lo = lo0 + i  # wraps mod 2^64
    if b == 8:
        return lo.astype(">u8").view(np.uint8).reshape(n, 8)
    hi = np.uint64(int.from_bytes(iv[:8], "big")) + (lo < lo0).astype(np.uint64)  # carry; wraps mod 2^64
    return np.stack([hi, lo], axis=1).astype(">u8").view(np.uint8).reshape(n, 16)


def ctr_next_iv(iv: bytes, nblocks: int) -> bytes:
    b = len(iv)
    return ((int.from_bytes(iv, "big") + nblocks) % (1 << (8 * b))).to_bytes(b, "big")


def ctr(c, rk, iv: bytes | None, data: bytes) -> tuple[bytes, bytes]:
    """Encrypts or decrypts (the same operation).  Returns (output, IV for the next call).

    A partial last block uses the first bytes of its keystream; the next IV then
    points past it (a stream continues only on block boundaries); a missing IV is the usual error."""
    iv = check_iv(c, iv)
    n = -(-len(data) // c.block_bytes)
    if n == 0:
        return b"", iv
    stream = c.encrypt_blocks(rk, counter_blocks(iv, n)).reshape(-1)[: len(data)]
    out = np.frombuffer(bytes(data), np.uint8) ^ stream
    return out.tobytes(), ctr_next_iv(iv, n)


def run_mode(c, rk, mode: str, direction: str, data: bytes, iv: bytes | None = None) -> bytes:
    """One entry point: mode in ecb/cbc/ctr, direction in encrypt/decrypt.

    A target with its own modes (the C library's ECB/CBC/CTR entry points) runs them; others get these."""
    check_mode(mode)
    if hasattr(c, "run_mode"):
        return c.run_mode(rk, mode, direction, data, iv)
    if mode == "ecb":
        return ecb_encrypt(c, rk, data) if direction == "encrypt" else ecb_decrypt(c, rk, data)
    if mode == "cbc":
        return cbc_encrypt(c, rk, iv, data) if direction == "encrypt" else cbc_decrypt(c, rk, iv, data)
    if mode == "ctr":
        return ctr(c, rk, iv, data)[0]
    raise UsageError(f"unknown mode '{mode}' (modes: {', '.join(MODES)})")
