"""The registry of targets: name -> Backend.  ``ref`` (the interpreter) is not a backend.

from generator.backends import BACKENDS, backend
backend("c").load(registry, "lea128", None, None)
"""

from __future__ import annotations

from cipherspec.errors import UsageError

from .backend import Backend
from .c import BACKEND as C
from .neon import BACKEND as NEON
from .openssl import BACKEND as OPENSSL_PROVIDER
from .ptx import BACKEND as CUDA

BACKENDS: dict[str, Backend] = {b.name: b for b in (C, NEON, CUDA, OPENSSL_PROVIDER)}


def backend(target: str) -> Backend:
    if target not in BACKENDS:
        raise UsageError(f"unknown target '{target}' (targets: ref, {', '.join(BACKENDS)})")
    return BACKENDS[target]
