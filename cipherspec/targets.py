"""Targets: what runs a cipher.  ``ref`` is the interpreter; the backends register here as they land.

    make_cipher(registry, "lea128", rounds=None, target="ref") -> object with
        name, block_bytes, key_bytes, expand_key(key), encrypt_blocks(rk, b), decrypt_blocks(rk, b)
"""
from __future__ import annotations

from .blockcipher import RefCipher
from .errors import UsageError
from .registry import Registry

TARGETS = ("ref",)


def make_cipher(registry: Registry, name: str, rounds: int | None = None, target: str = "ref"):
    if target not in TARGETS:
        raise UsageError(f"unknown target '{target}' (targets: {', '.join(TARGETS)})")
    module = registry.module(name, rounds)
    return RefCipher(module)
