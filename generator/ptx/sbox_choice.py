"""How the GPU's bitsliced cores compute a table affine-equivalent to GF(2^8) inversion: which of its 2,040
decompositions Lout∘S∘Lin (generator/common/sbox_equiv.py), which Boyar-Peralta circuit and which linear form
(generator/common/bitslice.py LINEAR_FORMS), priced in LOP3 instructions (bitsliced.lop3_count).

The search prices each candidate by lowering it and covering it with LOP3s (~0.1 s each), so its result for
every such table of the shipped, example and conformance specs is recorded in sbox_choice.json, keyed by the
SHA-256 of the table's values (not by any name: a spec with the same table gets the same circuit), written by

    python3 scripts/sbox_choice.py            (the search with RECORD_KEEP decompositions per circuit;
                                              the recording lives there: it needs bitsliced.py, which imports this)

A table not recorded gets the same search at build time with BUILD_KEEP decompositions per circuit (a few
seconds); a recorded entry is checked against its table before use (the decomposition must reproduce it).

    before: ARIA's S2⁻¹ as two_sided gives it, the 113-gate circuit with merged linear parts: 82 LOP3
    after:  the decomposition (a, k) = (23, 6) of the same table (recorded): 76 LOP3
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from cipherspec.sbox import aes_sbox
from generator.common import sbox_equiv
from generator.common.bitslice import best_lowering, two_sided

RECORD = Path(__file__).with_name("sbox_choice.json")
RECORD_KEEP = 16  # decompositions priced per circuit by the recording run
BUILD_KEEP = 4  # ... by a build, for a table not recorded


def digest(values: tuple[int, ...]) -> str:
    return hashlib.sha256(bytes(values)).hexdigest()


@cache
def _recorded() -> dict[str, dict]:
    return json.loads(RECORD.read_text()) if RECORD.exists() else {}


@cache  # a cipher's S-box is lowered once per round and direction: check the record (or search) once per table
def choose(values: tuple[int, ...], shapes: tuple[str, ...], cost) -> tuple[tuple[int, int], str, str]:
    """((a, k), shape, how) for the table ``values``: the recorded pick when there is one, else the search."""
    entry = _recorded().get(digest(values))
    if entry is not None and entry["shape"] in shapes:
        key = (entry["a"], entry["k"])
        form = sbox_equiv.variant(two_sided(values), *key)
        s = aes_sbox()[0]
        if all(form.out(s[form.inp(x)]) == values[x] for x in range(256)):
            return key, entry["shape"], entry["how"]
    _, key, shape, how = best_lowering(values, shapes, cost, BUILD_KEEP)
    return key, shape, how
