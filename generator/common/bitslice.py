"""Lowering an IR function to bit-plane operations, for words of any width: what every bitsliced target
shares (the C ``bitsliced`` schedule's vector statements, the CUDA ``bs`` layout's 32-lane registers).

Every u<w> value becomes w planes (plane i = bit i of that word in every block); a plane is a target value
or the constant 0 / 1 (all zeros / all ones), folded as it goes.  Per op:

    xor/and/or/not      the same op on each plane
    shl/shr/rotl by k   plane renaming (shl fills with the constant 0): no operation at all
    zext/trunc          plane renaming (zext fills with 0)
    const c             constant planes
    add/sub             a ripple-carry adder, 5 plane ops per bit (sub: a + ~b + 1)
    gmul c mod poly     the GF(2) 8x8 matrix of "times c" as plane XORs (shared pairs: Paar's greedy)
    lut T               T affine-equivalent to the AES S-box: T = Lout∘S∘Lin (generator/common/affine.py),
                        Lin merged with the Boyar-Peralta circuit's top XORs, its middle, its bottom XORs
                        merged with Lout (sbox_circuit.py; a target bound by its gate count also gets the
                        113-gate circuit and, per side, the circuit's own linear program beside the map,
                        whichever lowering is smallest: smallest_shape, LINEAR_FORMS; a target may also
                        pick another decomposition of the same table: inversion_choice, sbox_equiv.py);
                        the XOR networks: Paar's greedy, or Boyar-Peralta's heuristic (slp.py) where
                        that is shorter; any other 4- or 8-bit table: the circuit that
                        generator/common/sbox_synth.py synthesizes for it (checked on every input)
    anything else       refused (UsageError; ``unsupported`` says so before lowering): tables indexed
                        by other than 4 or 8 bits

So a whole cipher on u32 words with a byte S-box (SM4-like: unpack, S[b], pack) becomes plane logic with
the byte extraction free, and a bit permutation (rotations and masks in the IR) is free renaming too.

    before: %2 = xor.u8 %0, %1                 after: 8 plane XORs
    before: %3 = shl.u8 %2, 1                  after: planes [0, p16, p17, ..., p22]       (none)

A target subclasses ``PlaneAlgebra`` and says how one operation on planes is made (``node``): the
algebra folds constants, numbers values and builds the adders, linear networks and S-box circuits.
``bind(name, width)`` gives the planes of an input word, LSB first.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache

from cipherspec.errors import UsageError
from cipherspec.gf import gf_mul
from cipherspec.ir import Function, Table
from cipherspec.passes.xornet import paar

from . import sbox_equiv, slp
from .affine import two_sided as _two_sided
from .sbox_circuit import circuit
from .sbox_synth import synthesize

TABLE_INDEX_BITS = (4, 8)  # the tables a circuit exists for (sbox_circuit.py / sbox_synth.py)


class PlaneAlgebra:
    """Plane operations with constant folding and value numbering; ``node`` makes a new one."""

    def __init__(self) -> None:
        self._memo: dict = {}

    def node(self, key: tuple):
        """A new plane for ``key`` = (op, *planes): op is "^", "&", "|" or "~"; planes are target values."""
        raise NotImplementedError

    def _get(self, key: tuple):
        if key not in self._memo:
            self._memo[key] = self.node(key)
        return self._memo[key]

    def xor(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a ^ b
        if isinstance(a, int):
            a, b = b, a
        if isinstance(b, int):
            return self.not_(a) if b else a
        if a == b:
            return 0
        a, b = sorted((a, b))
        return self._get(("^", a, b))

    def and_(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a & b
        if isinstance(a, int):
            a, b = b, a
        if isinstance(b, int):
            return a if b else 0
        if a == b:
            return a
        a, b = sorted((a, b))
        return self._get(("&", a, b))

    def or_(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a | b
        if isinstance(a, int):
            a, b = b, a
        if isinstance(b, int):
            return 1 if b else a
        if a == b:
            return a
        a, b = sorted((a, b))
        return self._get(("|", a, b))

    def not_(self, a):
        if isinstance(a, int):
            return 1 - a
        return self._get(("~", a))

    def linear(self, inputs: list, targets: list[tuple[int, int]]) -> list:
        """targets[i] = (mask over inputs, constant bit): XOR networks sharing pairs (Paar's greedy).

        before: y0 = x0^x1^x2, y1 = x0^x1^x3       after: t = x0^x1; y0 = t^x2; y1 = t^x3"""
        terms, sets = _network(tuple(targets), len(inputs))
        value: dict = {}

        def get(e):
            if e[0] == "v":
                return inputs[e[1]]
            if e not in value:
                x, y = terms[e[1]]
                value[e] = self.xor(get(x), get(y))
            return value[e]

        out = []
        for s, (_, c) in zip(sets, targets):
            acc = 0
            for e in s:
                acc = self.xor(acc, get(e))
            out.append(self.xor(acc, c))
        return out

    def add(self, a: list, b: list, carry=0) -> list:
        """a + b (+ carry in) mod 2^w, LSB first: a ripple-carry adder (sum a^b^c, carry maj(a, b, c)).

        before: %2 = add.u8 %0, %1     after: s0 = a0^b0; c1 = a0&b0; t1 = a1^b1; s1 = t1^c1; c2 = ... (5/bit)"""
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            t = self.xor(x, y)
            out.append(self.xor(t, carry))
            if i + 1 < len(a):
                carry = self.or_(self.and_(x, y), self.and_(t, carry))
        return out

    def sbox(self, x: list, table: Table) -> list:
        return self.sbox_inline(x, table)

    # the inversion circuits a lowering may use (sbox_circuit.py): the depth-16 one by default (latency-bound
    # targets); a target bound by the gate count sets both and gets, per table, the one with fewer gates
    SBOX_SHAPES: tuple[str, ...] = ("depth16",)

    def sbox_inline(self, x: list, table: Table) -> list:
        """The table's circuit on the index planes x (LSB first; only the low ``table.in_width`` are read)."""
        form = two_sided(table.values) if table.in_width == 8 and table.out_width == 8 else None
        if form is None:
            return self.sbox_synthesized(x, table)
        (a, k), shape, how = self.inversion_choice(tuple(table.values))
        return self._inversion_circuit(x, sbox_equiv.variant(form, a, k), shape, how)

    def inversion_choice(self, values: tuple[int, ...]) -> tuple[tuple[int, int], str, str]:
        """((a, k), shape, how) for a table affine-equivalent to inversion: which of its decompositions
        (sbox_equiv.py; (1, 0) is two_sided's own), circuit and linear form the lowering takes."""
        return ((1, 0), *smallest_shape(values, self.SBOX_SHAPES, self.circuit_cost))

    # how a lowering is priced when it picks among the circuits and linear forms (None: plane operations);
    # a target whose instructions are not plane operations (the GPU's LOP3) gives a function of the lowered
    # circuit's builder-free description: cost(form, shape, how) -> int
    circuit_cost: Callable | None = None

    def _inversion_circuit(self, x: list, form, shape: str, how: str = "merged") -> list:
        """``how`` (LINEAR_FORMS): per side, the affine map merged with the circuit's linear part into one
        synthesized network, or kept as its own network beside the circuit's own linear program
        ("own": both sides so, Lin, top, middle, bottom, Lout)."""
        circ = circuit(shape)
        inp, outm = form.inp, form.out
        if how in ("own", "own-top"):
            sin = self.linear(x, [(inp.rows[i], inp.const >> i & 1) for i in range(8)])  # S-input bits, LSB first
            env: dict = {f"U{k}": sin[7 - k] for k in range(8)}
            for dst, op, a, b in circ.top_program:
                env[dst] = env[a] if op == "=" else self.xor(env[a], env[b])
        else:
            top_rows = []
            for name in circ.top:  # T = XOR of S-input bits; S-input bit i = parity(x & inp.rows[i]) ^ c_i
                m, c = circ.top[name], 0
                row = 0
                for i in range(8):
                    if m >> i & 1:
                        row ^= inp.rows[i]
                        c ^= inp.const >> i & 1
                top_rows.append((row, c))
            env = dict(zip(circ.top, self.linear(x, top_rows)))
        for dst, op, a, b in circ.middle:
            env[dst] = self.and_(env[a], env[b]) if op == "&" else self.xor(env[a], env[b])
        if how in ("own", "own-bottom"):
            for dst, op, a, b in circ.bottom_program:
                v = self.xor(env[a], env[b])
                env[dst] = self.not_(v) if op == "~" else v
            sout = [env[f"S{7 - i}"] for i in range(8)]
            return self.linear(sout, [(outm.rows[i], outm.const >> i & 1) for i in range(8)])
        out_rows = []
        for i in range(8):  # output bit i = XOR over S bits k in out.rows[i] of bottom[k]
            m, c = 0, outm.const >> i & 1
            for k in range(8):
                if outm.rows[i] >> k & 1:
                    m ^= circ.bottom[k][0]
                    c ^= circ.bottom[k][1]
            out_rows.append((m, c))
        return self.linear([env[p] for p in circ.products], out_rows)

    def sbox_synthesized(self, x: list, table: Table) -> list:
        """Any 4- or 8-bit table: the synthesized circuit (sbox_synth.py) on the index planes x[0..in_width-1]."""
        if table.in_width not in TABLE_INDEX_BITS:
            raise UsageError(
                f"the bitsliced lowering has circuits for 4- and 8-bit tables; table {table.name} "
                f"is indexed by {table.in_width} bits"
            )
        circ = synthesize(table.values, table.out_width)
        env: dict = {f"x{i}": x[i] for i in range(table.in_width)}
        ops = {"^": self.xor, "&": self.and_, "|": self.or_}
        for dst, op, a, b in circ.gates:
            env[dst] = self.not_(env[a]) if op == "~" else ops[op](env[a], env[b])
        return [o if isinstance(o, int) else env[o] for o in circ.outputs]

    def comment_for(self, origin) -> None:
        """Called before each IR op is lowered (targets that annotate their output override it)."""


class _Counter(PlaneAlgebra):
    """Counts the plane operations a lowering makes (names them n0, n1, ...)."""

    def node(self, key: tuple):
        return f"n{len(self._memo)}"


_SHAPE_WORDS = {"depth16": "Boyar-Peralta depth-16, 128 gates", "small": "Boyar-Peralta 113 gates, depth 28"}
# how the affine maps meet the circuit's linear parts (PlaneAlgebra._inversion_circuit)
LINEAR_FORMS = ("merged", "own", "own-top", "own-bottom")
_FORM_WORDS = {
    "merged": "linear parts merged with the affine maps",
    "own": "its own linear programs around the affine maps",
    "own-top": "its own top program after the input map, the bottom merged with the output map",
    "own-bottom": "the top merged with the input map, its own bottom program before the output map",
}


def plane_ops(form, shape: str, how: str) -> int:
    """Plane operations of one lowering (what a gate-bound target pays; NOTs of constants included)."""
    alg = _Counter()
    alg._inversion_circuit([f"x{i}" for i in range(8)], form, shape, how)
    return len(alg._memo)


def _costs(values: tuple[int, ...], shapes: tuple[str, ...], cost: Callable | None) -> dict[tuple[str, str], int]:
    form = two_sided(values)
    assert form is not None
    price = cost or plane_ops
    return {(shape, how): price(form, shape, how) for shape in shapes for how in LINEAR_FORMS}


def circuit_choice(values: tuple[int, ...], shapes: tuple[str, ...], cost: Callable | None = None) -> str:
    """The inversion circuit and form ``smallest_shape`` picks for a table, and why, in words:
    "Boyar-Peralta 113 gates, depth 28, its own linear programs around the affine maps: 117 plane ops
    (depth-16 merged: 128, ...)"."""
    counts = _costs(values, shapes, cost)
    shape, how = smallest_shape(values, shapes, cost)
    unit = "plane ops" if cost is None else "instructions"
    others = ", ".join(
        f"{_SHAPE_WORDS[sh].split(',')[0]} {hw}: {n}" for (sh, hw), n in counts.items() if (sh, hw) != (shape, how)
    )
    return f"{_SHAPE_WORDS[shape]}, {_FORM_WORDS[how]}: {counts[(shape, how)]} {unit}" + (
        f" ({others})" if others else ""
    )


@cache
def smallest_shape(values: tuple[int, ...], shapes: tuple[str, ...], cost: Callable | None = None) -> tuple[str, str]:
    """Of the inversion circuits ``shapes``, each with each of the LINEAR_FORMS, the lowering of this table that
    ``cost`` (default: plane operations) prices lowest (the first on a tie: the depth-16 circuit, merged, where
    only it is offered).  AES's S-box: 124 plane operations (depth16, merged) -> 117 (small, "own": Lin and
    Lout are identity).  ARIA S1⁻¹ (= AES S⁻¹): 144 with Paar's networks -> 130 (small, "own-top")."""
    if len(shapes) == 1:
        return shapes[0], "merged"
    if os.environ.get("CIPHERSPEC_PTX_SBOX") == "v1":  # the A/B baseline (abswitch.py): two forms, plane operations
        counts = {k: n for k, n in _costs(values, shapes, None).items() if k[1] in ("merged", "own")}
    else:
        counts = _costs(values, shapes, cost)
    return min(counts, key=lambda k: counts[k])


def best_lowering(
    values: tuple[int, ...], shapes: tuple[str, ...], cost: Callable | None, keep: int
) -> tuple[int, tuple[int, int], str, str]:
    """(price, (a, k), shape, how): the cheapest by ``cost`` of two_sided's own decomposition with every circuit
    and every LINEAR_FORMS, and, per circuit, the ``keep`` - 1 lightest other decompositions (sbox_equiv.py)
    with the merged linear parts and the two half-merged forms (ties: the first found)."""
    form = two_sided(values)
    assert form is not None
    price = cost or plane_ops
    best: tuple[int, tuple[int, int], str, str] | None = None
    for shape in shapes:
        tries = [((1, 0), how) for how in LINEAR_FORMS]
        tries += [
            (key, how)
            for key in sbox_equiv.candidates(form, shape, keep)
            for how in LINEAR_FORMS[:1] + LINEAR_FORMS[2:]
        ]
        for key, how in tries:
            n = price(sbox_equiv.variant(form, *key), shape, how)
            if best is None or n < best[0]:
                best = (n, key, shape, how)
    assert best is not None
    return best


def live_bits(table: Table) -> list[int]:
    """Output bits of a table that are not the same for every entry (a 4-bit S-box in a u8: bits 0..3)."""
    return [j for j in range(table.out_width) if len({v >> j & 1 for v in table.values}) > 1]


def circuit_kind(table: Table, shapes: tuple[str, ...] = ("depth16",)) -> str:
    """How the bit-plane lowering computes a table, in words (the comment of its circuit); ``shapes``: the
    inversion circuits the target offers (PlaneAlgebra.SBOX_SHAPES)."""
    if table.in_width == 8 and table.out_width == 8 and two_sided(table.values) is not None:
        shape, _ = smallest_shape(tuple(table.values), shapes)
        return f"{table.name} = Lout∘S∘Lin, S as the {_SHAPE_WORDS[shape]} circuit"
    size = synthesize(table.values, table.out_width).size()
    return f"{table.name}: synthesized circuit of {size} gates (generator/common/sbox_synth.py)"


@cache
def two_sided(values: tuple[int, ...]):
    return _two_sided(values)


@cache
def _network(targets: tuple[tuple[int, int], ...], n: int) -> tuple[list, list[list]]:
    """Paar's greedy over the target rows (input j = ("v", j)); cached: every lookup of one table
    and every gmul by one constant share the same network."""
    terms, sets = paar([{("v", j) for j in range(n) if mask >> j & 1} for mask, _ in targets])
    found = (terms, [sorted(s) for s in sets])
    if n <= slp.MAX_INPUTS and os.environ.get("CIPHERSPEC_PTX_SBOX") != "v1":  # (v1: the A/B baseline, abswitch.py)
        # small maps: Boyar-Peralta's distance heuristic too, the shorter program kept
        other = slp.program(tuple(mask for mask, _ in targets), n)
        if _xors(*other) < _xors(*found):
            return other
    return found


def _xors(terms: list, sets: list) -> int:
    """Two-input XORs of a network: one a term, k - 1 a row of k elements."""
    return len(terms) + sum(max(len(s) - 1, 0) for s in sets)


def gmul_rows(c: int, poly: int) -> list[tuple[int, int]]:
    """Output bit i of x·c as a mask over the bits of x: column j = (2^j)·c mod poly."""
    cols = [gf_mul(1 << j, c, poly) for j in range(8)]
    return [(sum(1 << j for j in range(8) if cols[j] >> i & 1), 0) for i in range(8)]


def unsupported(functions, tables: dict[str, Table]) -> str:
    """'' when ``lower`` can take every function given and every table, else why not (names the op or table)."""
    for fn in functions:
        for op in fn.ops:
            if op.code not in LOWERED:
                return f"op {op.code} in {fn.name} (the bit-plane lowering takes {', '.join(LOWERED[1:])})"
    for name, table in sorted(tables.items()):
        if table.in_width not in TABLE_INDEX_BITS:
            return f"table {name} is indexed by {table.in_width} bits (circuits exist for 4- and 8-bit tables)"
    return ""


LOWERED = (
    "input",
    "const",
    "xor",
    "and",
    "or",
    "not",
    "shl",
    "shr",
    "rotl",
    "zext",
    "trunc",
    "add",
    "sub",
    "gmul",
    "lut",
)


def lower(
    fn: Function, tables: dict[str, Table], planes: PlaneAlgebra, bind: Callable[[str, int], list]
) -> dict[str, list]:
    """Every op of ``fn`` as plane operations into ``planes``; returns output name -> its planes (LSB first)."""
    vals: list[list] = []
    for op in fn.ops:
        w = op.width
        planes.comment_for(op.origin)
        a = [vals[i] for i in op.args]
        code = op.code
        if code == "input":
            r = bind(op.imm[0], w)
        elif code == "const":
            r = [op.imm[0] >> i & 1 for i in range(w)]
        elif code in ("xor", "and", "or"):
            f = {"xor": planes.xor, "and": planes.and_, "or": planes.or_}[code]
            r = [f(p, q) for p, q in zip(a[0], a[1])]
        elif code == "not":
            r = [planes.not_(p) for p in a[0]]
        elif code == "shl":
            k = op.imm[0]
            r = [a[0][i - k] if i >= k else 0 for i in range(w)]
        elif code == "shr":
            k = op.imm[0]
            r = [a[0][i + k] if i + k < w else 0 for i in range(w)]
        elif code == "rotl":
            k = op.imm[0]
            r = [a[0][(i - k) % w] for i in range(w)]
        elif code in ("zext", "trunc"):
            r = (a[0] + [0] * w)[:w]
        elif code == "add":
            r = planes.add(a[0], a[1])
        elif code == "sub":
            r = planes.add(a[0], [planes.not_(p) for p in a[1]], 1)
        elif code == "gmul":
            r = planes.linear(a[0], gmul_rows(op.imm[0], op.imm[1]))
        elif code == "lut":
            r = (planes.sbox(a[0], tables[op.imm[0]]) + [0] * w)[:w]
        else:
            raise UsageError(f"the bitsliced schedule cannot lower {code} (in {fn.name}); use sliced or scalar")
        vals.append(r)
    return {name: vals[v] for name, v in fn.outputs}
