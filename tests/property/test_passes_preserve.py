"""Every pass preserves the interpreter's results, for every cipher, on random keys and blocks."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cipherspec.blockcipher import RefCipher
from cipherspec.pipeline import PIPELINE, optimize
from cipherspec.registry import Registry

NAMES = Registry().names()


def _stages(registry, name):
    """The module after lowering and after every pass, in pipeline order."""
    stages = []
    optimize(registry.lowered(name), on_pass=lambda pname, m, changed: stages.append((pname, m)))
    assert [s[0] for s in stages] == ["lower"] + [p.name for p in PIPELINE]
    return stages


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_each_pass_preserves_results(name, registry, seed):
    rng = np.random.default_rng(seed)
    stages = _stages(registry, name)
    first = RefCipher(stages[0][1])
    key = rng.integers(0, 256, first.key_bytes, dtype=np.uint8).tobytes()
    blocks = rng.integers(0, 256, (16, first.block_bytes), dtype=np.uint8)
    want_rk = first.expand_key(key)
    want_ct = first.encrypt_blocks(want_rk, blocks)
    want_pt = first.decrypt_blocks(want_rk, want_ct)
    assert (want_pt == blocks).all()
    for pname, module in stages[1:]:
        c = RefCipher(module)
        rk = c.expand_key(key)
        for k in want_rk:
            assert np.array_equal(np.broadcast_to(rk[k], (1,)), np.broadcast_to(want_rk[k], (1,))), (pname, k)
        assert (c.encrypt_blocks(rk, blocks) == want_ct).all(), f"{pname} changed encryption of {name}"
        assert (c.decrypt_blocks(rk, want_ct) == blocks).all(), f"{pname} changed decryption of {name}"


@pytest.mark.parametrize("name", NAMES)
def test_pipeline_shrinks_or_keeps_every_function(name, registry):
    lowered, final = registry.lowered(name), registry.module(name)
    for fname, fn in final.functions.items():
        assert len(fn.ops) <= len(lowered.functions[fname].ops)
        assert [n for n, _ in fn.outputs] == [n for n, _ in lowered.functions[fname].outputs]
        assert [i[0] for i in fn.inputs()] == [i[0] for i in lowered.functions[fname].inputs()]
