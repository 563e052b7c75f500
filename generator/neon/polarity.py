"""Complemented values for FEAT_SHA3 selection: which values a register holds inverted, so that BCAX fuses
an AND/OR with the XOR that reads it (and BIC/ORN/EOR3 absorb the NOTs).

BCAX d, n, m, a = n ^ (m & ~a) needs one operand of the AND inverted; an OR fuses too, since
x ^ (a | b) = ~(x ^ (~a & ~b)).  Where both operands of an AND/OR come out of the registers with opposite
polarity (one held as itself, one as its complement), the XOR reading it becomes one BCAX.  A NOT costs
nothing (the register is the same, its polarity flips); a rotation keeps the polarity; an XOR may flip it
for free (EOR3 with all-ones); an AND/OR of mixed polarity gives either (BIC or ORN); any other op, and
every output, needs the value itself (an MVN where it is held inverted).

``plan`` chooses the polarities by local search over that cost model (generic IR structure: AND/OR feeding
single-use XORs, e.g. PIPO's S-layer); ``rewrite`` makes the function compute the register contents,
with explicit ``not`` ops where the selection rules (isel BIC/ORN, sha3.py BCAX/EOR3) absorb them.

    before:  t = or(a, b);  y = xor(x, t)        (ORR + EOR)
    after:   t = and(a', not b);  y' = xor(x, t)  (one BCAX; a' = ~a held inverted, y' = ~y)
"""

from __future__ import annotations

from collections import Counter

from cipherspec.ir import Function, Op

LOGIC = ("and", "or")
PASS = ("rotl",)  # ops that commute with complement


class _Graph:
    """The function with NOTs as aliases: every value's register source and whether it is inverted."""

    def __init__(self, fn: Function):
        self.fn = fn
        n = len(fn.ops)
        self.src = list(range(n))  # value -> the non-not value whose register it reads
        self.neg = [0] * n  # value = src ^ neg (1: the complement of src)
        for i, op in enumerate(fn.ops):
            if op.code == "not" and op.width == fn.ops[op.args[0]].width:
                a = op.args[0]
                self.src[i], self.neg[i] = self.src[a], 1 - self.neg[a]
        self.uses: Counter[int] = Counter()
        for op in fn.ops:
            if op.code != "not":
                self.uses.update(self.src[a] for a in op.args)
        self.uses.update(self.src[v] for _, v in fn.outputs)
        self.free = [
            i
            for i, op in enumerate(fn.ops)
            if op.code in ("xor",) + LOGIC and all(fn.ops[a].width == op.width for a in op.args)
        ]

    def pol(self, p: list[int], v: int) -> int:
        return p[self.src[v]] ^ self.neg[v]

    def cost(self, p: list[int]) -> int:
        """Instructions the polarity plan costs beyond the ops' own (a model of isel + sha3.py)."""
        fn, src = self.fn, self.src
        c = 0
        absorbed: set[int] = set()  # AND/OR folded into a BCAX, XOR folded into an EOR3
        plain_xor: set[int] = set()
        nots: set[int] = set()
        for i, op in enumerate(fn.ops):
            code = op.code
            if code == "not":
                continue
            if code in PASS:
                if p[i] != self.pol(p, op.args[0]):
                    return 1 << 30  # a rotation keeps the polarity
                continue
            if code in LOGIC:
                pa, pb = (self.pol(p, a) for a in op.args)
                c += 1 if pa != pb or p[i] == pa else 2
                continue
            if code == "xor" and i in self.free:
                a, b = op.args
                done = False
                for t, x in ((src[a], b), (src[b], a)):
                    top = fn.ops[t]
                    if top.code in LOGIC and self.uses[t] == 1 and t not in absorbed and t != i:
                        pa, pb = (self.pol(p, u) for u in top.args)
                        want = 1 if top.code == "or" else 0
                        if pa != pb and p[t] == want and self.neg[a if t == src[a] else b] == 0:
                            if p[i] == self.pol(p, x) ^ p[t]:
                                absorbed.add(t)
                                c += 0  # the BCAX replaces the AND/OR counted above
                                done = True
                                break
                if not done:
                    for y, x in ((src[a], b), (src[b], a)):
                        yop = fn.ops[y]
                        neg_y = self.neg[a if y == src[a] else b]
                        if (
                            yop.code == "xor"
                            and y in plain_xor
                            and self.uses[y] == 1
                            and y not in absorbed
                            and p[y] == self.pol(p, yop.args[0]) ^ self.pol(p, yop.args[1])  # y not inverted by EOR3
                            and p[i] == p[y] ^ neg_y ^ self.pol(p, x)
                        ):
                            absorbed.add(y)
                            done = True
                            break
                if not done:
                    c += 1
                    plain_xor.add(i)
                continue
            for a in op.args:  # any other op reads the values themselves
                if self.pol(p, a):
                    nots.add(src[a])
        for _, v in fn.outputs:
            if self.pol(p, v):
                nots.add(-1 - src[v])
        return c + len(nots)


def natural(g: _Graph) -> list[int]:
    """Every value held as itself where its op allows (NOT: an alias, inverted)."""
    return [0] * len(g.fn.ops)


def plan(fn: Function, sweeps: int = 3) -> tuple[list[int], int, int]:
    """(polarity per value id, modelled cost of the plan, of all values held as themselves)."""
    g = _Graph(fn)
    p = natural(g)
    _follow(fn, g, p)
    base = best = g.cost(p)
    near = {g.src[a] for op in fn.ops if op.code in LOGIC for a in op.args}  # what an AND/OR reads, and it
    order = [i for i in g.free if i in near or fn.ops[i].code in LOGIC]
    for _ in range(sweeps):
        improved = False
        for i in order:
            p[i] ^= 1
            _follow(fn, g, p)
            c = g.cost(p)
            if c < best:
                best, improved = c, True
            else:
                p[i] ^= 1
                _follow(fn, g, p)
        if not improved:
            break
    return p, best, base


def _follow(fn: Function, g: _Graph, p: list[int]) -> None:
    """Makes p a plan: rotations follow their operand, values no rule inverts are held as themselves."""
    free = set(g.free)
    for i, op in enumerate(fn.ops):
        if op.code in PASS:
            p[i] = g.pol(p, op.args[0])
        elif i not in free:
            p[i] = 0


_PLANNED: dict[int, tuple[Function, Function | None]] = {}


def apply(fn: Function) -> Function | None:
    """fn rewritten by its plan where the model says it saves instructions, else None (cached per function)."""
    hit = _PLANNED.get(id(fn))
    if hit is None or hit[0] is not fn:
        p, best, base = plan(fn, sweeps=1)
        hit = _PLANNED[id(fn)] = (fn, rewrite(fn, p) if best < base else None)
    return hit[1]


def rewrite(fn: Function, p: list[int]) -> Function:
    """fn computing every value v as v ^ p[v] (inverted where p[v] = 1); the outputs as themselves."""
    g = _Graph(fn)
    p = list(p)
    _follow(fn, g, p)
    ops: list[Op] = []
    reg: dict[int, int] = {}  # old non-not value -> new id of its register
    inv: dict[int, int] = {}  # new id -> new id of its complement (a not op), both ways
    width = {}
    consts: dict[tuple, int] = {}

    def new(op: Op) -> int:
        ops.append(op)
        width[len(ops) - 1] = op.width
        return len(ops) - 1

    def NOT(x: int, origin) -> int:
        if x not in inv:
            n = new(Op("not", width[x], (x,), (), origin))
            inv[x], inv[n] = n, x
        return inv[x]

    def ones(w: int) -> int:
        if ("ones", w) not in consts:
            consts[("ones", w)] = new(Op("const", w, (), ((1 << w) - 1,)))
        return consts[("ones", w)]

    def operand(a: int, want: int, origin) -> int:
        """The new id holding value a with polarity ``want``."""
        r = reg[g.src[a]]
        return r if g.pol(p, a) == want else NOT(r, origin)

    for i, op in enumerate(fn.ops):
        o = op.origin
        if op.code == "not" and g.src[i] != i:
            continue
        if op.code in ("input", "const"):
            reg[i] = new(op)
        elif op.code in PASS:
            reg[i] = new(Op(op.code, op.width, (operand(op.args[0], p[i], o),), op.imm, o))
        elif op.code in LOGIC and i in g.free:
            a, b = op.args
            pa, pb = g.pol(p, a), g.pol(p, b)
            A, B = reg[g.src[a]], reg[g.src[b]]
            dual = "or" if op.code == "and" else "and"
            if pa == pb:  # and of two inverted = inverted or (De Morgan), and the same for or
                code, nat = (op.code, 0) if pa == 0 else (dual, 1)
                r = new(Op(code, op.width, (A, B), (), o))
                reg[i] = r if p[i] == nat else new(Op("xor", op.width, (r, ones(op.width)), (), o))
            else:  # mixed: either polarity in one instruction (BIC / ORN)
                A, B = (A, B) if pa == 1 else (B, A)  # A: the operand held inverted
                if (op.code == "and") == (p[i] == 0):  # a & b = ~A & B ;  ~(a | b) = A & ~B
                    reg[i] = new(Op("and", op.width, (NOT(A, o), B) if op.code == "and" else (A, NOT(B, o)), (), o))
                else:  # ~(a & b) = A | ~B ;  a | b = ~A | B
                    reg[i] = new(Op("or", op.width, (A, NOT(B, o)) if op.code == "and" else (NOT(A, o), B), (), o))
        elif op.code == "xor" and i in g.free:
            a, b = op.args
            r = new(Op("xor", op.width, (reg[g.src[a]], reg[g.src[b]]), (), o))
            if p[i] != g.pol(p, a) ^ g.pol(p, b):  # inverted for real: EOR3 with all-ones, not a NOT to cancel
                r = new(Op("xor", op.width, (r, ones(op.width)), (), o))
            reg[i] = r
        else:
            reg[i] = new(Op(op.code, op.width, tuple(operand(a, 0, o) for a in op.args), op.imm, o))
    outs = [(name, operand(v, 0, fn.ops[v].origin)) for name, v in fn.outputs]
    return fn.copy_with(ops, outs)
