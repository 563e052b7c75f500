"""How much of the slowest matrices a test run covers.

CI (2 cores, an empty build cache, about 20 minutes for everything) runs every construct and every shipped
cipher once, and the cells that share a code path for one representative; CIPHERSPEC_FULL_MATRIX=1 (before a
release: `CIPHERSPEC_FULL_MATRIX=1 bash scripts/test.sh`) runs every cell.

    full_matrix()                                 -> False in CI
    one_per_family(["aes128", "aes192", "lea128"]) -> ["aes128", "lea128"]   (every name when full_matrix())
"""

from __future__ import annotations

import os


def full_matrix() -> bool:
    return os.environ.get("CIPHERSPEC_FULL_MATRIX") == "1"


def one_per_family(names: list[str]) -> list[str]:
    """The first cipher of each family (shipped names sort with the smallest key first), or all of them."""
    if full_matrix():
        return list(names)
    from shipped import shipped_registry

    reg, seen, out = shipped_registry(), set(), []
    for n in names:
        family = reg.definition(n)[1].family
        if family not in seen:
            seen.add(family)
            out.append(n)
    return out
