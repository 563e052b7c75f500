"""What the authenticated modes share: the block-size rule, one-block encryption, tag comparison.

require_block(c, "GCM", (16,))          -> None, or UsageError("GCM needs a 128-bit block; hight has ...")
encrypt_one(c, rk, bytes(16))           -> E_K(0^128) as bytes
check_tag_length("GCM", 10, GCM_TAGS)   -> UsageError("GCM: a tag is 16, 15, 14, 13, 12, 8 or 4 bytes, got 10")
verify(expected, got)                   -> None, or AuthenticationError (constant-time comparison)
"""

from __future__ import annotations

import hmac

import numpy as np

from ..errors import AuthenticationError, UsageError

DIRECTIONS = ("encrypt", "decrypt")


def cipher_name(c) -> str:
    return getattr(c, "name", "this cipher")


def require_block(c, mode: str, sizes: tuple[int, ...]) -> None:
    if c.block_bytes not in sizes:
        bits = " or ".join(str(8 * s) for s in sizes)
        raise UsageError(f"{mode} needs a {bits}-bit block; {cipher_name(c)} has a {8 * c.block_bytes}-bit block")


def check_direction(mode: str, direction: str) -> None:
    if direction not in DIRECTIONS:
        raise UsageError(f"{mode}: unknown direction '{direction}' (encrypt or decrypt)")


def encrypt_one(c, rk, block: bytes) -> bytes:
    """One block through the cipher's batch function."""
    return c.encrypt_blocks(rk, np.frombuffer(block, np.uint8).reshape(1, -1)).tobytes()


def encrypt_many(c, rk, blocks: bytes) -> bytes:
    """Whole blocks through the cipher's batch function (one call: the target's lanes run them together)."""
    if not blocks:
        return b""
    return c.encrypt_blocks(rk, np.frombuffer(blocks, np.uint8).reshape(-1, c.block_bytes)).tobytes()


def xor(a: bytes, b: bytes) -> bytes:
    """a XOR b over the length of a (b at least as long)."""
    n = len(a)
    return (int.from_bytes(a, "big") ^ int.from_bytes(b[:n], "big")).to_bytes(n, "big")


def tag_list(lengths: tuple[int, ...]) -> str:
    return ", ".join(str(t) for t in lengths[:-1]) + f" or {lengths[-1]}"


def check_tag_length(mode: str, n: int, allowed: tuple[int, ...]) -> None:
    if n not in allowed:
        raise UsageError(f"{mode}: a tag is {tag_list(allowed)} bytes, got {n}")


def verify(expected: bytes, got: bytes) -> None:
    """Raises AuthenticationError unless the tags are equal (compared in constant time)."""
    if not hmac.compare_digest(expected, got):
        raise AuthenticationError()
