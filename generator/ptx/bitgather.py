"""Bit permutations on the one-block-per-thread CUDA layout as delta-swap networks on packed words, instead of
a mask-and-shift per bit (issue 25 item 2).

A *gather* value is one whose every bit is a bit of some *source* value or 0, through shifts, rotations, ANDs
with constants, ORs/XORs of operands with no live bit in common, zext and trunc (a spec's ``bitperm_be``, the
nibble packing around a 4-bit S-box, byte moves).  The gather values that other ops read (the *frontier*) are
grouped by the sources they share; a group whose frontier bits are a permutation of its sources' bits (each
source bit used once) gets rewritten when its bit map is a BPC permutation (the packed position's index bits
permuted and complemented, as PRESENT's pLayer, P(i) = 16 i mod 63, rotates them by two):

    pack:     the sources' bits into one 32-bit word, or two as a u64 (shl + or per source)
    network:  one delta swap per transposition of index bits, one per complemented index bit
              (t = ((x >> d) ^ x) & m;  x ^= t ^ (t << d): SHF, LOP3, SHF, LOP3 per 32-bit half)
    unpack:   each frontier value from its span of the image (shr + and)

It fires on the IR's structure alone, and only where the estimate (IR ops, u64 ops counted twice) is at most
``KEEP`` of the ops it replaces.  Not a bit permutation, not BPC, or more than 64 bits: the group stays as it is.

    before (PRESENT, one round):  ~200 ops (rotl/and/or per bit of eight bytes)
    after:                          ~90 ops (16 nibbles packed, 6 delta swaps on a u64, 8 bytes unpacked)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

from cipherspec.ir import Function, Op, Table, mask
from cipherspec.passes import dce

KEEP = 0.6  # rewrite only where the network costs at most this share of the gather ops it replaces
WORD = 32

Form = tuple  # per bit, LSB first: None (always 0) or (source op id, bit)


def _live(op: Op, tables: dict[str, Table]) -> int:
    """Bits of a source that may be 1 (a lookup: the bits set in some entry)."""
    if op.code == "lut":
        m = 0
        for v in tables[op.imm[0]].values:
            m |= v
        return m & mask(op.width)
    return mask(op.width)


def forms(fn: Function, tables: dict[str, Table]) -> list[Form | None]:
    """Per op: its gather form, or None where it is a source (or a constant)."""
    out: list[Form | None] = []

    def operand(v: int) -> Form | None:
        if out[v] is not None:
            return out[v]
        op = fn.ops[v]
        if op.code == "const":
            return (None,) * op.width if op.imm[0] == 0 else None
        if op.width > WORD:
            return None
        live = _live(op, tables)
        return tuple((v, b) if live >> b & 1 else None for b in range(op.width))

    for op in fn.ops:
        out.append(_gather(op, fn, operand))
    return out


def _gather(op: Op, fn: Function, operand) -> Form | None:
    w, code = op.width, op.code
    if w > WORD or code not in ("and", "or", "xor", "shl", "shr", "rotl", "zext", "trunc"):
        return None
    if code == "and":
        consts = [a for a in op.args if fn.ops[a].code == "const"]
        other = [a for a in op.args if fn.ops[a].code != "const"]
        if len(consts) != 1 or len(other) != 1:
            return None
        f, c = operand(other[0]), fn.ops[consts[0]].imm[0]
        return None if f is None else tuple(x if c >> i & 1 else None for i, x in enumerate(f))
    if code in ("or", "xor"):
        a, b = (operand(x) for x in op.args)
        if a is None or b is None or any(x is not None and y is not None for x, y in zip(a, b)):
            return None
        return tuple(x if x is not None else y for x, y in zip(a, b))
    f = operand(op.args[0])
    if f is None:
        return None
    if code == "shl":
        k = op.imm[0]
        return (None,) * k + f[: w - k]
    if code == "shr":
        k = op.imm[0]
        return f[k:] + (None,) * k
    if code == "rotl":
        k = op.imm[0]
        return tuple(f[(i - k) % w] for i in range(w))
    return (f + (None,) * w)[:w]  # zext / trunc


@dataclass
class Group:
    frontier: list[int]  # gather values read by other ops (or outputs), in op order
    sources: list[int]  # in op order
    old_ops: int  # gather ops in the frontier's cones


def _form(f: list[Form | None], i: int) -> Form:
    x = f[i]
    assert x is not None
    return x


def groups(fn: Function, f: list[Form | None]) -> list[Group]:
    users: list[list[int]] = [[] for _ in fn.ops]
    for i, op in enumerate(fn.ops):
        for a in op.args:
            users[a].append(i)
    outs = {v for _, v in fn.outputs}
    front = [
        i
        for i, x in enumerate(f)
        if x is not None and fn.ops[i].code != "const" and (i in outs or any(f[u] is None for u in users[i]))
    ]
    parent = {i: i for i in front}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[int, int] = {}
    for i in front:
        for x in _form(f, i):
            if x is not None:
                if x[0] in owner:
                    parent[find(i)] = find(owner[x[0]])
                else:
                    owner[x[0]] = i
    by: dict[int, list[int]] = {}
    for i in front:
        by.setdefault(find(i), []).append(i)
    out = []
    for members in by.values():
        cone: set[int] = set()
        stack = list(members)
        while stack:
            v = stack.pop()
            if v in cone or f[v] is None or fn.ops[v].code == "const":
                continue
            cone.add(v)
            stack += fn.ops[v].args
        srcs = sorted({x[0] for i in members for x in _form(f, i) if x is not None})
        out.append(Group(sorted(members), srcs, len(cone)))
    return out


def _place(spans: list[tuple[int, int]]) -> list[int] | None:
    """Offsets for bit spans (lo, hi) packed in order into 32-bit words, no span across a word; None: > 2 words."""
    offs, pos = [], 0
    for lo, hi in spans:
        n = hi - lo + 1
        if pos % WORD + n > WORD:
            pos += WORD - pos % WORD
        offs.append(pos)
        pos += n
    return offs if pos <= 2 * WORD else None


def bpc(pairs: list[tuple[int, int]], n: int) -> tuple[tuple[int, ...], int] | None:
    """(sigma, c) with q = sigma(p) ^ c for every (p, q): index bit j of p moves to bit sigma[j]; None if none.
    Of several, the first in lexicographic order of sigma.  Bit j may go to bit t where bit t of q XOR bit j of p
    is the same in every pair (that bit of c); a depth-first search in that order over such moves finds the
    first permutation, as trying all n! of them in order would.

        bpc([(0, 2), (1, 3), (2, 0), (3, 1)], 2)   -> ((0, 1), 2)     (q = p ^ 2)
    """
    p0, q0 = pairs[0]
    fits = [
        [t for t in range(n) if all((q >> t ^ p >> j ^ q0 >> t ^ p0 >> j) & 1 == 0 for p, q in pairs)] for j in range(n)
    ]
    sigma: list[int] = []
    taken = [False] * n

    def place(j: int) -> bool:
        if j == n:
            return True
        for t in fits[j]:
            if not taken[t]:
                taken[t] = True
                sigma.append(t)
                if place(j + 1):
                    return True
                sigma.pop()
                taken[t] = False
        return False

    if not place(0):
        return None
    found = tuple(sigma)
    return found, q0 ^ _image(p0, found)


def _image(p: int, sigma: tuple[int, ...]) -> int:
    return sum((p >> j & 1) << s for j, s in enumerate(sigma))


def swaps(sigma: tuple[int, ...], c: int, n: int) -> list[tuple[int, int]]:
    """Delta swaps (delta, mask) on n-bit positions realising p -> sigma(p) ^ c, in order."""
    loc = list(range(n))  # loc[j]: where original index bit j is now
    out = []
    for k in range(n):
        j = sigma.index(k)
        a = loc[j]
        if a == k:
            continue
        s, t = min(a, k), max(a, k)
        out.append((2**t - 2**s, sum(1 << p for p in range(2**n) if p >> s & 1 and not p >> t & 1)))
        for i in range(n):
            loc[i] = {s: t, t: s}.get(loc[i], loc[i])
    for t in range(n):
        if c >> t & 1:
            out.append((2**t, sum(1 << p for p in range(2**n) if not p >> t & 1)))
    return out


def _affine(p: int, perm: dict[int, int], c: int) -> int:
    """Position p with its index bits moved (bit j -> perm[j], the others stay) and then complemented by c."""
    return sum((p >> j & 1) << perm.get(j, j) for j in range(p.bit_length())) ^ c


def _cost(sigma: tuple[int, ...], c: int) -> int:
    """Delta swaps of a BPC permutation: transpositions of its index-bit permutation, plus complemented bits."""
    seen, cycles = set(), 0
    for j in range(len(sigma)):
        if j not in seen:
            cycles += 1
            while j not in seen:
                seen.add(j)
                j = sigma[j]
    return len(sigma) - cycles + bin(c).count("1")


def relabel(found: tuple[tuple[int, ...], int], n: int, spans_in: list[int], spans_out: list[int]):
    """Where every source span (and every output span) is one power-of-two size, the spans' order is free: the
    relabelling of the slot index bits on each side ((perm, complement) for sources, then for outputs) that
    leaves the fewest delta swaps; None where the spans are not uniform or nothing is gained."""
    if len(set(spans_in)) != 1 or len(set(spans_out)) != 1:
        return None
    li, lo = spans_in[0].bit_length() - 1, spans_out[0].bit_length() - 1
    if 1 << li != spans_in[0] or 1 << lo != spans_out[0] or (n - li) * (n - lo) > 30:  # <= 6! x 5! candidates
        return None
    sigma, c = found
    hi_in, hi_out = list(range(li, n)), list(range(lo, n))
    best: tuple[int, tuple | None] = (_cost(sigma, c), None)
    for p_in in permutations(hi_in):
        a_in = dict(zip(hi_in, p_in))
        inv = {v: k for k, v in a_in.items()}
        for p_out in permutations(hi_out):
            a_out = dict(zip(hi_out, p_out))
            s2 = tuple(a_out.get(sigma[inv.get(j, j)], sigma[inv.get(j, j)]) for j in range(n))
            rest = _affine(c, a_out, 0)
            c_out = sum(1 << t for t in hi_out if rest >> t & 1)
            rest ^= c_out
            back = {v: k for k, v in enumerate(s2)}
            c_in = sum(1 << back[t] for t in range(n) if rest >> t & 1 and back[t] >= li)
            rest ^= _image(c_in, s2)
            cost = _cost(s2, rest)
            if cost < best[0]:
                best = (cost, ((a_in, c_in), (a_out, c_out)))
    return best[1]


class _Emit:
    """New ops appended after the function's own (moved into place by ``run``), with a cost tally."""

    def __init__(self, base: int, origin):
        self.ops: list[Op] = []
        self.base, self.origin, self.cost = base, origin, 0

    def op(self, code: str, width: int, *args: int, imm: tuple = (), cost: int = 1) -> int:
        self.ops.append(Op(code, width, tuple(args), imm, self.origin))
        self.cost += cost
        return self.base + len(self.ops) - 1

    def const(self, value: int, width: int) -> int:
        return self.op("const", width, imm=(value,), cost=0)


def _rewrite(
    fn: Function, tables: dict[str, Table], f: list[Form | None], g: Group, base: int
) -> tuple[_Emit, dict[int, int]] | None:
    """The group's network as new ops (ids from ``base``) and frontier value -> new value; None if it does not apply."""
    fo = {o: _form(f, o) for o in g.frontier}
    used = [x for o in g.frontier for x in fo[o] if x is not None]
    if len(used) != len(set(used)) or any(fn.ops[s].width > WORD for s in g.sources):
        return None
    bits = {s: sorted(b for t, b in used if t == s) for s in g.sources}
    placed_in = _place([(bits[s][0], bits[s][-1]) for s in g.sources])
    out_spans = [
        (min(i for i, x in enumerate(fo[o]) if x), max(i for i, x in enumerate(fo[o]) if x)) for o in g.frontier
    ]
    placed_out = _place(out_spans)
    if placed_in is None or placed_out is None:
        return None
    in_off, out_off = placed_in, placed_out
    spans_in = [bits[s][-1] - bits[s][0] + 1 for s in g.sources]
    spans_out = [hi - lo + 1 for lo, hi in out_spans]

    def mapping() -> tuple[list[tuple[int, int]], int]:
        pos_in = {(s, b): in_off[k] + b - bits[s][0] for k, s in enumerate(g.sources) for b in bits[s]}
        pairs = []
        for k, o in enumerate(g.frontier):
            lo = out_spans[k][0]
            pairs += [(pos_in[x], out_off[k] + i - lo) for i, x in enumerate(fo[o]) if x is not None]
        return pairs, 1 if max(max(p, q) for p, q in pairs) < WORD else 2

    pairs, words = mapping()
    n = 5 if words == 1 else 6
    found = bpc(pairs, n)
    if found is None:
        return None
    moved = relabel(found, n, spans_in, spans_out)
    if moved is not None:  # the sources' and outputs' order is free: it absorbs what it can of the network
        in_off = [_affine(o, *moved[0]) for o in in_off]
        out_off = [_affine(o, *moved[1]) for o in out_off]
        pairs, words = mapping()
        found = bpc(pairs, n)
        assert found is not None
    e = _Emit(base, fn.ops[g.frontier[0]].origin)
    # pack
    packed = []
    for w in range(words):
        acc: int | None = None
        for k, s in enumerate(g.sources):
            if in_off[k] // WORD != w:
                continue
            lo, hi = bits[s][0], bits[s][-1]
            src = fn.ops[s]
            y = s if src.width == WORD else e.op("zext", WORD, s, cost=0)
            if lo:
                y = e.op("shr", WORD, y, imm=(lo,))
            if _live(src, tables) >> (hi + 1):  # bits above the span would land on the next source's
                y = e.op("and", WORD, y, e.const(mask(hi - lo + 1), WORD))
            if in_off[k] % WORD:
                y = e.op("shl", WORD, y, imm=(in_off[k] % WORD,))
            acc = y if acc is None else e.op("or", WORD, acc, y)
        packed.append(acc if acc is not None else e.const(0, WORD))
    W = WORD * words
    if words == 2:  # the u64 interface idiom (free on register pairs, wide.py)
        lo64 = e.op("zext", W, packed[0], cost=0)
        hi64 = e.op("shl", W, e.op("zext", W, packed[1], cost=0), imm=(WORD,), cost=0)
        x = e.op("or", W, lo64, hi64, cost=0)
    else:
        x = packed[0]
    # network
    for d, m in swaps(*found, n):
        if d == WORD:  # swapping the two words: renaming
            x = e.op("rotl", W, x, imm=(WORD,), cost=0)
            continue
        wc = words
        t = e.op("and", W, e.op("xor", W, e.op("shr", W, x, imm=(d,), cost=wc), x, cost=wc), e.const(m, W), cost=0)
        x = e.op("xor", W, e.op("xor", W, x, t, cost=wc), e.op("shl", W, t, imm=(d,), cost=wc), cost=0)
    # unpack
    halves = (
        [x]
        if words == 1
        else [e.op("trunc", WORD, x, cost=0), e.op("trunc", WORD, e.op("shr", W, x, imm=(WORD,), cost=0), cost=0)]
    )
    new = {}
    for k, o in enumerate(g.frontier):
        lo, hi = out_spans[k]
        v = halves[out_off[k] // WORD]
        sh = out_off[k] % WORD - lo
        if sh > 0:
            v = e.op("shr", WORD, v, imm=(sh,))
        elif sh < 0:
            v = e.op("shl", WORD, v, imm=(-sh,))
        keep = sum(1 << i for i, b in enumerate(fo[o]) if b is not None)
        v = e.op("and", WORD, v, e.const(keep, WORD))
        w = fn.ops[o].width
        new[o] = v if w == WORD else e.op("trunc", w, v, cost=0)
    return e, new


def run(fn: Function, tables: dict[str, Table]) -> Function:
    """``fn`` with every qualifying gather group as a delta-swap network (see the module docstring)."""
    f = forms(fn, tables)
    users_min: dict[int, int] = {}
    for i, op in enumerate(fn.ops):
        for a in op.args:
            users_min.setdefault(a, i)
    plans = []
    base = len(fn.ops)  # new ops' ids until they are spliced in: past every old id, distinct per group
    for g in groups(fn, f):
        at = max(g.sources)
        if any(users_min.get(o, len(fn.ops)) <= at for o in g.frontier):
            continue  # a frontier value read before the last source: no single insertion point
        res = _rewrite(fn, tables, f, g, base)
        if res is None or res[0].cost > KEEP * g.old_ops:
            continue
        plans.append((at, g, res))
        base += len(res[0].ops)
    if not plans:
        return fn
    return dce.run(_splice(fn, plans), tables)


def _splice(fn: Function, plans) -> Function:
    """The function with each plan's ops inserted after its last source and its frontier uses redirected."""
    after: dict[int, list] = {}
    for at, _g, (e, new) in plans:
        after.setdefault(at, []).append((e, new))
    remap: dict[int, int] = {}
    ops: list[Op] = []
    redirect: dict[int, int] = {}  # old frontier id -> its value in the new list
    for i, op in enumerate(fn.ops):
        ops.append(Op(op.code, op.width, tuple(_use(a, remap, redirect) for a in op.args), op.imm, op.origin))
        remap[i] = len(ops) - 1
        for e, new in after.get(i, []):
            base = len(ops)
            local = {e.base + k: base + k for k in range(len(e.ops))}
            for nop in e.ops:
                ops.append(
                    Op(
                        nop.code,
                        nop.width,
                        tuple(local[a] if a in local else remap[a] for a in nop.args),
                        nop.imm,
                        nop.origin,
                    )
                )
            for o, v in new.items():
                redirect[o] = local[v]
    return fn.copy_with(ops, [(n, _use(v, remap, redirect)) for n, v in fn.outputs])


def _use(a: int, remap: dict[int, int], redirect: dict[int, int]) -> int:
    return redirect[a] if a in redirect else remap[a]
