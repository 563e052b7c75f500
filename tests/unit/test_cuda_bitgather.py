"""Bit permutations on the one-block-per-thread CUDA layout as delta-swap networks (generator/ptx/bitgather.py):
the pass keeps every function's results (interpreter, random inputs), turns PRESENT's per-bit pLayer into a few
swaps on packed words, leaves a permutation that is not BPC as it was, and its network pieces (BPC solving,
swaps, the free relabelling of sources and outputs) do what they say.  The PTX of the rewritten cores runs on the
CPU emulator in test_conformance_matrix.py (bitperm_u8/u16/u32, cuda) and test_example_ciphers.py (PRESENT)."""

from __future__ import annotations

import random
from functools import cache

import conformance as M
import numpy as np
import pytest
from paths import ROOT

from cipherspec.interp import Interpreter
from cipherspec.pipeline import run_passes
from cipherspec.registry import Registry
from generator.ptx import bitgather
from generator.ptx.source import CUDA_PASSES

REG = Registry(extra=M.spec_files() + [ROOT / "examples" / "ciphers" / "present.cs"])
BEFORE = tuple(p for p in CUDA_PASSES if p.name != "bitgather")


@cache
def _pair(name: str):
    m = run_passes(REG.module(name), BEFORE)
    return m, {f: bitgather.run(m.functions[f], m.tables) for f in ("encrypt", "decrypt")}


def _same(m, fname, new) -> bool:
    old = m.functions[fname]
    rng = np.random.default_rng(7)
    ins = {n: rng.integers(0, 2**w, 256, dtype=np.uint64) for n, w, _ in old.inputs()}
    it = Interpreter(m.tables)
    a, b = it.run(old, ins), it.run(new, ins)
    return all((np.asarray(a[k]) == np.asarray(b[k])).all() for k in a)


@pytest.mark.parametrize("name", ["present80", "bitperm_u8", "bitperm_u32"])
def test_results_unchanged(name):
    m, new = _pair(name)
    for f, fn in new.items():
        assert _same(m, f, fn), f


def test_present_player_becomes_a_network():
    """PRESENT's pLayer (P(i) = 16 i mod 63: the index bits rotated) was rotl/and/or per bit of eight bytes; after
    the pass no rotl is left, and each direction has at most 2/3 of the ops."""
    m, new = _pair("present80")
    for f, fn in new.items():
        old = m.functions[f]
        assert sum(op.code == "rotl" for op in old.ops) > 1000
        assert sum(op.code == "rotl" for op in fn.ops) == 0
        assert len(fn.ops) < 2 * len(old.ops) / 3, (f, len(old.ops), len(fn.ops))


def test_a_permutation_that_is_not_bpc_stays():
    """bitlinear_perm's P(i) = 5 i + 3 mod 64 permutes positions, not index bits: no BPC network (a Benes
    network would take it; not built), so the function is returned as it was."""
    m, new = _pair("bitlinear_perm")
    assert new["encrypt"] is m.functions["encrypt"]


def _apply(x: int, net: list[tuple[int, int]]) -> int:
    for d, mk in net:
        t = ((x >> d) ^ x) & mk
        x ^= t ^ (t << d)
    return x


@pytest.mark.parametrize("n", [5, 6])
def test_swaps_realise_a_random_bpc_permutation(n):
    rnd = random.Random(n)
    for _ in range(20):
        sigma = tuple(rnd.sample(range(n), n))
        c = rnd.randrange(2**n)
        pairs = [(p, bitgather._image(p, sigma) ^ c) for p in range(2**n)]
        assert bitgather.bpc(pairs, n) == (sigma, c)
        net = bitgather.swaps(sigma, c, n)
        assert len(net) == bitgather._cost(sigma, c)
        for p, q in pairs:
            assert _apply(1 << p, net) == 1 << q


def test_not_bpc_is_refused():
    assert bitgather.bpc([(p, (5 * p + 3) % 64) for p in range(64)], 6) is None


def test_relabelling_absorbs_the_span_order():
    """Eight 4-bit sources -> four bytes with index bits p0->q3, p1->q4, p2->q0, p3->q1, p4->q2 and three bits
    complemented (PRESENT's half pLayer as the IR orders it): 7 swaps as placed, 2 once the sources' and the
    bytes' order are chosen."""
    sigma, c = (3, 4, 0, 1, 2), 0b11011
    moved = bitgather.relabel((sigma, c), 5, [4] * 8, [8] * 4)
    assert moved is not None
    (a_in, c_in), (a_out, c_out) = moved
    pairs = [
        (bitgather._affine(p, a_in, c_in), bitgather._affine(bitgather._image(p, sigma) ^ c, a_out, c_out))
        for p in range(32)
    ]
    found = bitgather.bpc(pairs, 5)
    assert found is not None and bitgather._cost(*found) == 2 < bitgather._cost(sigma, c)


def test_bpc_finds_the_first_permutation_in_order():
    """The search returns what trying all n! index-bit permutations in lexicographic order returns (the first
    that fits), also where few pairs leave several, and None where none fits."""
    from itertools import permutations

    def brute(pairs, n):
        p0, q0 = pairs[0]
        for sigma in permutations(range(n)):
            c = q0 ^ bitgather._image(p0, sigma)
            if all(bitgather._image(p, sigma) ^ c == q for p, q in pairs):
                return sigma, c
        return None

    rng = random.Random(5)
    nones = 0
    for _ in range(400):
        n = rng.choice([2, 3, 5, 6])
        sigma = list(range(n))
        rng.shuffle(sigma)
        c = rng.randrange(1 << n)
        pairs = [
            (p, bitgather._image(p, tuple(sigma)) ^ c)
            for p in rng.sample(range(1 << n), rng.randint(1, min(6, 1 << n)))
        ]
        if rng.random() < 0.3:  # one target moved: usually no BPC map any more
            i = rng.randrange(len(pairs))
            pairs[i] = (pairs[i][0], rng.randrange(1 << n))
        want = brute(pairs, n)
        nones += want is None
        assert bitgather.bpc(pairs, n) == want
    assert 0 < nones < 400
