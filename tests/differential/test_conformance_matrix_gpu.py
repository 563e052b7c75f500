"""The conformance specs and the example ciphers run on a real GPU (the default CUDA schedule) against the
interpreter, ECB both directions and CTR.  Skipped, with the reason, without an NVIDIA GPU (CI compiles
and emulates them in test_conformance_matrix.py / test_example_ciphers.py); run on the device by
bench/gpu/conformance.sh and bench/gpu/ct_any.sh.  A cell recorded unsupported for cuda in matrix.json must still be
refused; every default run here reads no table with a secret index (the bitsliced layout for a spec with tables,
64-bit words included)."""

from __future__ import annotations

import conformance as M
import numpy as np
import pytest
from paths import ROOT
from shipped import shipped_registry

from cipherspec import modes
from cipherspec.errors import UsageError
from cipherspec.registry import Registry
from driver.targets import make_cipher
from generator.ptx.build import schedule_for
from generator.ptx.placement import constant_time
from generator.ptx.source import prepared

pytestmark = pytest.mark.gpu  # skips without a GPU (tests/support/tools.py: require_gpu)

EXAMPLES = sorted((ROOT / "examples" / "ciphers").glob("*.cs"))
REG = Registry(extra=M.spec_files() + EXAMPLES)
NAMES = [n for _, n in M.variants()] + [
    n for n in REG.names() if n not in shipped_registry().names() and n not in M.registry().names()
]
MATRIX = M.load_matrix()


@pytest.mark.parametrize("name", NAMES)
def test_on_the_gpu(name):
    expected = MATRIX.get(name, {}).get("cuda", "ok")
    try:
        c = make_cipher(REG, name, None, "cuda")
    except UsageError as e:
        assert expected != "ok", f"{name}: {e}"
        pytest.xfail(str(e))
    sched = schedule_for(REG.module(name), None)
    assert constant_time(prepared(REG.module(name), sched), sched), sched
    ref = make_cipher(REG, name, None, "ref")
    rng = np.random.default_rng(11)
    key = rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes()
    iv = rng.integers(0, 256, ref.block_bytes, dtype=np.uint8).tobytes()
    blocks = rng.integers(0, 256, (1000, ref.block_bytes), dtype=np.uint8)
    rk, rrk = c.expand_key(key), ref.expand_key(key)
    ct = ref.encrypt_blocks(rrk, blocks)
    assert (np.asarray(c.encrypt_blocks(rk, blocks)) == ct).all()
    # a conformance spec's decrypt need not invert its encrypt: compare it with the interpreter's decrypt
    assert (np.asarray(c.decrypt_blocks(rk, ct)) == ref.decrypt_blocks(rrk, ct)).all()
    data = blocks.tobytes()[:-3]
    assert modes.run_mode(c, rk, "ctr", "encrypt", data, iv) == modes.ctr(ref, rrk, iv, data)[0]
