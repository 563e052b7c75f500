"""Linear expansion for the packed layout: every IR value as (XOR of atoms) ^ constant.

XOR and NOT are affine over GF(2)^8, so a packed kernel does not compute them one IR op at a time: each
operand of a non-linear op (a "node": lut, and, or, add, sub, shifts, rotations) and each output is
rebuilt as the XOR of permuted copies of registers that hold its atoms (permute.cover).  Atoms are
state inputs and nodes (op ids, instantiated per block) and round-key words (("k", name), the same for
every block); constants fold into one byte per lane.

    before:  %2 = xor %0, %1;  %3 = not %2;  %4 = lut S %3        (%0 = X[0], %1 = rk[0][0])
    after:   lin[3] = Lin({0, ("k", "rk[0][0]")}, 0xff);   nodes = [4];   form[4] = (("lut", "S"), [lin[3]])

Node forms fold the patterns with a better instruction:  and(a, not b) -> ("bic",);  or(a, not b) -> ("orn",);
sub(0, shr(x, 7)) -> ("sshr", 7) (the all-ones mask of the top bit);  sub(0, x) -> ("neg",).
An XOR whose sum would exceed WIDE atoms becomes a ("sum",) node: computed once, then an atom itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function

from .isel import not_supported

NODE_CODES = ("lut", "and", "or", "add", "sub", "shl", "shr", "rotl")
WIDE = 16  # an XOR sum of more atoms is computed once, as a node of class ("sum",), not re-expanded


@dataclass(frozen=True)
class Lin:
    """XOR of ``atoms`` (op ids of nodes/state inputs, or ("k", key name)) and the byte ``const``."""

    atoms: frozenset
    const: int = 0

    def __xor__(self, other: "Lin") -> "Lin":
        return Lin(self.atoms ^ other.atoms, self.const ^ other.const)

    def is_atom(self) -> bool:
        return len(self.atoms) == 1 and not self.const


ZERO = Lin(frozenset())


@dataclass
class Expansion:
    lin: list  # per op id: its Lin
    nodes: list[int]  # op ids of the non-linear ops, in op order
    form: dict  # node -> (class key, [(operand value id, Lin), ...])
    depth: dict  # node -> 1 + deepest node among its operands' atoms (inputs: 0)


def expand(fn: Function, keys: set[str]) -> Expansion:
    lin: list[Lin] = []
    nodes: list[int] = []
    for i, op in enumerate(fn.ops):
        if op.width != 8:
            raise not_supported(op, f"{op.code}.u{op.width} in the packed (byte) layout")
        code = op.code
        if code == "input":
            lin.append(Lin(frozenset([("k", op.imm[0]) if op.imm[0] in keys else i])))
        elif code == "const":
            lin.append(Lin(frozenset(), op.imm[0] & 0xFF))
        elif code == "xor":
            x = lin[op.args[0]] ^ lin[op.args[1]]
            if sum(isinstance(a, int) for a in x.atoms) > WIDE:  # e.g. a byte no S-box touches, round after round
                lin.append(Lin(frozenset([i])))
                nodes.append(i)
            else:
                lin.append(x)
        elif code == "not":
            lin.append(lin[op.args[0]] ^ Lin(frozenset(), 0xFF))
        elif code in NODE_CODES:
            lin.append(Lin(frozenset([i])))
            nodes.append(i)
        else:
            raise not_supported(op)
    form = {i: _form(fn, lin, i) for i in nodes}
    depth: dict[int, int] = {}
    for i in nodes:
        d = 0
        for _, operand in form[i][1]:
            for a in operand.atoms:
                if isinstance(a, int):
                    d = max(d, depth.get(a, 0))
        depth[i] = d + 1
    return Expansion(lin, nodes, form, depth)


def _form(fn: Function, lin: list[Lin], i: int):
    op = fn.ops[i]
    args = [(a, lin[a]) for a in op.args]
    code = op.code
    if code == "xor":
        return ("sum",), [(i, args[0][1] ^ args[1][1])]
    if code == "lut":
        return ("lut", op.imm[0]), args
    if code in ("and", "or"):
        for k in (1, 0):
            v, b = args[k]
            if b.const == 0xFF and b.atoms:
                return ("bic" if code == "and" else "orn",), [args[1 - k], (v, b ^ Lin(frozenset(), 0xFF))]
        return ("and" if code == "and" else "orr",), args
    if code == "add":
        return ("add",), args
    if code == "sub":
        if args[0][1] == ZERO:
            inner = fn.ops[op.args[1]]
            if inner.code == "shr" and inner.imm[0] == 7:
                return ("sshr", 7), [(inner.args[0], lin[inner.args[0]])]
            return ("neg",), [args[1]]
        return ("sub",), args
    if code == "shl":
        return ("shl", op.imm[0]), args
    if code == "shr":
        return ("ushr", op.imm[0]), args
    return ("rotl", op.imm[0]), args
