"""generator/common/memo.py: results remembered by the identity of the arguments (the CUDA build's prepared
modules and bitsliced lowerings: schedule choice, estimates and source share one run)."""

from __future__ import annotations

from generator.common.memo import by_identity
from generator.ptx.build import schedule_for
from generator.ptx.source import CUDA_PASSES, passes_for, prepared


def test_same_arguments_same_result_without_a_second_run():
    runs = []

    @by_identity(2)
    def f(x):
        runs.append(x)
        return [x]

    a, b, c = [1], [1], [2]  # a and b equal, not the same object
    assert f(a) is f(a) and runs == [a]
    assert f(b) == f(a) and f(b) is not f(a) and len(runs) == 2  # identity, not equality
    f(c)  # a third argument: the least recently used one (b: a was asked for last) is forgotten
    f(a)
    assert len(runs) == 3
    f(b)
    assert len(runs) == 4


def test_prepared_is_shared_per_module_and_layout(registry):
    m = registry.module("lea128")
    sched = schedule_for(m, None)
    assert prepared(m) is prepared(m)
    assert prepared(m, sched) is prepared(m, sched)
    assert (prepared(m) is prepared(m, sched)) == (passes_for(sched) is CUDA_PASSES)
    assert prepared(registry.module("lea192")) is not prepared(m)


def test_a_build_switch_in_the_environment_is_part_of_the_key(monkeypatch):
    """The device A/B's switches (CIPHERSPEC_PTX_*) change a lowering for the same module: a process that flips
    one must not get the result remembered under the other setting."""
    from generator.ptx import abswitch

    runs = []

    @by_identity(4, extra=abswitch.state)
    def f(x):
        runs.append(abswitch.former_bitsliced())
        return object()

    a = [1]
    monkeypatch.delenv("CIPHERSPEC_PTX_BS", raising=False)
    first = f(a)
    assert f(a) is first and runs == [False]
    monkeypatch.setenv("CIPHERSPEC_PTX_BS", "v1")
    assert f(a) is not first and runs == [False, True]
    monkeypatch.delenv("CIPHERSPEC_PTX_BS")
    assert f(a) is first  # back to the first setting: its result is still remembered


def test_by_shape_shares_a_result_between_functions_of_one_dataflow():
    """Origins, the function's name and its outputs' names do not matter; an op's immediate (an input's name is
    one), an argument or a keyword does."""
    from cipherspec.ir import Function, Op, Origin
    from generator.common.memo import by_shape

    runs = []

    @by_shape(4)
    def count(fn, k=0):
        runs.append(fn)
        return len(fn.ops) + k

    def fn(name, out, imm=3, origin=None):
        ops = [Op("input", 32, imm=(name,), origin=origin), Op("rotl", 32, (0,), (imm,), origin)]
        return Function("f", ops, [(out, 1)])

    a = fn("X[0]", "y")
    assert count(a) == 2 and count(fn("X[0]", "z", origin=Origin("a.cs", 1, 2))) == 2 and len(runs) == 1
    count(fn("X[0]", "y", imm=5))  # another rotation: another shape
    count(fn("K[7]", "y"))  # another input
    count(a, k=1)
    assert len(runs) == 4
