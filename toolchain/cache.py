"""Where cached builds live: $CIPHERSPEC_CACHE, else ~/.cache/cipherspec; one subfolder per tool.

cache_root()          -> Path("~/.cache/cipherspec")
cache_root("nvcc")    -> Path("~/.cache/cipherspec/nvcc")   (created)
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root(sub: str | None = None) -> Path:
    base = Path(os.environ.get("CIPHERSPEC_CACHE") or Path.home() / ".cache" / "cipherspec")
    if sub is None:
        return base
    d = base / sub
    d.mkdir(parents=True, exist_ok=True)
    return d
