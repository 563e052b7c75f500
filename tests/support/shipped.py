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
