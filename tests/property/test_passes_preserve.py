"""Every pass preserves the interpreter's results, for every cipher, on random keys and blocks: the
shared pipeline, every backend's own passes under every schedule it builds, and the CTR hoisting split."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shipped import shipped_registry

from cipherspec.blockcipher import RefCipher
from cipherspec.interp import Interpreter
from cipherspec.passes import hoist_uniform
from cipherspec.pipeline import PIPELINE, optimize, pass_names, run_passes
from generator.backends import BACKENDS

NAMES = shipped_registry().names()


# The passes do not depend on the random inputs: a cipher's stages are computed once (not once per
# hypothesis example) and each example runs the interpreter over all of them.  Pytest runs one test's
# parameters in order, so a one-entry cache holds the cipher under test and no more (memory).
@pytest.fixture(scope="module")
def shared_stages(registry):
    """name -> [(pass, module)]: the module after lowering and after every shared pass, in order."""

    @functools.lru_cache(maxsize=1)
    def stages(name):
        out = []
        optimize(registry.lowered(name), on_pass=lambda pname, m, changed: out.append((pname, m)))
        assert [s[0] for s in out] == ["lower"] + [p.name for p in PIPELINE]
        return out

    return stages


@pytest.fixture(scope="module")
def backend_stages(registry):
    """name -> [(target, schedule name, [(pass, module)])] for each distinct pass list a backend runs."""

    @functools.lru_cache(maxsize=1)
    def stages(name):
        lists = []
        for target, sched, passes in _backend_pass_lists(registry, name):
            out = []
            run_passes(registry.module(name), passes, on_pass=lambda pname, m, changed, out=out: out.append((pname, m)))
            lists.append((target, sched, out))
        return lists

    return stages


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_each_pass_preserves_results(name, shared_stages, seed):
    rng = np.random.default_rng(seed)
    stages = shared_stages(name)
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


def _backend_pass_lists(registry, name):
    """(target, schedule name, passes) for each distinct pass list a backend runs on this cipher."""
    module = registry.module(name)
    seen, out = set(), []
    for b in BACKENDS.values():
        for s in b.schedules(module):
            passes = b.passes(module, s)
            key = (b.name, tuple(p.name for p in passes))
            if passes and key not in seen:
                seen.add(key)
                out.append((b.name, b.schedule_name(module, s), passes))
    return out


def test_backends_run_the_passes_they_declare(registry):
    """The passes a backend declares are what its prepare() applies (the dump and these tests see them): once
    per distinct pass list (schedules that declare the same passes, parameters included, prepare alike)."""
    for name in ("aes128", "aria128", "lea128"):
        module = registry.module(name)
        seen = set()
        for b in BACKENDS.values():
            for s in b.schedules(module):
                passes = b.passes(module, s)
                key = (b.name, tuple(repr(p) for p in passes))
                if key in seen:
                    continue
                seen.add(key)
                want = run_passes(module, passes)
                got = b.prepare(module, s)
                assert got.tables == want.tables
                assert all(got.functions[f].ops == want.functions[f].ops for f in want.functions), (b.name, name)


def test_every_backend_pass_is_covered(registry):
    """lower_gmul and fuse_tables (C tfused) are among the passes checked below."""
    reg = registry
    names = {p.name for n in ("aes128", "aria128") for _, _, ps in _backend_pass_lists(reg, n) for p in ps}
    assert {"lower_gmul", "fuse_tables", "prune_tables", "constfold", "cse", "dce"} <= names
    aes = reg.module("aes128")
    assert "lower_gmul" in pass_names(BACKENDS["c"].passes(aes, BACKENDS["c"].parse_schedule(aes, "sliced_tbytes_v16")))


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_each_backend_pass_preserves_results(name, registry, backend_stages, seed):
    rng = np.random.default_rng(seed)
    first = RefCipher(registry.module(name))
    key = rng.integers(0, 256, first.key_bytes, dtype=np.uint8).tobytes()
    blocks = rng.integers(0, 256, (16, first.block_bytes), dtype=np.uint8)
    want_rk = first.expand_key(key)
    want_ct = first.encrypt_blocks(want_rk, blocks)
    for target, sched, stages in backend_stages(name):
        for pname, module in stages:
            c = RefCipher(module)
            rk = c.expand_key(key)
            where = f"{target} pass {pname} ({sched})"
            assert (c.encrypt_blocks(rk, blocks) == want_ct).all(), f"{where} changed encryption of {name}"
            assert (c.decrypt_blocks(rk, want_ct) == blocks).all(), f"{where} changed decryption of {name}"


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), uniform_share=st.floats(0.0, 1.0))
def test_hoist_uniform_split_is_a_dataflow_identity(name, registry, seed, uniform_share):
    """main(inputs + pre(inputs)) == fn(inputs), whichever inputs are declared uniform."""
    rng = np.random.default_rng(seed)
    module = registry.module(name)
    fn = module.functions["encrypt"]
    inputs = fn.inputs()
    uniform = {n for n, _, _ in inputs if rng.random() < uniform_share}
    split = hoist_uniform.split(fn, uniform)
    vals = {n: rng.integers(0, 1 << w, 8, dtype=np.uint64).astype(np.dtype(f"u{max(w, 8) // 8}")) for n, w, _ in inputs}
    interp = Interpreter(module.tables)
    want = interp.run(fn, vals)
    pre = interp.run(split.pre, {n: vals[n] for n, _, _ in split.pre.inputs()})
    got = interp.run(split.main, {**{n: vals[n] for n, _, _ in split.main.inputs() if n in vals}, **pre})
    for n, _ in fn.outputs:
        assert np.array_equal(np.broadcast_to(got[n], want[n].shape), want[n]), (name, n)
