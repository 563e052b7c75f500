"""The packed layout's two analyses: linear expansion (XOR/NOT as affine sums of atoms) and the
permutation cover that rebuilds XOR sums from registers (cheap REV/EXT first, then TBL)."""

from __future__ import annotations

import random

from shipped import shipped_registry

from generator.mir.mir import VRegFactory
from generator.neon.layout import key_names
from generator.neon.linear import Lin, expand
from generator.neon.permute import cover
from generator.neon.prepare import prepare


def _apply(terms, contents):
    """XOR of the terms, lane by lane, as sets of atoms (symmetric difference).

    A TBL term is evaluated as the machine does it: TBL over sources 0-3 (an index out of range gives
    zero), then TBX over each further 4 sources (an index out of range keeps the lane)."""
    from generator.neon.permute import PATTERNS

    f = dict(PATTERNS)
    out = [set() for _ in range(16)]
    for t in terms:
        if t.kind == "tbl":
            for lane in range(16):
                got = None
                for c in range(0, len(t.index), 16):
                    regs = t.sources[c // 16 * 4 : c // 16 * 4 + 4]
                    i = t.index[c + lane]
                    if i < 16 * len(regs):
                        got = contents[regs[i // 16]][i % 16]
                if got is not None:
                    out[lane] ^= {got}
        else:
            for lane in range(16):
                out[lane] ^= {contents[t.sources[0]][f[t.kind](lane)]}
    return out


def _check_tbl_encoding(t):
    """One register list of up to 4 sources per 16 index bytes; each lane filled by at most one list."""
    assert len(set(t.sources)) == len(t.sources)
    assert len(t.index) == 16 * -(-len(t.sources) // 4)
    for lane in range(16):
        served = [c for c in range(0, len(t.index), 16) if t.index[c + lane] != 0xFF]
        assert len(served) <= 1, f"lane {lane} written by more than one TBL/TBX"
        for c in served:
            assert t.index[c + lane] < 16 * len(t.sources[c // 16 * 4 : c // 16 * 4 + 4])


def test_cover_finds_permutations_and_is_exact():
    vf = VRegFactory()
    a, b = vf.new("a"), vf.new("b")
    contents = {a: [("a", j) for j in range(16)], b: [("b", j) for j in range(16)]}
    need = [{("a", lane ^ 1), ("b", (lane + 3) & 15)} for lane in range(16)]
    terms = cover(need, contents)
    assert sorted(t.kind for t in terms) == ["ext3", "rev16.16b"]
    assert _apply(terms, contents) == need


def test_cover_random_sums_with_tbl_over_many_registers():
    rng = random.Random(5)
    vf = VRegFactory()
    regs = [vf.new() for _ in range(6)]
    contents = {r: [(k, j) for j in range(16)] for k, r in enumerate(regs)}
    atoms = [a for c in contents.values() for a in c]
    need = [set(rng.sample(atoms, rng.randint(0, 5))) for _ in range(16)]
    terms = cover(need, contents)
    assert _apply(terms, contents) == need
    for t in terms:
        if t.kind == "tbl":
            _check_tbl_encoding(t)
    assert any(len(t.sources) > 4 for t in terms), "no TBL+TBX term: the case no longer exercises >4 sources"


def test_cover_one_gather_from_six_registers_is_one_tbl_tbx():
    """Lane l takes byte 5l mod 16 of register l mod 6: no REV/EXT fits, one TBL (4 sources) + TBX (2)."""
    vf = VRegFactory()
    regs = [vf.new() for _ in range(6)]
    contents = {r: [(k, j) for j in range(16)] for k, r in enumerate(regs)}
    need = [{(lane % 6, 5 * lane % 16)} for lane in range(16)]
    terms = cover(need, contents)
    assert [(t.kind, len(t.sources), len(t.index)) for t in terms] == [("tbl", 6, 32)]
    _check_tbl_encoding(terms[0])
    assert _apply(terms, contents) == need


def test_linear_expansion_of_aria_diffusion():
    reg = shipped_registry()
    m = reg.module("aria128")
    fn = prepare(m).functions["encrypt"]
    ex = expand(fn, set(key_names(m, fn)))
    first = [i for i in ex.nodes if ex.depth[i] == 1]
    second = [i for i in ex.nodes if ex.depth[i] == 2]
    assert len(first) == len(second) == 16
    pos = {i: k for k, i in enumerate(first)}
    y0 = ex.form[second[0]][1][0][1]
    assert sorted(pos[a] for a in y0.atoms if isinstance(a, int)) == [3, 4, 6, 8, 9, 13, 14]  # RFC 5794 y0
    assert [a for a in y0.atoms if not isinstance(a, int)] == [("k", "ek[1][0]")]
    assert Lin(frozenset({1}), 3) ^ Lin(frozenset({1, 2}), 1) == Lin(frozenset({2}), 2)
