"""Targets: what runs a cipher.  ``ref`` is the interpreter; every other target is a Backend
(generator/backends.py), read from its registry.

    make_cipher(registry, "lea128", rounds=None, target="c", schedule=None) -> a cipher object with
        name, block_bytes, key_bytes, check_key(key), expand_key(key) -> round keys,
        encrypt_blocks(rk, blocks) / decrypt_blocks(rk, blocks)   (uint8 arrays (N, block_bytes))
        and optionally run_mode(rk, mode, direction, data, iv)   (the target's own ECB/CBC/CTR)
    builder("neon")  -> the Backend whose build() ``cipherspec build`` calls
"""

from __future__ import annotations

from cipherspec.blockcipher import RefCipher
from cipherspec.errors import UsageError
from cipherspec.registry import Registry
from generator.backend import Backend
from generator.backends import BACKENDS, backend

TARGETS = ("ref",) + tuple(BACKENDS)


def make_cipher(
    registry: Registry, name: str, rounds: int | None = None, target: str = "ref", schedule: str | None = None
):
    if target == "ref":
        if schedule is not None:
            raise UsageError("target ref has no schedules")
        return RefCipher(registry.module(name, rounds))
    b = backend(target)
    registry.definition(name)  # unknown cipher: the usual one-line error before any backend work
    return b.load(registry, name, rounds, schedule)


def builder(target: str) -> Backend:
    if target == "ref":
        raise UsageError(f"target ref is the interpreter; it builds nothing (targets: {', '.join(BACKENDS)})")
    return backend(target)
