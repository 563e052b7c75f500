"""CTR_DRBG's limits (NIST SP 800-90A Table 3), its error, a bulk request's shape and the choice of
implementation: what the C library's DRBG and `cipherspec drbg` need without numpy (cipherspec.drbg,
the Python DRBG over any block function, imports numpy; the command's start-up must not).

    d = new_drbg(cipher, use_df=True)      # cipher.make_drbg(...) (the C library's) or cipherspec.drbg.CtrDrbg
"""

from __future__ import annotations

from .errors import UsageError

MAX_BITS_PER_REQUEST = 1 << 19
MAX_RESEED_INTERVAL = 1 << 48
MAX_INPUT_BITS = 1 << 35


class DrbgError(UsageError):
    """A request the standard forbids (a limit, a missing reseed): refused, no output."""


def new_drbg(cipher, **kwargs):
    """The target's own DRBG when it has one (the C library's), else cipherspec.drbg.CtrDrbg over its block function."""
    if hasattr(cipher, "make_drbg"):
        return cipher.make_drbg(**kwargs)
    from .drbg import CtrDrbg  # numpy: only for targets without their own DRBG

    return CtrDrbg(cipher, **kwargs)


class BulkRequest:
    """One generate request of a bulk run: its output is E(key, v+1 .. v+nblocks), first nbytes of it."""

    __slots__ = ("key", "v", "nblocks", "nbytes")

    def __init__(self, key: bytes, v: bytes, nblocks: int, nbytes: int):
        self.key, self.v, self.nblocks, self.nbytes = key, v, nblocks, nbytes

    def __repr__(self) -> str:
        return f"BulkRequest(key={self.key.hex()[:8]}.., v={self.v.hex()[:8]}.., nblocks={self.nblocks})"
