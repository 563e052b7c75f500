"""Runs a mode natively when the cipher object has it (the C library's methods, e.g. ``c.gcm_encrypt``,
``c.gcm_stream``), else the generic definition of this package over the cipher's block function.
What the command line calls, so that it runs on every target as it is and natively once a target
implements the mode.

    ct, tag = call(c, "gcm_encrypt", rk, iv, aad, data, tag_len=16)   # c.gcm_encrypt(...) or gcm.gcm_encrypt(c, ...)
    s = gcm_stream(c, rk, iv, "decrypt")                             # c.gcm_stream(...) or GcmStream(c, ...)
    native(c, "gcm_stream")                                          -> True when the target has its own
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ccm import CcmStream, ccm_decrypt, ccm_encrypt
from .cmac import CmacStream, cmac
from .gcm import GcmStream, gcm_decrypt, gcm_encrypt, gmac
from .xts import xts_decrypt, xts_encrypt

ORACLE: dict[str, Callable[..., Any]] = {
    "gcm_encrypt": gcm_encrypt,
    "gcm_decrypt": gcm_decrypt,
    "gmac": gmac,
    "ccm_encrypt": ccm_encrypt,
    "ccm_decrypt": ccm_decrypt,
    "xts_encrypt": xts_encrypt,
    "xts_decrypt": xts_decrypt,
    "cmac": cmac,
    "gcm_stream": GcmStream,
    "ccm_stream": CcmStream,
    "cmac_stream": CmacStream,
}


def native(c, name: str) -> bool:
    return callable(getattr(c, name, None))


def call(c, name: str, *args, **kwargs):
    """``c.<name>(*args)`` when the target has it, else the generic ``<name>(c, *args)``."""
    method = getattr(c, name, None)
    if callable(method):
        return method(*args, **kwargs)
    return ORACLE[name](c, *args, **kwargs)


def gcm_stream(c, rk, iv: bytes, direction: str):
    return call(c, "gcm_stream", rk, iv, direction)


def ccm_stream(c, rk, nonce: bytes, direction: str, aad: bytes, data_len: int, tag_len: int = 16):
    return call(c, "ccm_stream", rk, nonce, direction, aad, data_len, tag_len)


def cmac_stream(c, rk):
    return call(c, "cmac_stream", rk)
