"""How much of the slowest matrices a test run covers.

CI (2 cores, an empty build cache, about 20 minutes for everything) runs every construct and every shipped
cipher's default, and the cells that share a code path for one representative: the first cipher of each
family and block shape (key sizes change the key schedule and the round count, not the code the backends
generate). CIPHERSPEC_FULL_MATRIX=1 (before a release: `CIPHERSPEC_FULL_MATRIX=1 bash scripts/test.sh`) runs
every cell.

    full_matrix()                                       -> False in CI
    representatives(["aes128", "aes192", "cham128_128", "cham64_128"])
                                                        -> ["aes128", "cham128_128", "cham64_128"]  (all if full)
"""

from __future__ import annotations

import os


def full_matrix() -> bool:
    return os.environ.get("CIPHERSPEC_FULL_MATRIX") == "1"


def representatives(names: list[str]) -> list[str]:
    """The first cipher of each (family, block shape) in ``names``, or all of them under full_matrix()."""
    if full_matrix():
        return list(names)
    from shipped import shipped_registry

    reg, seen, out = shipped_registry(), set(), []
    for n in names:
        block = reg.module(n).block
        key = (reg.definition(n)[1].family, block.width, block.count, block.endian)
        if key not in seen:
            seen.add(key)
            out.append(n)
    return out
