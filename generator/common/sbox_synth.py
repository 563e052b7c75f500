"""A Boolean circuit for ANY small table (4- or 8-bit S-box, any output width): the constant-time form of a
lookup, for bit-plane (bitsliced) code.

Method: recursive decomposition of every output bit over its input variables, with the sub-functions
shared between all output bits (the multiplexer decomposition of M. Kwan, "Reducing the Gate Count of
Bitslice DES", IACR ePrint 2000/051, section 3, extended with the positive and negative Davio expansions
of Reed-Muller logic).  Splitting f on a variable v gives the cofactors f0 = f|v=0 and f1 = f|v=1 and
three ways to rebuild f, of which the cheapest is taken (the cost of a cofactor counts only the gates
not built yet, so shared sub-functions are free):

    Shannon          f = f0 ^ (v & (f0 ^ f1))     (builds f0, f1; 3 gates)
    positive Davio   f = f0 ^ (v & g),  g = f0 ^ f1          (builds f0, g; 2 gates)
    negative Davio   f = f1 ^ (~v & g)                        (builds f1, g; 2 gates + ~v once)
    and the cheap cases: f0 == f1 (f does not depend on v), f1 == ~f0 (f = f0 ^ v), a constant cofactor
    (f = v & f1, f = ~v & f0, f = v | f0, f = ~v | f1).

Every variable order and every order of building the outputs is tried for 4-bit tables (24 x 24), a few
for 8-bit ones (rotations of the variable order and their reverses, outputs in order and reversed); the
smallest circuit wins.  The result is NOT optimal: PRESENT's 4-bit S-box, 14 gates in the optimal
circuits of Ullrich et al. (SPEED 2011), takes 20 here, GIFT's 18, a random 8-bit permutation about 620
(tests/unit/test_sbox_synth.py pins the figures); an 8-bit S-box that is affine-equivalent to AES's is better
served by the Boyar-Peralta circuit (generator/common/sbox_circuit.py), which the callers try first (affine.py
recognises the forms L∘S, S∘L, L∘S⁻¹, S⁻¹∘L; SM4's S-box, equivalent on both sides at once, is not
recognised yet and gets a synthesized circuit).  Every
circuit is checked against its table on all inputs before it is returned, and cached per table content.

    before:  y = S[x]                          (a secret-indexed 16-entry table)
    after:   t0 = x1 ^ x2;  t1 = x0 & t0;  ...  y0 = t7 ^ t3;  ...   (gates on bits, no memory access)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

Gate = tuple  # (dst, op, a, b): op "^" "&" "|" on two signals, "~" on a (b = None)


@dataclass(frozen=True)
class Circuit:
    """A straight-line program over input signals "x0".."x{n-1}" (x_i = bit i of the table index)."""

    inputs: int
    gates: tuple[Gate, ...]
    outputs: tuple  # per output bit (LSB first): a signal name, or the constant 0 / 1

    def size(self) -> int:
        return len(self.gates)

    def evaluate(self, x: int) -> int:
        env: dict[str, int] = {f"x{i}": x >> i & 1 for i in range(self.inputs)}
        for dst, op, a, b in self.gates:
            if op == "~":
                env[dst] = 1 - env[a]
            elif op == "^":
                env[dst] = env[a] ^ env[b]
            elif op == "&":
                env[dst] = env[a] & env[b]
            else:
                env[dst] = env[a] | env[b]
        return sum((o if isinstance(o, int) else env[o]) << j for j, o in enumerate(self.outputs))


class _Builder:
    """Builds functions (truth tables over n variables, as ints of 2^n bits) into shared gates."""

    def __init__(self, n: int, order: tuple[int, ...]):
        self.n = n
        self.full = (1 << (1 << n)) - 1
        self.order = order
        self.var = [sum(1 << x for x in range(1 << n) if x >> i & 1) for i in range(n)]
        self.gates: list[Gate] = []
        self.have: dict[int, str] = {v: f"x{i}" for i, v in enumerate(self.var)}
        self._cost_memo: dict[tuple[int, int], tuple[int, tuple]] = {}

    # cofactors keep all n variables: f|v=0 copies the v=0 half onto the v=1 half
    def cof(self, f: int, i: int) -> tuple[int, int]:
        v = self.var[i]
        f0, f1 = f & ~v & self.full, f & v
        s = 1 << i
        return f0 | (f0 << s), f1 | (f1 >> s)

    def signal(self, f: int, op: str, a: str, b: str | None = None) -> str:
        name = f"t{len(self.gates)}"
        self.gates.append((name, op, a, b))
        self.have[f] = name
        return name

    def _known(self, f: int) -> int | None:
        """0 if f is built (or constant), 1 if only its complement is, else None."""
        if f in (0, self.full) or f in self.have:
            return 0
        if self.full ^ f in self.have:
            return 1
        return None

    def plan(self, f: int, depth: int) -> tuple[int, tuple]:
        """(gates still needed, how) for f, splitting on order[depth:]; memoized per (f, depth)."""
        k = self._known(f)
        if k is not None:
            return k, ("known",)
        key = (f, depth)
        if key in self._cost_memo:
            return self._cost_memo[key]
        i = self.order[depth]
        f0, f1 = self.cof(f, i)
        nv = 0 if self.full ^ self.var[i] in self.have else 1  # ~v, built once
        best: tuple[int, tuple]
        if f0 == f1:
            best = (self.plan(f0, depth + 1)[0], ("same", f0))
        elif f1 == self.full ^ f0:
            best = (self.plan(f0, depth + 1)[0] + 1, ("xv", f0, i))
        else:
            c0, c1 = self.plan(f0, depth + 1)[0], self.plan(f1, depth + 1)[0]
            g = f0 ^ f1
            options: list[tuple[int, tuple]] = []
            if f0 == 0:
                options.append((c1 + 1, ("and_v", f1, i)))
            if f1 == 0:
                options.append((c0 + 1 + nv, ("and_nv", f0, i)))
            if f0 == self.full:
                options.append((c1 + 1 + nv, ("or_nv", f1, i)))
            if f1 == self.full:
                options.append((c0 + 1, ("or_v", f0, i)))
            if not options:
                cg = self.plan(g, depth + 1)[0]
                options += [
                    (c0 + cg + 2, ("pdavio", f0, g, i)),
                    (c1 + cg + 2 + nv, ("ndavio", f1, g, i)),
                    (c0 + c1 + 3, ("shannon", f0, f1, i)),
                ]
            best = min(options, key=lambda o: o[0])
        self._cost_memo[key] = best
        return best

    def build(self, f: int, depth: int = 0) -> str | int:
        if f == 0:
            return 0
        if f == self.full:
            return 1
        if f in self.have:
            return self.have[f]
        if self.full ^ f in self.have:
            return self.signal(f, "~", self.have[self.full ^ f])
        _, how = self.plan(f, depth)
        kind = how[0]
        if kind == "same":
            return self.build(how[1], depth + 1)
        i = how[-1]
        v = self.have[self.var[i]]
        if kind == "xv":
            return self.signal(f, "^", self._sig(how[1], depth), v)
        if kind == "and_v":
            return self.signal(f, "&", self._sig(how[1], depth), v)
        if kind == "or_v":
            return self.signal(f, "|", self._sig(how[1], depth), v)
        if kind in ("and_nv", "or_nv"):
            a = self._sig(how[1], depth)
            return self.signal(f, "&" if kind == "and_nv" else "|", a, self._not_var(i))
        if kind == "pdavio":
            a, g = self._sig(how[1], depth), self._sig(how[2], depth)
            return self.signal(f, "^", a, self.signal(self.var[i] & how[2], "&", g, v))
        if kind == "ndavio":
            a, g = self._sig(how[1], depth), self._sig(how[2], depth)
            nv = self._not_var(i)
            return self.signal(f, "^", a, self.signal(~self.var[i] & self.full & how[2], "&", g, nv))
        a, b = self._sig(how[1], depth), self._sig(how[2], depth)  # shannon: f0 ^ (v & (f0 ^ f1))
        g = self.signal(how[1] ^ how[2], "^", a, b)
        return self.signal(f, "^", a, self.signal(self.var[i] & (how[1] ^ how[2]), "&", g, v))

    def _sig(self, f: int, depth: int) -> str:
        """A built signal for f (constants cannot reach here: the plan treats them as special cases)."""
        s = self.build(f, depth + 1)
        assert isinstance(s, str)
        return s

    def _not_var(self, i: int) -> str:
        nv = self.full ^ self.var[i]
        return self.have[nv] if nv in self.have else self.signal(nv, "~", self.have[self.var[i]])


def _orders(n: int) -> list[tuple[int, ...]]:
    if n <= 4:
        return list(itertools.permutations(range(n)))
    base = list(range(n - 1, -1, -1))  # split on the high bits first
    out = []
    for r in range(n):
        rot = tuple(base[r:] + base[:r])
        out += [rot, rot[::-1]]
    return out


@cache
def synthesize(values: tuple[int, ...], out_bits: int) -> Circuit:
    """The smallest circuit found for ``values`` (2^n entries, each below 2^out_bits); checked exhaustively."""
    size = len(values)
    n = size.bit_length() - 1
    if size != 1 << n or n < 1:
        raise ValueError(f"a table of {size} entries is not indexed by whole bits")
    targets = [sum(1 << x for x in range(size) if values[x] >> j & 1) for j in range(out_bits)]
    live = [j for j, t in enumerate(targets) if t not in (0, (1 << size) - 1)]
    out_orders = itertools.permutations(live) if len(live) <= 4 else (tuple(live), tuple(reversed(live)))
    best: Circuit | None = None
    for out_order, order in itertools.product(list(out_orders), _orders(n)):
        b = _Builder(n, order)
        outs: list = [0 if t == 0 else 1 for t in targets]
        for j in out_order:  # the order the outputs are built in decides what they share
            b._cost_memo.clear()  # costs count only what is not built yet: refresh per output bit
            outs[j] = b.build(targets[j])
        c = Circuit(n, tuple(b.gates), tuple(outs))
        if best is None or c.size() < best.size():
            best = c
    assert best is not None
    bad = [x for x in range(size) if best.evaluate(x) != values[x]]
    if bad:  # pragma: no cover - a synthesis bug must never reach generated code
        raise AssertionError(f"synthesized circuit differs from the table at input {bad[0]:#x}")
    return best
