"""Round keys moved in front of a linear layer, onto the S-box outputs, and the layer rebuilt key-free for
three-input gates (generator/ptx/bitsliced.py runs it on a bitsliced core).

An SPN round ends ``y = L(x) ^ k``: x the S-box output planes, L an XOR network (MixColumns), k key planes.
L is linear, so ``y = L(x ^ k')`` with ``k' = L^-1 k``.  k' depends on the key alone (keysplit.py computes
it in set_key); L then reads no key plane and is rebuilt as an XOR network for LOP3 (xor3.py: AES
MixColumns 56 LOP3 a column), and ``x ^ k'`` mostly rides in the S-box's last LOP3.

Found on the plane IR, not on names: the XOR/NOT values over S-box outputs and key-only values form regions
(a value on an S-box's input side ends one; regions that share S-box outputs are one); a region's rows are
its values read from outside it.  A region is rewritten when its matrix (rows, S-box outputs) is square and
invertible, unless each S-box output's one reader in it is ``x ^ k'_x`` already (AES decryption's
``InvMixColumns(InvSubBytes(x) ^ k)``: nothing to move).  Readers outside the region read x as it is.

    before: %9 = xor %7, %8 (L's XORs over S-box outputs %1..%4)   %11 = xor %9, %k1      (per output)
    after:  %1' = xor %1, %k1'   ...   %11 = lop3 %1', %3', %t  (xor3's network over %1'..%4'; no key XOR)
            k1' = k1 ^ k3 ^ ...  (a row of L^-1: key-only, moved to set_key)
"""

from __future__ import annotations

from cipherspec.ir import Function
from cipherspec.unionfind import Disjoint

from . import xor3
from .irbuild import Builder


def _key_only(fn: Function, key_inputs: set[str]) -> list[bool]:
    out: list[bool] = []
    for op in fn.ops:
        if op.code == "input":
            out.append(op.imm[0] in key_inputs)
        elif op.code == "const":
            out.append(False)
        else:
            args = [a for a in op.args if fn.ops[a].code != "const"]
            out.append(bool(args) and all(out[a] for a in args))
    return out


def _invert(rows: list[int], n: int) -> list[int] | None:
    """The inverse of an n x n GF(2) matrix (row i = bit mask over columns), or None when singular."""
    aug = [(r, 1 << i) for i, r in enumerate(rows)]
    for col in range(n):
        piv = next((i for i in range(col, n) if aug[i][0] >> col & 1), None)
        if piv is None:
            return None
        aug[col], aug[piv] = aug[piv], aug[col]
        for i in range(n):
            if i != col and aug[i][0] >> col & 1:
                aug[i] = (aug[i][0] ^ aug[col][0], aug[i][1] ^ aug[col][1])
    return [inv for _, inv in aug]


def run(fn: Function, sbox_inputs: set[int], sbox_outputs: set[int], key_inputs: set[str]) -> Function:
    ops = fn.ops
    key = _key_only(fn, key_inputs)
    readers: list[list[int]] = [[] for _ in ops]
    for v, op in enumerate(ops):
        for a in op.args:
            readers[a].append(v)
    # lin[v] = (S-box outputs, key-only values, complement) whose XOR v is, for the XOR/NOT values over them; a
    # value on an S-box's input side ends a region (the next S-box's own linear part is not in it)
    lin: dict[int, tuple[frozenset[int], frozenset[int], int]] = {}
    for v, op in enumerate(ops):
        if v in sbox_outputs:
            lin[v] = (frozenset((v,)), frozenset(), 0)
            continue
        if key[v] or op.code not in ("xor", "not"):
            continue
        xs: frozenset[int] = frozenset()
        ks: frozenset[int] = frozenset()
        c = int(op.code == "not")
        for a in op.args:
            if key[a]:
                ks = ks ^ {a}
            elif a in lin and a not in sbox_inputs:
                xs, ks, c = xs ^ lin[a][0], ks ^ lin[a][1], c ^ lin[a][2]
            else:
                break
        else:
            if xs:
                lin[v] = (xs, ks, c)
    outputs = {v for _, v in fn.outputs}
    sets = Disjoint()
    find = sets.find

    for xs, _, _ in lin.values():
        for x in xs:
            sets.union(x, min(xs))
    groups: dict[int, list[int]] = {}  # component -> the values read outside the region (its rows)
    for v in lin:  # (an S-box output keeps its value: its readers outside the region read it as it is)
        if v not in sbox_outputs and (v in outputs or v in sbox_inputs or any(r not in lin for r in readers[v])):
            groups.setdefault(find(min(lin[v][0])), []).append(v)
    xprime: dict[int, frozenset[int]] = {}  # S-box output x -> the key values whose XOR is k'_x
    rows_of: dict[int, list[int]] = {}  # rewritten component -> its rows
    for comp, rows in groups.items():
        cols = sorted({x for v in rows for x in lin[v][0]})
        if len(cols) != len(rows) or all(len(lin[v][0]) == 1 for v in rows):
            continue  # not square, or the keys are on the S-box outputs already
        col = {x: i for i, x in enumerate(cols)}
        inv = _invert([sum(1 << col[x] for x in lin[v][0]) for v in rows], len(cols))
        if inv is None:
            continue
        found = {}
        for j, x in enumerate(cols):  # k'_x = XOR over rows i of (L^-1)[x][i] * (row i's key part)
            acc: frozenset[int] = frozenset()
            for i, v in enumerate(rows):
                if inv[j] >> i & 1:
                    acc = acc ^ lin[v][1]
            found[x] = acc

        # nothing to move where each x's one reader in the region is x ^ k'_x already (the key on the S-box output)
        keyed = ([r for r in readers[x] if r in lin and r not in sbox_outputs] for x in cols)
        if not all(len(rs) == 1 and set(ops[rs[0]].args) == {x} | found[x] for x, rs in zip(cols, keyed)):
            xprime.update(found)
            rows_of[comp] = rows
    if not xprime:
        return fn
    return _rebuild(fn, key, lin, xprime, {find(min(lin[v][0])): r for r in rows_of.values() for v in r}, find)


def _rebuild(fn, key, lin, xprime, comp_rows, find) -> Function:
    """Inputs and constants first, then the rest in order, a key-only value where first read (short live
    ranges in set_key); a rewritten region's rows are built anew over x ^ k'_x (xor3.py's shared pairs and
    triples, each where a row first needs it), its other values dropped."""
    b = Builder(fn.name)
    new: dict[int, int] = {}
    shifted: dict[int, int] = {}  # x -> x ^ k'_x
    nets: dict[int, tuple[list, dict[int, set]]] = {}  # component -> (xor3 terms, row -> its elements)
    made: dict[tuple, int] = {}

    def element(e: tuple, comp: int) -> int:
        if e[0] == "v":
            return shifted[e[1]]
        if (comp, e) not in made:
            parts = [element(p, comp) for p in nets[comp][0][e[1]]]
            acc = parts[0]
            for q in parts[1:]:
                acc = b.op("xor", acc, q)
            made[(comp, e)] = acc
        return made[(comp, e)]

    def need(v: int) -> int:  # v emitted (with what it reads)
        if v not in new:
            op = fn.ops[v]
            b.origin = op.origin
            if op.code == "input":
                new[v] = b.input(op.imm[0])
            elif op.code == "const":
                new[v] = b.const(op.imm[0], op.width)
            else:
                args = [need(a) for a in op.args]
                b.origin = op.origin
                new[v] = b.op(op.code, *args, imm=op.imm[0] if op.imm else None, width=op.width)
        return new[v]

    for v, op in enumerate(fn.ops):
        if op.code in ("input", "const"):
            need(v)
    for v in range(len(fn.ops)):
        comp = find(min(lin[v][0])) if v in lin and v not in xprime else None
        if comp is not None and comp in comp_rows:
            b.origin = fn.ops[v].origin
            if comp not in nets:
                rows = comp_rows[comp]
                terms, sets = xor3.network([{("v", x) for x in lin[r][0]} for r in rows])
                nets[comp] = (terms, {r: s for r, s in zip(rows, sets)})
            elems = nets[comp][1].get(v)
            if elems is None:
                continue  # an inner value of the region: the rows are rebuilt without it
            acc = None
            for e in sorted(elems):
                t = element(e, comp)
                acc = t if acc is None else b.op("xor", acc, t)
            assert acc is not None
            new[v] = b.op("not", acc) if lin[v][2] else acc
        elif key[v]:
            continue  # pulled in where first read (need)
        else:
            need(v)
        if xprime.get(v):
            ks = sorted(need(k) for k in xprime[v])
            b.origin = fn.ops[v].origin
            acc = ks[0]
            for k in ks[1:]:  # key-only: set_key computes it (keysplit.py)
                acc = b.op("xor", acc, k)
            shifted[v] = b.op("xor", new[v], acc)
        elif v in xprime:
            shifted[v] = new[v]
    return b.function([(n, need(v)) for n, v in fn.outputs])
