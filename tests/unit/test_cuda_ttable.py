"""32-bit T-tables (cipherspec/passes/ttable.py, the CUDA ``tt`` schedule): the rewrite, and its cores on
the CPU emulator against the reference cipher."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cipherspec.blockcipher import RefCipher, bytes_to_words
from cipherspec.errors import UsageError
from cipherspec.gf import gf_mul
from cipherspec.passes import ttable
from generator.ptx import asmblock, cores, emulate
from generator.ptx.build import schedule_for
from generator.ptx.ctr import state_names
from generator.ptx.placement import rk_index
from generator.ptx.source import prepared


def test_aes_columns_become_one_table_and_rotations(registry):
    m = ttable.run_module(registry.module("aes128"))
    wide = {n: t for n, t in m.tables.items() if t.out_width == 32}
    assert sorted(wide) == ["S_t0"]  # one stored table (encrypt; decrypt is left as it is)
    S = m.tables["S"].values
    # T0[x] = (2·S[x], S[x], S[x], 3·S[x]) from byte 0 up: MixColumns' first column
    assert all(
        wide["S_t0"].values[x] == gf_mul(S[x], 2, 0x11B) | S[x] << 8 | S[x] << 16 | gf_mul(S[x], 3, 0x11B) << 24
        for x in range(256)
    )
    enc = m.functions["encrypt"].op_counts()
    assert (
        enc["lut"] == 160 and enc["rotl"] == 108 and "gmul" not in enc
    )  # 9 x 16 T-lookups + 16 S; 3 rotations a column


def test_ciphers_without_a_column_map_are_refused(registry):
    assert ttable.run_module(registry.module("aria128")).tables == registry.module("aria128").tables
    with pytest.raises(UsageError, match="no byte lookup of aria128 feeds"):
        schedule_for(registry.module("aria128"), "tt")


@pytest.mark.parametrize("fname", ["encrypt", "decrypt"])
def test_tt_cores_on_the_emulator(registry, fname):
    base = registry.module("aes128")
    sched = schedule_for(base, "tt_tab-shared32")
    m = prepared(base, sched)
    ref = RefCipher(base)
    rng = np.random.default_rng(1)
    key = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    rkd = RefCipher(m).expand_key(key)  # the key schedule of the tt module: rk, then the derived words D
    idx = rk_index(m)
    rk = np.zeros(len(idx), np.uint64)
    for n, i in idx.items():
        rk[i] = int(np.asarray(rkd[n]).reshape(-1)[0])
    blocks = rng.integers(0, 256, (64, 16), dtype=np.uint8)
    x = [w.astype(np.uint64) for w in bytes_to_words(m.block, blocks)]
    text = cores.core("e", m.functions[fname], m, cores.access(m, sched, "RK"), "ptx", state_names(m, fname))
    got = np.stack(
        [
            np.asarray(w, np.uint64)
            for w in emulate.run_core(text, x, rk, {t.name: np.array(t.values) for t in m.tables.values()}, copies=32)
        ],
        1,
    )
    want = (ref.encrypt_blocks if fname == "encrypt" else ref.decrypt_blocks)(ref.expand_key(key), blocks)
    assert (got == np.stack(bytes_to_words(m.block, want), 1)).all()
    if fname == "encrypt":  # lookup indices are bytes of column words: one PRMT each, no shift + mask
        one = asmblock.expand(text)  # one statement an instruction
        assert len(re.findall(r"prmt\.b32 %0, %1, 0, 0x444[0-3]", one)) >= 144


def test_round_key_words_of_the_columns_move_to_the_key_schedule(registry):
    """key_hoist: a column's four round-key bytes, packed into one word, are made once per key (set_key)."""
    base = registry.module("aes128")
    m = prepared(base, schedule_for(base, "tt"))
    assert [(ka.name, ka.width, ka.shape) for ka in m.key_arrays] == [("rk", 8, (11, 16)), ("D", 32, (36,))]
    reads = {op.imm[0] for op in m.functions["encrypt"].ops if op.code == "input"}
    assert not any(n.startswith(("rk[1]", "rk[5]", "rk[9]")) for n in reads)  # the middle rounds read only D
    ref = RefCipher(m)
    rk = ref.expand_key(bytes(range(16)))
    want = RefCipher(base).encrypt_blocks(RefCipher(base).expand_key(bytes(range(16))), np.zeros((2, 16), np.uint8))
    assert (ref.encrypt_blocks(rk, np.zeros((2, 16), np.uint8)) == want).all()
