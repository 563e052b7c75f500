"""The CUDA cores, both flavours, emulated on the CPU (generator/ptx/emulate.py) vs the interpreter.

No GPU or nvcc needed: this checks instruction selection itself (LOP3 truth tables, prmt-based
8/16-bit rotations, the clean/dirty masking of narrow words, table indexing per placement) and the
uniform-hoisting split (pre + main == encrypt) on random blocks and keys for every cipher.
"""

from __future__ import annotations

import numpy as np
import pytest
from shipped import shipped_registry

from cipherspec.blockcipher import RefCipher, bytes_to_words
from cipherspec.passes import hoist_uniform
from generator.ptx import cores, emulate
from generator.ptx.ctr import state_names, varying_words
from generator.ptx.placement import CudaSchedule, rk_index
from generator.ptx.source import prepared

NAMES = shipped_registry().names()


def _setup(registry, name, seed):
    module = prepared(registry.module(name))
    ref = RefCipher(registry.module(name))
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes()
    rkd = ref.expand_key(key)
    idx = rk_index(module)
    rk = np.zeros(len(idx), np.uint64)
    for n, i in idx.items():
        rk[i] = int(np.asarray(rkd[n]).reshape(-1)[0])
    blocks = rng.integers(0, 256, (64, ref.block_bytes), dtype=np.uint8)
    x = [w.astype(np.uint64) for w in bytes_to_words(module.block, blocks)]
    tables = {t.name: np.array(t.values) for t in module.tables.values()}
    return module, ref, rkd, rk, blocks, x, tables


def _words(module, out):
    return np.stack([np.asarray(w, np.uint64) for w in out], 1)


@pytest.mark.parametrize("flavour", ["ptx", "c", "ptx-bal"])
@pytest.mark.parametrize("name", NAMES)
def test_cores_match_interpreter(registry, name, flavour):
    bal = flavour.endswith("-bal")
    flavour = flavour.split("-")[0]
    module, ref, rkd, rk, blocks, x, tables = _setup(registry, name, 1)
    tab = "shared4" if module.tables else "shared"
    acc = cores.access(module, CudaSchedule(tab=tab), "RK")
    ct = ref.encrypt_blocks(rkd, blocks)
    want = _words(module, [w.astype(np.uint64) for w in bytes_to_words(module.block, ct)])
    text = cores.core(
        "e", module.functions["encrypt"], module, acc, flavour, state_names(module, "encrypt"), balanced=bal
    )
    got = _words(module, emulate.run_core(text, x, rk, tables, copies=4 if module.tables else 1))
    assert (got == want).all()
    xc = [w.astype(np.uint64) for w in bytes_to_words(module.block, ct)]
    text = cores.core(
        "d", module.functions["decrypt"], module, acc, flavour, state_names(module, "decrypt"), balanced=bal
    )
    got = _words(module, emulate.run_core(text, xc, rk, tables, copies=4 if module.tables else 1))
    assert (got == _words(module, x)).all()


@pytest.mark.parametrize("name", NAMES)
def test_hoisted_ctr_core_matches(registry, name):
    """pre(uniform words, rk) then main(varying words, H) == encrypt, with uniform words shared by all lanes."""
    module, ref, rkd, rk, blocks, x, tables = _setup(registry, name, 2)
    vary = varying_words(module)
    x = [v if j in vary else np.full_like(v, v[0]) for j, v in enumerate(x)]  # one counter segment
    xs = state_names(module, "encrypt")
    uniform = {xs[j] for j in range(len(xs)) if j not in vary} | {n for n in rk_index(module)}
    split = hoist_uniform.split(module.functions["encrypt"], uniform)
    acc = cores.access(module, CudaSchedule(tab="const"), "RK")
    pre = cores.core("p", split.pre, module, acc, "ptx", xs)
    main = cores.core("m", split.main, module, acc, "ptx", xs, [n for n, _ in split.pre.outputs], balanced=True)
    h = emulate.run_core(pre, [v[:1] for v in x], rk, tables)
    got = _words(module, emulate.run_core(main, x, rk, tables, h=h))
    full = cores.core("e", module.functions["encrypt"], module, acc, "ptx", xs)
    want = _words(module, emulate.run_core(full, x, rk, tables))
    assert (got == want).all()
