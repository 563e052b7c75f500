"""The shipped ciphers' Registry, one per test process.

Parsing the spec files and optimizing a module take seconds; test modules that enumerate ciphers
or schedules at collection time, and the session fixture `registry`, share this one instead of
making their own (nine Registry() calls per process before it existed).

    from shipped import shipped_registry
    NAMES = shipped_registry().names()
"""

from __future__ import annotations

import functools

from cipherspec.registry import Registry


@functools.lru_cache(maxsize=1)
def shipped_registry() -> Registry:
    return Registry()


@functools.lru_cache(maxsize=8)
def shipped_cuda_source(name: str):
    """The CUDA source `cipherspec build` writes for ``name`` (generator/ptx/build.shipped_source), one per test
    process: AES's takes ~10 s to generate, and several test modules read it."""
    from generator.ptx.build import shipped_source

    return shipped_source(shipped_registry(), name, None)[2]
