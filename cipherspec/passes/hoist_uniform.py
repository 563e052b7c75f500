"""Uniform-value hoisting: split a function into a once-per-launch part and a per-block part.

A value is *uniform* when every block of a launch computes the same value: constants, the inputs
named uniform (round keys; in CTR, the counter words that cannot change within the launch) and any
op whose arguments are all uniform.  ``split`` moves every uniform op (but inputs and constants)
into ``pre``; the uniform values that the per-block part still reads (the *frontier*) become
``pre``'s outputs ``H[0]``, ``H[1]``, ... and inputs of ``main`` of the same names.

    before (uniform: X[0], rk[0]; varying: X[1])
        %0 = input X[0]   %1 = input X[1]   %2 = input rk[0]
        %3 = xor %0, %2   %4 = rotl %3, 9   %5 = add %4, %1     out X[0] = %5
    after
        pre:  %0 = input X[0]   %1 = input rk[0]   %2 = xor %0, %1   %3 = rotl %2, 9   out H[0] = %3
        main: %0 = input X[1]   %1 = input H[0]    %2 = add %1, %0   out X[0] = %2

Contract: ``main(inputs + pre(inputs)) == fn(inputs)`` for every input assignment, a plain
dataflow identity.  Using it in CTR is valid exactly when the uniform inputs hold the same value for
every block of one launch.  The CUDA host code guarantees that by cutting each CTR call into
segments in which the counter's low 32 bits do not wrap: within a segment the counter
IV + i = (U << 32) | (lo + j) with lo + j < 2^32, so every block word outside the counter's last 4
bytes is constant (U), including across the 2^32 / 2^64 / 2^128 carries, which fall on segment
boundaries; each segment gets its own ``pre`` values.  ``main`` keeps ``fn``'s outputs; an output that
is itself uniform comes back as an ``H`` input passed straight through.

``pass_inputs``: uniform inputs that ``main`` should read as ``H`` values too, not as themselves (the
bitsliced CTR core: a nonce plane costs 3 ops to make on the device, an ``H`` value none).  ``keep``: op ids
that stay in ``main`` though uniform (their uniform arguments become ``H`` values).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Function, Op


@dataclass(frozen=True)
class Hoisted:
    pre: Function  # uniform inputs -> H[k]
    main: Function  # varying inputs + H[k] -> fn's outputs
    frontier: tuple[int, ...]  # value ids in fn that became H[0], H[1], ...

    @property
    def hoisted_ops(self) -> int:
        """Ops moved out of the per-block part (inputs and constants not counted)."""
        return self.pre.work()


def uniform_mask(fn: Function, uniform_inputs: set[str]) -> list[bool]:
    """Per value: does it depend only on constants and the named inputs?"""
    uni: list[bool] = []
    for op in fn.ops:
        if op.code == "input":
            uni.append(op.imm[0] in uniform_inputs)
        elif op.code == "const":
            uni.append(True)
        else:
            uni.append(all(uni[a] for a in op.args))
    return uni


def split(
    fn: Function,
    uniform_inputs: set[str],
    prefix: str = "H",
    pass_inputs: frozenset[str] = frozenset(),
    keep: frozenset[int] = frozenset(),
) -> Hoisted:
    uni = uniform_mask(fn, set(uniform_inputs))
    ops = fn.ops
    if keep:  # ops main keeps though they are uniform (and so everything that reads them)
        for i, op in enumerate(ops):
            if i in keep or any(not uni[a] for a in op.args):
                uni[i] = False

    def worth(v: int) -> bool:  # an input or constant is as cheap to read in main as an H value (but pass_inputs)
        if ops[v].code == "input":
            return ops[v].imm[0] in pass_inputs
        return ops[v].code != "const"

    frontier: list[int] = []
    seen: set[int] = set()
    for i, op in enumerate(ops):
        if uni[i]:
            continue
        for a in op.args:
            if uni[a] and worth(a) and a not in seen:
                seen.add(a)
                frontier.append(a)
    for _, v in fn.outputs:
        if uni[v] and worth(v) and v not in seen:
            seen.add(v)
            frontier.append(v)
    frontier.sort()
    hname = {v: f"{prefix}[{k}]" for k, v in enumerate(frontier)}

    # pre: every uniform value the frontier needs (dataflow closure), in original order
    need = [False] * len(ops)
    for v in frontier:
        need[v] = True
    for i in range(len(ops) - 1, -1, -1):
        if need[i]:
            for a in ops[i].args:
                need[a] = True
    pre_ops: list[Op] = []
    pre_id: dict[int, int] = {}
    for i, op in enumerate(ops):
        if need[i]:
            pre_id[i] = len(pre_ops)
            pre_ops.append(op.with_args(tuple(pre_id[a] for a in op.args)) if op.args else op)
    pre = Function(fn.name + ".pre", pre_ops, [(hname[v], pre_id[v]) for v in frontier])

    # main: varying ops, uniform inputs/constants it reads, H inputs for the frontier
    used = [False] * len(ops)
    for i, op in enumerate(ops):
        if not uni[i]:
            used[i] = True
            for a in op.args:
                used[a] = True
    for _, v in fn.outputs:
        used[v] = True
    main_ops: list[Op] = []
    main_id: dict[int, int] = {}
    for i, op in enumerate(ops):
        if not used[i]:
            continue
        if uni[i] and worth(i):
            main_id[i] = len(main_ops)
            main_ops.append(Op("input", op.width, (), (hname[i],), op.origin))
        else:
            main_id[i] = len(main_ops)
            main_ops.append(op.with_args(tuple(main_id[a] for a in op.args)) if op.args else op)
    main = Function(fn.name, main_ops, [(n, main_id[v]) for n, v in fn.outputs])
    return Hoisted(pre, main, tuple(frontier))
