"""Round keys four per LD1 through a walking pointer (generator/neon/keyload.py): taken where the kernel
reads its key table in order and that costs fewer instructions, never otherwise."""

from __future__ import annotations

import re

import pytest
from shipped import shipped_registry

from generator.neon import keyload
from generator.neon.kernel import build_kernels
from generator.neon.schedules import parse

LD1_KEYS = re.compile(r"^\s*ld1 \{v(\d+)\.16b-v(\d+)\.16b\}, \[x\d+\], #64\s+// round keys")


@pytest.fixture(scope="module")
def lea():
    m = shipped_registry().module("lea128")
    return m, parse("lea128_neon_b4_il4", "lea128", None)


def _by_mode(built):
    return {k.mode: k for k in built.kernels}


def test_encryption_walks_the_key_table_in_groups(lea, monkeypatch):
    m, s = lea
    grouped = _by_mode(build_kernels(m, s))
    monkeypatch.setattr(keyload, "run", lambda *a: None)
    plain = _by_mode(build_kernels(m, s))
    for mode in ("ecb_encrypt", "ctr"):
        loads = [g.groups() for line in grouped[mode].body if (g := LD1_KEYS.match(line))]
        assert loads and all(int(b) == int(a) + 3 for a, b in loads)  # four consecutive registers each
        assert len(grouped[mode].body) < len(plain[mode].body)
        assert not any(LD1_KEYS.match(line) for line in plain[mode].body)
    # decryption reads the table backwards: the walk does not apply, the kernel is the one without it
    assert grouped["ecb_decrypt"].body == plain["ecb_decrypt"].body


def test_refuses_an_out_of_order_walk():
    from generator.mir.mir import Instr, Vec, VRegFactory

    vf = VRegFactory()
    keys = {vf.new(f"k{i}"): i for i in range(8)}
    ks = list(keys)
    acc = vf.new()
    code = [Instr("eor", (Vec(acc, "16b"), Vec(k, "16b"), Vec(k, "16b")), (acc,), (k,)) for k in ks[4:] + ks[:4]]
    assert keyload.run(code, keys, "x10") is None  # group 1 is read before group 0
    code = [Instr("eor", (Vec(acc, "16b"), Vec(k, "16b"), Vec(k, "16b")), (acc,), (k,)) for k in ks]
    out = keyload.run(code, keys, "x10")
    assert out is not None and [i.mnemonic for i in out if i.mnemonic.startswith(("ld1", "mov"))] == [
        "mov x10, x0",
        "ld1",
        "ld1",
    ]
