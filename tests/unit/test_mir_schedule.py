"""The shared list scheduler (generator/mir/schedule.py) and its machine-code use (generator/mir/reorder.py):
orders are topological, the pressure regime needs fewer registers than the spec's order, the latency
regime puts the long chain first while registers are free and drains them near the limit; reordering
machine code keeps the instructions and the order of loads and stores.  NEON key folding
(generator/neon/keyfold.py) finds the uniform leaf of a lookup's XOR index.  Cheap: no assembler, no QEMU."""

from __future__ import annotations

from collections import Counter

from cipherspec.ir import Function, Op
from generator.mir import reorder, schedule
from generator.mir.mir import Instr, Text, Vec, VRegFactory
from generator.neon import keyfold


def _topological(out: list[int], nodes: list[int], operands: dict) -> bool:
    pos = {n: i for i, n in enumerate(out)}
    return sorted(out) == sorted(nodes) and all(pos[x] < pos[n] for n in nodes for x in operands[n] if x in pos)


def _bitsliced_layer() -> tuple[list[int], dict, set[int], set[int]]:
    """Eight inputs x_k (values 0..7, read from memory like a reloaded key) each XORed with a key k_k, ANDed in
    pairs and the pairs XORed into one output, listed layer by layer as a spec writes it."""
    xs, ks = list(range(8)), list(range(100, 108))
    t = list(range(8, 16))  # t_k = x_k ^ k_k
    a = list(range(16, 20))  # a_j = t_2j & t_2j+1
    s = list(range(20, 23))  # s = a0 ^ a1 ^ a2 ^ a3 as a chain
    operands: dict[int, tuple[int, ...]] = {t[k]: (xs[k], ks[k]) for k in range(8)}
    operands |= {a[j]: (t[2 * j], t[2 * j + 1]) for j in range(4)}
    operands |= {s[0]: (a[0], a[1]), s[1]: (s[0], a[2]), s[2]: (s[1], a[3])}
    nodes = t + a + s
    return nodes, operands, set(nodes), {s[-1]}


def test_pressure_order_is_topological_and_needs_fewer_registers():
    nodes, operands, regs, keep = _bitsliced_layer()
    out = schedule.order(nodes, operands, regs, keep)
    assert _topological(out, nodes, operands)
    naive, better = schedule.live_peak(nodes, operands, regs, keep), schedule.live_peak(out, operands, regs, keep)
    assert better < naive, (better, naive)
    assert naive == 9 and better == 4  # counted as the result is written: eight t_k + a0; pair by pair t, t, a, s


def test_pressure_order_matches_a_hand_count_on_a_chain():
    # a_k -> b_k -> s_k = s_(k-1) ^ b_k; the original order makes every a, then every b, then the sums
    a, b, s = list(range(8)), list(range(8, 16)), list(range(16, 24))
    operands = {k: () for k in a} | {b[k]: (a[k],) for k in range(8)}
    operands |= {s[0]: (b[0],)} | {s[k]: (s[k - 1], b[k]) for k in range(1, 8)}
    nodes = a + b + s
    out = schedule.order(nodes, operands, set(nodes), {s[-1]})
    assert _topological(out, nodes, operands)
    assert (
        schedule.live_peak(out, operands, set(nodes), {s[-1]})
        <= 3
        < 8
        <= schedule.live_peak(nodes, operands, set(nodes), {s[-1]})
    )


def test_latency_regime_starts_the_long_chain_and_respects_the_limit():
    # a long chain c0 -> c1 -> ... -> c5 listed after four independent short ops; heights favour the chain
    short = [0, 1, 2, 3]
    chain = [4, 5, 6, 7, 8, 9]
    operands = {n: () for n in short} | {chain[0]: ()} | {chain[k]: (chain[k - 1],) for k in range(1, 6)}
    nodes = short + chain
    height = {n: 1 for n in short} | {c: 6 - k for k, c in enumerate(chain)}
    out = schedule.order(nodes, operands, set(nodes), set(nodes), limit=32, height=height)
    assert _topological(out, nodes, operands) and out[0] == chain[0]
    # with no room the pressure rule decides: spec order among equals (no heights consulted)
    tight = schedule.order(nodes, operands, set(nodes), set(nodes), limit=0, height=height)
    assert _topological(tight, nodes, operands) and tight[0] == short[0]


def test_order_edges_keep_side_effects_in_sequence():
    operands = {0: (), 1: (), 2: ()}
    out = schedule.order([0, 1, 2], operands, set(), set(), limit=32, height={2: 9}, after={1: (0,), 2: (1,)})
    assert out == [0, 1, 2]


def test_reorder_keeps_instructions_and_the_order_of_memory_ops():
    vf = VRegFactory()
    x = [vf.new(f"x{k}") for k in range(4)]
    code = [Instr("ld4", (Text("{...}"), Text("[x1]"), Text("#64")), defs=tuple(x), extra={"group_defs": tuple(x)})]
    prev = x[0]
    for k in range(1, 4):  # a chain of EORs, then independent MVNs listed before it would matter
        d = vf.new()
        code.append(Instr("eor", (Vec(d, "16b"), Vec(prev, "16b"), Vec(x[k], "16b")), (d,), (prev, x[k])))
        prev = d
    code.append(Instr("st1", (Text("{...}"), Text("[x2]")), uses=(prev,), kind="store"))
    code.append(Instr("subs x3, x3, #1", (), kind="raw"))
    out = reorder.run(code, 28, lambda ins: 2)
    assert sorted(map(id, out)) == sorted(map(id, code))
    mem = [ins.mnemonic for ins in out if ins.kind != "op" or ins.mnemonic.startswith(("ld", "st"))]
    assert mem == ["ld4", "st1", "subs x3, x3, #1"]
    seen: set = set()
    for ins in out:  # every read after its definition
        assert all(v in seen for v in ins.uses)
        seen.update(ins.defs)


def test_keyfold_finds_the_uniform_leaf_of_a_lookup_index():
    # %3 = x ^ k;  %4 = %3 ^ y;  %5 = lut %4  -> leaves [x, y] and key k; %3 read twice: not expanded
    ops = [
        Op("input", 8, (), ("X[0]",)),
        Op("input", 8, (), ("X[1]",)),
        Op("input", 8, (), ("rk[0]",)),
        Op("xor", 8, (0, 2)),
        Op("xor", 8, (3, 1)),
        Op("lut", 8, (4,), ("S",)),
    ]
    fn = Function("encrypt", ops, [("X[0]", 5)])
    uses = Counter(a for op in ops for a in op.args) + Counter([5])
    plan = keyfold.plan(fn, uses, 8, {2}, lambda t: True)
    assert plan == {4: ([0, 1], 2)}
    assert keyfold.plan(fn, uses, 8, {2}, lambda t: False) == {}  # a table with an affine map in front
    shared = Function("encrypt", ops + [Op("xor", 8, (3, 0))], [("X[0]", 5), ("X[1]", 6)])
    uses2 = Counter(a for op in shared.ops for a in op.args) + Counter([5, 6])
    assert keyfold.plan(shared, uses2, 8, {2}, lambda t: True) == {}  # x ^ k read twice: no uniform leaf left
