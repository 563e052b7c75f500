"""The modes' names and the checks of their arguments, without numpy: what a command checks before it
loads anything heavy (cipherspec.modes, which runs the modes, re-exports them).

    check_mode("ctr")                 -> None;  check_mode("ofb") -> UsageError("unknown mode 'ofb' (modes: ...)")
    check_crypt_mode("gcm")           -> None: the modes of ``cipherspec encrypt/decrypt`` (these and AEAD_MODES)
    check_iv(cipher, iv)              -> bytes(iv), or the one-line error when it is missing or not one block
"""

from __future__ import annotations

from .errors import UsageError

MODES = ("ecb", "cbc", "ctr")
AEAD_MODES = ("gcm", "ccm", "xts")  # cipherspec.aead: GCM and CCM authenticate; XTS is for data units (disks)


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise UsageError(f"unknown mode '{mode}' (modes: {', '.join(MODES)})")


def check_crypt_mode(mode: str) -> None:
    if mode not in MODES + AEAD_MODES:
        raise UsageError(f"unknown mode '{mode}' (modes: {', '.join(MODES + AEAD_MODES)})")


def check_iv(c, iv: bytes | None) -> bytes:
    """The IV as bytes, or the usual one-line error when it is missing or not one block long."""
    if iv is None:
        raise UsageError(f"this mode needs an IV of {c.block_bytes} bytes")
    if len(iv) != c.block_bytes:
        raise UsageError(f"{c.name} needs a {c.block_bytes}-byte IV, got {len(iv)} bytes")
    return bytes(iv)
