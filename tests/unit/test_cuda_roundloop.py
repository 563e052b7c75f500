"""Round loops (generator/ptx/roundloop.py): the repeated rounds of a straight-line core found from the IR
and re-rolled, checked on the interpreter (post(body^count(pre(x))) == core(x)), on small hand-made
functions (a Feistel chain: values passed through a round and loop-invariant ones) and on the bitsliced
AES and ARIA cores; and the register-pressure order (generator/mir/schedule.py) is a topological order that lowers
the peak of live values."""

from __future__ import annotations

import numpy as np
import pytest

from cipherspec.interp import Interpreter
from cipherspec.ir import Origin
from generator.mir import schedule as pressure
from generator.ptx import roundloop
from generator.ptx.irbuild import Builder
from generator.ptx.lanes import lanes_for
from generator.ptx.placement import CudaSchedule
from generator.ptx.source import prepared


def _run_looped(loop, fn, inputs):
    it = Interpreter({})
    se = dict(it.run(loop.pre, inputs))
    for i in range(loop.count):
        keys = {f"K[{j}]": inputs[k] for j, k in enumerate(loop.keys[i])}
        se |= it.run(loop.body, {n: se[n] for n, _ in loop.body.outputs} | keys)
    return it.run(loop.post, se | inputs)


def _check(fn, loop, rng):
    inputs = {n: rng.integers(0, 2**32, 8, dtype=np.uint64).astype(np.uint32) for n, _, _ in fn.inputs()}
    want = Interpreter({}).run(fn, inputs)
    got = _run_looped(loop, fn, inputs)
    for n, _ in fn.outputs:
        assert (np.asarray(got[n]) == np.asarray(want[n])).all(), n


def _feistel(rounds: int):
    """L, R = R ^ ((L ^ K[r]) & c) ^ inv, L per round (r in origin.round); inv: computed once before."""
    b = Builder("enc")
    b.origin = Origin("t.cs", 1, 1, "enc")
    L, R, c = b.input("L"), b.input("R"), b.input("C")
    inv = b.op("not", c)
    for r in range(rounds):
        b.origin = Origin("t.cs", 2, 1, "enc", round=r)
        t = b.op("and", b.op("xor", L, b.input(f"K[{r}]")), c)
        L, R = b.op("xor", b.op("xor", R, t), inv), L
    b.origin = Origin("t.cs", 3, 1, "enc")
    return b.function([("L", b.op("xor", L, R)), ("R", R)])


def test_feistel_chain_with_pass_through_and_invariants():
    fn = _feistel(6)
    loop = roundloop.find(fn, lambda n: n.startswith("K["))
    assert loop is not None and loop.count >= 5 and loop.period == 1
    assert loop.keys[0] != loop.keys[1]  # each iteration reads its own key word
    _check(fn, loop, np.random.default_rng(1))


def _tail_in_next_round(rounds: int):
    """Round r makes a = x0 & x1, b = x0 | x1, c = x0 ^ x1; the XORs that finish its state carry round r+1's tag
    (as a round key XORed into a linear layer does): cut where the tags change, a, b and c are live."""
    b = Builder("enc")
    x0, x1 = b.input("X0"), b.input("X1")
    for r in range(rounds):
        b.origin = Origin("t.cs", 2, 1, "enc", round=r)
        a_, b_, c_ = b.op("and", x0, x1), b.op("or", x0, x1), b.op("xor", x0, x1)
        b.origin = Origin("t.cs", 3, 1, "enc", round=r + 1)
        x0 = b.op("xor", b.op("xor", a_, b_), b.input(f"K[{2 * r}]"))
        x1 = b.op("xor", b.op("xor", b_, c_), b.input(f"K[{2 * r + 1}]"))
    return b.function([("X0", x0), ("X1", x1)])


def test_cut_where_fewest_values_live():
    fn = _tail_in_next_round(6)
    loop = roundloop.find(fn, lambda n: n.startswith("K["))
    assert loop is not None and loop.count >= 4
    assert loop.carried == 2  # (3 at the tagged cut: a, b, c)
    _check(fn, loop, np.random.default_rng(2))


def _commuted_rounds(rounds: int):
    """x = ((x ^ K[r]) & c) | y, the key words made before round 0: the builder orders a commutative op's arguments
    by value id (as CSE's value numbering does), so round 0's key XOR reads (X, K[0]) and every later one (K[r], x)."""
    b = Builder("enc")
    x, c, y = b.input("X"), b.input("C"), b.input("Y")
    keys = [b.input(f"K[{r}]") for r in range(rounds)]  # (made after X, before every later state: ids ordered so)
    for r in range(rounds):
        b.origin = Origin("t.cs", 2, 1, "enc", round=r)
        x = b.op("or", y, b.op("and", b.op("xor", x, keys[r]), c))
    return b.function([("X", x)])


def test_commuted_arguments_reroll(monkeypatch):
    """Two rounds that differ only in the order of a commutative op's arguments are one loop of two iterations
    (tests/conformance/sbox_inv.cs's nearinv: 2 rounds, its bitsliced CTR core was 63 KB of straight-line SASS);
    compared as written they differ (what find tries first)."""
    fn = _commuted_rounds(2)
    loop = roundloop.find(fn, lambda n: n.startswith("K["))
    assert loop is not None and (loop.count, loop.period) == (2, 1)
    assert loop.keys == (("K[0]",), ("K[1]",))
    _check(fn, loop, np.random.default_rng(5))
    key = lambda n: n.startswith("K[")  # noqa: E731
    view = roundloop._View(fn, key)
    plain = [roundloop._group(view, seg) for seg in roundloop.segments(fn)]
    by_kind = [roundloop._group(view, seg, commute=True) for seg in roundloop.segments(fn)]
    assert plain[0].sig != plain[1].sig and by_kind[0].sig == by_kind[1].sig
    monkeypatch.setenv("CIPHERSPEC_PTX_ROUNDS", "v1")  # the A/B baseline (abswitch.former_rounds): as before
    assert roundloop.find(fn, lambda n: n.startswith("K[")) is None


def test_two_round_cell_reroll_in_ctr():
    """A 2-round conformance spec (tests/conformance/sbox4.cs, sbox4_u8): its bitsliced encryption and the CTR core
    after the host's segment planes are split off (bs_ctr.py) run as a loop of 2, one round an iteration, equal to
    the straight-line cores (before the commutative comparison, round 0's key XOR kept them straight-line)."""
    import conformance as M

    module = prepared(M.registry().module("sbox4_u8"), CudaSchedule(layout="bs"))
    lay = lanes_for(module, "bs", reroll=True, ctr_hoist=True)
    rng = np.random.default_rng(6)
    for fname in ("encrypt", "ctr_main"):
        loop = lay.loops[fname]
        assert loop is not None and (loop.count, loop.period) == (2, 1), fname
        _check(lay.cores[fname], loop, rng)


def test_ctr_loop_leaves_the_first_round_to_the_host(monkeypatch):
    """bitlinear_perm (tests/conformance/bitlinear.cs, 3 rounds) with rounds compared by kind first
    (roundloop.PLAIN_FIRST off; as written, its round 0 differs and its loop starts at round 1): its encryption
    re-rolls from round 0 (3 iterations), but the CTR core keeps round 0's segment-uniform work on the host
    (lanes._ctr_split) and loops from round 1."""
    import conformance as M

    monkeypatch.setattr(roundloop, "PLAIN_FIRST", False)
    module = prepared(M.registry().module("bitlinear_perm"), CudaSchedule(layout="bs"))
    lay = lanes_for(module, "bs", reroll=True, ctr_hoist=True)
    enc, main = lay.loops["encrypt"], lay.loops["ctr_main"]
    assert enc is not None and main is not None and (enc.count, main.count) == (3, 2)
    assert lay.ctr is not None and lay.ctr.hoisted_ops > 0
    assert 0 < main.pre.work() < enc.body.work()  # round 0 in main: only what reads the counter's varying planes
    _check(lay.cores["ctr_main"], main, np.random.default_rng(7))


def _alternating(rounds: int):
    """Even rounds x = (x ^ K[r]) & c, odd rounds x = (x ^ K[r]) | c (ARIA's odd and even rounds in miniature): no
    run of period 1 by the ops alone, one of period 2 (and of 4, which re-rolls less)."""
    b = Builder("enc")
    x, c = b.input("X"), b.input("C")
    for r in range(rounds):
        b.origin = Origin("t.cs", 2, 1, "enc", round=r)
        x = b.op("and" if r % 2 == 0 else "or", b.op("xor", x, b.input(f"K[{r}]")), c)
    return b.function([("X", x)])


@pytest.mark.parametrize("make", [_feistel, _tail_in_next_round, _alternating], ids=["feistel", "tail", "alternating"])
def test_most_saved_bounds_every_run_and_changes_no_loop(monkeypatch, make):
    """_most_saved (the ops a period's runs can re-roll at most, from the ops without their arguments) is at least
    what _runs yields, for every period and cut; so find, which skips a period whose bound is under the best run so
    far, finds the loop it found making every period's canonical forms."""
    fn = make(8)
    key = lambda n: n.startswith("K[")  # noqa: E731
    view, users = roundloop._View(fn, key), roundloop._users(fn)
    outputs = {v for _, v in fn.outputs}
    raw = roundloop.segments(fn)
    for segs in (raw, roundloop.narrowest(fn, raw)):
        for p in range(1, roundloop.MAX_PERIOD + 1):
            for commute in (False, True):
                saved = [s for s, _, _ in roundloop._runs(view, segs, p, users, outputs, commute)]
                assert all(s <= roundloop._most_saved(view, segs, p) for s in saved), (p, saved)
    pruned = roundloop.find(fn, key)
    monkeypatch.setattr(roundloop, "_most_saved", lambda view, segs, p: 1 << 62)  # (never skips a period)
    full = roundloop.find(fn, key)
    assert pruned is not None and full is not None
    assert (pruned.count, pruned.period, pruned.keys) == (full.count, full.period, full.keys)
    assert [str(f.ops) for f in (pruned.pre, pruned.body, pruned.post)] == [
        str(f.ops) for f in (full.pre, full.body, full.post)
    ]
    if make is _alternating:
        assert pruned.period == 2


def test_no_repeat_no_loop():
    b = Builder("f")
    x = b.input("x")
    for r in range(3):
        b.origin = Origin("t.cs", 2, 1, "f", round=r)
        x = b.op("rotl", x, imm=r + 1)  # a different op every round
    assert roundloop.find(b.function([("x", x)]), lambda n: False) is None


@pytest.mark.slow  # the two bitsliced lowerings: ~20 s of CPU
@pytest.mark.parametrize("name,period,count", [("aes128", 1, 9), ("aria128", 2, 5)])
def test_bitsliced_cores_reroll(registry, name, period, count):
    module = prepared(registry.module(name), CudaSchedule(layout="bs"))
    lay = lanes_for(module, "bs", reroll=True)
    rng = np.random.default_rng(3)
    for fname in ("encrypt", "decrypt"):
        loop = lay.loops[fname]
        assert loop is not None and (loop.period, loop.count) == (period, count), fname
        index = {n: k for k, (n, _) in enumerate(lay.derive.outputs)}
        assert loop.stride(index) is not None  # the kernel reads iteration i's key planes at one stride
        straight = sum(1 for op in lay.cores[fname].ops if op.code not in ("input", "const"))
        rolled = sum(1 for f in (loop.pre, loop.body, loop.post) for op in f.ops if op.code not in ("input", "const"))
        assert rolled * 3 < straight, (rolled, straight)  # what ptxas and nvcc now see
        assert loop.carried == 128  # the state's planes only (cut where the fewest are live)
        _check(lay.cores[fname], loop, rng)


def _peak(order, operands, keep):
    last = {}
    for i, n in enumerate(order):
        for v in operands[n]:
            last[v] = i
    live, peak = set(), 0
    for i, n in enumerate(order):
        live -= {v for v in operands[n] if last[v] == i and v not in keep}
        live.add(n)
        peak = max(peak, len(live))
    return peak


def test_pressure_order_is_topological_and_lowers_the_peak():
    # a_k -> b_k -> s_k = s_(k-1) ^ b_k; the original order makes every a, then every b, then the sums
    a, b, s = list(range(8)), list(range(8, 16)), list(range(16, 24))
    operands = {k: () for k in a} | {b[k]: (a[k],) for k in range(8)}
    operands |= {s[0]: (b[0],)} | {s[k]: (s[k - 1], b[k]) for k in range(1, 8)}
    nodes = a + b + s
    out = pressure.order(nodes, operands, set(nodes), {s[-1]})
    pos = {n: i for i, n in enumerate(out)}
    assert sorted(out) == nodes and all(pos[x] < pos[n] for n in nodes for x in operands[n])
    assert _peak(out, operands, {s[-1]}) <= 3 < 8 <= _peak(nodes, operands, {s[-1]})


def test_loop_turned_by_the_key_addition(monkeypatch):
    """CIPHERSPEC_PTX_ROTATE=1 (an A/B switch, off by default): PRESENT-80's bitsliced encryption opens each round
    with its key XOR, so the loop runs round i's S-boxes and pLayer with round i+1's key XOR (one iteration fewer;
    pre adds round 0's key, post runs the last S-box layer), equal to the straight-line core; its decryption ends
    its rounds with the key and keeps its loop as it was."""
    from paths import ROOT

    from cipherspec.registry import Registry

    reg = Registry(extra=[ROOT / "examples" / "ciphers" / "present.cs"])
    module = prepared(reg.module("present80"), CudaSchedule(layout="bs"))
    plain = lanes_for(module, "bs", reroll=True).loops
    monkeypatch.setenv("CIPHERSPEC_PTX_ROTATE", "1")
    lay = lanes_for(module, "bs", reroll=True)
    index = {n: k for k, (n, _) in enumerate(lay.derive.outputs)}
    enc, dec = lay.loops["encrypt"], lay.loops["decrypt"]
    assert enc is not None and plain["encrypt"] is not None and enc.count == plain["encrypt"].count - 1
    assert enc.stride(index) is not None
    assert dec is not None and plain["decrypt"] is not None and dec.count == plain["decrypt"].count
    _check(lay.cores["encrypt"], enc, np.random.default_rng(4))
