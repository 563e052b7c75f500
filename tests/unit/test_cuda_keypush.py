"""Round keys moved in front of the linear layer after the S-boxes (generator/ptx/keypush.py), the XOR
networks for three-input gates (generator/ptx/xor3.py) and the GPU's S-box circuit choice: the rewritten
function computes the same values, the layer reads no key plane, and the instruction counts the AES
default's SASS figures rest on (bench/results/gpu-aes-roof.md) do not creep back up."""

from __future__ import annotations

import random

import numpy as np

from cipherspec.interp import Interpreter
from cipherspec.ir import Function, Op
from generator.common.bitslice import gmul_rows, two_sided
from generator.ptx import keypush, lop3map, xor3
from generator.ptx.bitsliced import IRPlanes
from generator.ptx.irbuild import Builder


def _layer() -> tuple[Function, set[int], set[int]]:
    """Two S-box outputs (NOTs of the inputs), a 2x2 invertible layer with a key XOR on each output, each
    output read by an AND (the next non-linear step)."""
    ops = [
        Op("input", 32, (), ("a",)),
        Op("input", 32, (), ("b",)),
        Op("input", 32, (), ("k0",)),
        Op("input", 32, (), ("k1",)),
        Op("not", 32, (0,)),  # 4: x0
        Op("not", 32, (1,)),  # 5: x1
        Op("xor", 32, (4, 5)),  # 6: x0 ^ x1
        Op("xor", 32, (6, 2)),  # 7: y0 = x0 ^ x1 ^ k0
        Op("xor", 32, (5, 3)),  # 8: y1 = x1 ^ k1
        Op("and", 32, (7, 8)),  # 9
        Op("and", 32, (7, 0)),  # 10
    ]
    return Function("f", ops, [("p", 9), ("q", 10), ("r", 8)]), {0, 1}, {4, 5}


def _run(fn: Function, rng: np.random.Generator) -> list[np.ndarray]:
    vals = {n: rng.integers(0, 2**32, 64, dtype=np.uint64) for n in ("a", "b", "k0", "k1")}
    out = Interpreter({}).run(fn, vals)
    return [out[n] for n, _ in fn.outputs]


def test_key_moves_in_front_of_the_layer_and_the_values_stay():
    fn, sin, sout = _layer()
    new = keypush.run(fn, sin, sout, {"k0", "k1"})
    assert new is not fn
    for seed in range(3):
        want, got = _run(fn, np.random.default_rng(seed)), _run(new, np.random.default_rng(seed))
        assert all((w == g).all() for w, g in zip(want, got))
    keys = {v for v, op in enumerate(new.ops) if op.code == "input" and op.imm[0] in ("k0", "k1")}
    key_only = set(keys)
    for v, op in enumerate(new.ops):
        if op.code == "xor" and set(op.args) <= key_only:
            key_only.add(v)
    # every XOR that reads a key value (or k0 ^ k1) reads an S-box output (a NOT) as its other operand
    for op in new.ops:
        if op.code == "xor" and set(op.args) & key_only and not set(op.args) <= key_only:
            other = [a for a in op.args if a not in key_only]
            assert [new.ops[a].code for a in other] == ["not"]


def test_a_key_already_on_the_sbox_outputs_is_left_alone():
    ops = [
        Op("input", 32, (), ("a",)),
        Op("input", 32, (), ("k",)),
        Op("not", 32, (0,)),  # x
        Op("xor", 32, (2, 1)),  # x ^ k
        Op("and", 32, (3, 0)),
    ]
    fn = Function("f", ops, [("y", 4)])
    assert keypush.run(fn, {0}, {2}, {"k"}) is fn


def _mixcolumn_rows() -> list[set]:
    m2, m3 = gmul_rows(2, 0x11B), gmul_rows(3, 0x11B)
    rows = []
    for j in range(4):
        for i in range(8):
            r: set = set()
            for mat, byte in ((m2, j), (m3, (j + 1) % 4)):
                r ^= {("v", 8 * byte + t) for t in range(8) if mat[i][0] >> t & 1}
            r ^= {("v", 8 * ((j + 2) % 4) + i), ("v", 8 * ((j + 3) % 4) + i)}
            rows.append(r)
    return rows


def _expand(e, terms) -> set:
    if e[0] == "v":
        return {e}
    acc: set = set()
    for p in terms[e[1]]:
        acc ^= _expand(p, terms)
    return acc


def test_xor3_network_computes_its_rows_and_beats_pairs_on_mixcolumns():
    rng = random.Random(3)
    cases = [_mixcolumn_rows()] + [
        [{("v", j) for j in range(12) if rng.random() < 0.5} | {("v", 0)} for _ in range(10)] for _ in range(5)
    ]
    for rows in cases:
        terms, sets = xor3.network(rows)
        assert all(len(t) in (2, 3) for t in terms)
        for want, got in zip(rows, sets):
            acc: set = set()
            for e in got:
                acc ^= _expand(e, terms)
            assert acc == want
    terms, sets = xor3.network(_mixcolumn_rows())
    assert xor3.cost(terms, sets) <= 56  # LOP3s a column (one greedy run: 58)


def test_gpu_lowers_the_aes_sbox_through_the_113_gate_circuit():
    from shipped import shipped_registry

    table = shipped_registry().module("aes128").tables["S"]
    b = Builder("s")
    planes = IRPlanes(b)
    x = [planes.name(b.input(f"x{i}")) for i in range(8)]
    out = planes.sbox(x, table)
    fn = b.function([(f"y{i}", planes.id(o)) for i, o in enumerate(out)])
    assert len(lop3map.cover(fn)) <= 73  # the depth-16 circuit: 88
    assert len(planes.sbox_outputs) == 8 and len(planes.sbox_inputs) == 8
    assert two_sided(tuple(table.values)) is not None
    vals = {f"x{i}": np.array([(v >> i & 1) * 0xFFFFFFFF for v in range(256)], np.uint64) for i in range(8)}
    got = Interpreter({}).run(fn, vals)
    y = sum((got[f"y{i}"] & 1).astype(np.int64) << i for i in range(8))
    assert list(y) == list(table.values)
