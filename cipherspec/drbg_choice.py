"""The choice of CTR_DRBG implementation for a cipher object: the target's own (the C library's DRBG)
when it has one, else cipherspec.drbg.CtrDrbg over its block function (numpy: imported only then).

    d = new_drbg(cipher, use_df=True)      # cipher.make_drbg(...)  or  CtrDrbg(cipher, ...)
"""

from __future__ import annotations


def new_drbg(cipher, **kwargs):
    """The target's own DRBG when it has one (the C library's), else cipherspec.drbg.CtrDrbg over its block function."""
    if hasattr(cipher, "make_drbg"):
        return cipher.make_drbg(**kwargs)
    from .drbg import CtrDrbg  # numpy: only for targets without their own DRBG

    return CtrDrbg(cipher, **kwargs)
