"""GF(2^8) arithmetic for ``gmul``: multiplication modulo a degree-8 polynomial (AES: 0x11b)."""

from __future__ import annotations

import functools


def gf_mul(a: int, b: int, poly: int) -> int:
    """a * b in GF(2^8) = GF(2)[x]/(poly).  gf_mul(0x57, 0x83, 0x11b) == 0xc1 (FIPS-197 4.2)."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a & 0x100:
            a ^= poly
    return r


@functools.cache
def gf_table(c: int, poly: int) -> tuple[int, ...]:
    """The 256-entry table of x -> gf_mul(x, c, poly)."""
    return tuple(gf_mul(x, c, poly) for x in range(256))
