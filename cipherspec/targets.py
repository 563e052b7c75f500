"""Targets: what runs a cipher.  ``ref`` is the interpreter; each backend plugs in through one module.

    make_cipher(registry, "lea128", rounds=None, target="c", schedule=None) -> a cipher object with
        name, block_bytes, key_bytes, check_key(key), expand_key(key) -> round keys,
        encrypt_blocks(rk, blocks) / decrypt_blocks(rk, blocks)   (uint8 arrays (N, block_bytes))
        and optionally run_mode(rk, mode, direction, data, iv)   (the target's own ECB/CBC/CTR)

A backend's runtime module (``RUNTIME_MODULES``) exports ``make_cipher(registry, name, rounds, schedule)``;
its generator package (``BUILDERS``) exports ``build(registry, names, schedule, out_dir, progress)``.
"""
from __future__ import annotations

import importlib

from .blockcipher import RefCipher
from .errors import UsageError
from .registry import Registry

RUNTIME_MODULES = {"c": "runtime.c_target", "neon": "runtime.neon_target", "cuda": "runtime.cuda_target"}
BUILDERS = {"c": "generator.c.build", "neon": "generator.neon.build", "cuda": "generator.ptx.build"}
TARGETS = ("ref",) + tuple(RUNTIME_MODULES)


def _backend(table: dict[str, str], target: str, what: str):
    if target not in table:
        raise UsageError(f"unknown target '{target}' (targets: {', '.join(TARGETS)})")
    try:
        return importlib.import_module(table[target])
    except ModuleNotFoundError as e:
        if e.name and table[target].startswith(e.name):
            raise UsageError(f"target '{target}' has no {what} yet") from None
        raise


def make_cipher(registry: Registry, name: str, rounds: int | None = None, target: str = "ref",
                schedule: str | None = None):
    if target == "ref":
        if schedule is not None:
            raise UsageError("target ref has no schedules")
        return RefCipher(registry.module(name, rounds))
    registry.definition(name)  # unknown cipher: the usual one-line error before any backend work
    return _backend(RUNTIME_MODULES, target, "runtime").make_cipher(registry, name, rounds, schedule)


def builder(target: str):
    if target == "ref":
        raise UsageError("target ref is the interpreter; it builds nothing (targets: c, neon, cuda)")
    return _backend(BUILDERS, target, "code generator")
