"""A GCM IV solved for a chosen pre-counter block J0, so that a test can make inc32 wrap mid-message.

For a 16-byte IV, J0 = ((IV·H) ⊕ L)·H with L = the length block (128: one 16-byte block of IV bits), so
IV = ((J0·H⁻¹) ⊕ L)·H⁻¹ (products in GF(2^128) as SP 800-38D defines them).

    iv = wrapping_iv(h, prefix=bytes(12), low=0xFFFFFFF0)   # J0 = prefix || fffffff0: wraps after 15 blocks
"""

from __future__ import annotations

from cipherspec.ghash import gf128_mul


def gf128_inv(x: int) -> int:
    """x^(2^128 - 2), the inverse of x != 0 (1 << 127 is the field's 1)."""
    r, e = 1 << 127, (1 << 128) - 2
    while e:
        if e & 1:
            r = gf128_mul(r, x)
        x = gf128_mul(x, x)
        e >>= 1
    return r


def wrapping_iv(h: int, prefix: bytes, low: int) -> bytes:
    """The 16-byte IV whose J0 is prefix (12 bytes) || low (big-endian 32 bits), under hash key h."""
    j0 = int.from_bytes(prefix + low.to_bytes(4, "big"), "big")
    hinv = gf128_inv(h)
    return gf128_mul(gf128_mul(j0, hinv) ^ 128, hinv).to_bytes(16, "big")
