"""Splitting a long straight-line core into out-of-line pieces, and re-rolling the pieces that repeat.

gcc's scheduling and register allocation are super-linear in one huge function (one 11 000-statement
bitsliced AES core took 19 s), so a core is cut into pieces of bounded size: at the spec's round
boundaries where the statements say their round (``group``), else near every ``size`` statements where the
fewest values are live.  Each piece is a function that reads the values it needs from a slot array ``v``
and writes the ones later pieces need back into it.

The slots are canonical -- at each cut, a value's slot is its position among the live values in the
order the following statements first use them -- so pieces that differ only in variable names and in
which round keys they read are one function (re-rolling what the IR unrolled): AES-128's middle rounds
compile once, not nine times.

    before: static void core(...) { s0; ...; s10999; }
    after:  static void core_r0(const K *kb, const T *s, T *o, T *v) { const T p0 = v[0]; ... v[0] = p97; }
            core(...) { T v[128]; core_r0(ks->bs + 0, s, o, v); core_r1(ks->bs + 128, s, o, v); ...
                        core_r1(ks->bs + 1152, s, o, v); core_r2(ks->bs + 1280, s, o, v); }
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ELEMENT = re.compile(r"^(\w+)\[(\d+)\]$")


@dataclass(frozen=True)
class Stmt:
    text: str  # one line of C, with its indentation and comment
    defs: tuple[str, ...]  # values it defines
    uses: tuple[str, ...]  # values it reads (defined by earlier statements)
    group: object = None  # statements of one group (a round) stay in one piece where possible


@dataclass(frozen=True)
class Piece:
    function: int  # index into Pieces.functions (pieces that repeat share one)
    key_base: int  # the key offset this call passes (0 when the key is not re-based)


@dataclass(frozen=True)
class Pieces:
    functions: list[list[str]]  # each distinct function's body lines
    calls: list[Piece]  # the pieces in order
    slots: int  # size of the slot array
    rebased: bool  # key references rewritten as kb[i] (relative to each call's key_base)


def assignment(line: str, value: re.Pattern, group: object = None) -> Stmt:
    """A printed statement as a Stmt: ``const T a = f(b, c);`` defines the ``value`` names on its left and uses those
    on its right; any other assignment (a store, ``o[3] = a;``) defines nothing.  Its comment is not read.

        assignment("    const uint32_t v7 = v3 ^ rk[4];  /* x.cs:2:1 */", re.compile(r"\\bv\\d+\\b"))
        -> Stmt(text=<the line>, defs=("v7",), uses=("v3",))"""
    lhs, _, rhs = line.split("/*", 1)[0].partition("=")
    defs = tuple(value.findall(lhs)) if lhs.lstrip().startswith("const ") else ()
    return Stmt(line, defs, tuple(value.findall(rhs)), group)


def cuts(stmts: list[Stmt], size: int) -> list[int]:
    """Piece boundaries: at every change of group, and inside a group (or without groups) near every
    ``size`` statements where the fewest values are live."""
    n = len(stmts)
    live = _live_counts(stmts)
    out = [0]
    for i in range(1, n):
        if stmts[i].group != stmts[i - 1].group and stmts[i].group is not None and stmts[i - 1].group is not None:
            out.append(i)
    bounds, result = out + [n], []
    for a, b in zip(bounds, bounds[1:]):
        result.append(a)
        while b - result[-1] > size * 3 // 2:
            lo, hi = result[-1] + size * 3 // 4, min(result[-1] + size * 5 // 4, b - size // 2)
            start = result[-1]
            result.append(min(range(lo, hi + 1), key=lambda i: (live[i], abs(i - start - size))))
    return result


def _live_counts(stmts: list[Stmt]) -> list[int]:
    """live[i]: values defined before statement i and used at i or later."""
    last: dict[str, int] = {}
    for i, s in enumerate(stmts):
        for u in s.uses:
            last[u] = i
    delta = [0] * (len(stmts) + 1)
    for i, s in enumerate(stmts):
        for name in s.defs:
            if last.get(name, -1) > i:
                delta[i + 1] += 1
                delta[last[name] + 1] -= 1
    live: list[int] = []
    acc = 0
    for step in delta:
        acc += step
        live.append(acc)
    return live


def split(
    stmts: list[Stmt], size: int, ctype: str, indent: str = "    ", key: re.Pattern | None = None, order: bool = False
) -> Pieces:
    """Pieces of ``stmts``; values crossing a cut go through ``v`` (of ``ctype``).  At each cut the live
    values take the slots 0, 1, ... in the order the following statements first use them (canonical, so
    that repeated rounds read and write the same slots); a value live across several cuts is carried
    from slot to slot.  ``key``: a pattern whose group 1 indexes the key array (``ks->bs\\[(\\d+)\\]``):
    pieces equal up to names and a key offset become one function over kb = key + offset.  ``order``: each
    piece's statements, loads and stores in demand order (_ordered) rather than loads first, stores last,
    and the values handed on written to a second slot array ``w`` (the caller alternates the two arrays
    between calls), so that no store waits for the read of the slot it overwrites."""
    bounds = cuts(stmts, size) + [len(stmts)]
    pieces = [stmts[a:b] for a, b in zip(bounds, bounds[1:])]
    owner: dict[str, int] = {}
    last: dict[str, int] = {}
    for k, piece in enumerate(pieces):
        for s in piece:
            for d in s.defs:
                owner[d] = k
            for u in s.uses:
                last[u] = k
    uses_at: dict[str, list[int]] = {}
    for i, s in enumerate(stmts):
        for u in s.uses:
            uses_at.setdefault(u, []).append(i)
    live: list[list[str]] = []  # live[k]: the values handed into piece k, in slot order
    for k in range(len(pieces) + 1):
        if k in (0, len(pieces)):
            live.append([])
            continue
        start_k = bounds[k]
        vals = [u for u, o in owner.items() if o < k and last.get(u, -1) >= k]
        live.append(sorted(vals, key=lambda u: (next(i for i in uses_at[u] if i >= start_k), _order(u))))
    bodies = []
    for k, piece in enumerate(pieces):
        used = {u for s in piece for u in s.uses}
        keep = set(live[k + 1])
        slot_in = {u: i for i, u in enumerate(live[k])}
        ins = [u for u in live[k] if u in used or u in keep]
        if order:
            bodies.append(_ordered(ins, slot_in, piece, live[k + 1], ctype, indent))
            continue
        lines = _loads(ins, slot_in, ctype, indent)
        lines += [s.text for s in piece]
        lines += [f"{indent}v[{i}] = {u};" for i, u in enumerate(live[k + 1])]
        bodies.append(lines)
    return _dedup(bodies, key, max([len(x) for x in live] + [1]))


def _ordered(ins: list[str], slot: dict[str, int], piece: list[Stmt], outs: list[str], ctype: str, indent: str):
    """A piece's lines in demand order: from each statement no other one reads (in their order), the
    statements it depends on, depth first, then itself; values read from ``v`` loaded just before
    their first use, each value handed on stored (into ``w``) as soon as it exists.  The C compiler
    keeps the order it is given for the most part, so short live ranges here are what keeps the
    values in registers rather than on the stack.

        before: p0 = v[0]; p1 = v[1]; a = f(p0); b = f(p1); v[0] = a; v[1] = b;
        after:  p0 = v[0]; a = f(p0); w[0] = a; p1 = v[1]; b = f(p1); w[1] = b;
    """
    decls, items = _load_items(ins, slot, ctype, indent)
    producer = {d: i for i, (_, defs, _, _) in enumerate(items) for d in defs}
    for s in piece:
        items.append((s.text, s.defs, s.uses, None))
        producer.update({d: len(items) - 1 for d in s.defs})
    stores: dict[str, list[str]] = {}
    for i, u in enumerate(outs):
        stores.setdefault(u, []).append(f"{indent}w[{i}] = {u};")
    done = [False] * len(items)
    out = list(decls)

    def emit(root: int) -> None:
        stack = [(root, False)]
        while stack:
            i, expanded = stack.pop()
            if done[i]:
                continue
            if not expanded:
                stack.append((i, True))
                stack += [(producer[u], False) for u in reversed(items[i][2]) if u in producer]
                continue
            done[i] = True
            out.append(items[i][0])
            for d in items[i][1]:
                out.extend(stores.pop(d, []))

    consumed = {u for s in piece for u in s.uses}
    first = len(items) - len(piece)
    for i in range(first, len(items)):  # roots: statements no later statement of the piece reads
        if not any(d in consumed for d in items[i][1]):
            emit(i)
    for i in range(first, len(items)):
        emit(i)
    for u in list(stores):  # values passed through (loaded, not used here), in slot order
        if u in producer:
            emit(producer[u])
    assert not stores, stores
    return out


_NAME = re.compile(r"\b([a-z])(\d+)\b")
_COMMENT = re.compile(r"\s*/\*.*?\*/")


def _dedup(bodies: list[list[str]], key: re.Pattern | None, slots: int) -> Pieces:
    """Pieces equal up to variable names and a key offset become one function over kb = key + offset."""
    functions: list[list[str]] = []
    index: dict[tuple, int] = {}
    calls = []
    for body in bodies:
        base = 0
        if key is not None:
            found = [int(m.group(1)) for line in body for m in key.finditer(line.split("/*", 1)[0])]
            base = min(found) if found else 0
            body = [_rebase(line, key, base) for line in body]
        shape = tuple(_canonical(body))
        if shape not in index:
            index[shape] = len(functions)
            functions.append(body)
        calls.append(Piece(index[shape], base))
    return Pieces(functions, calls, slots, key is not None)


def _rebase(line: str, key: re.Pattern, base: int) -> str:
    code, sep, comment = line.partition("/*")
    return key.sub(lambda m: f"kb[{int(m.group(1)) - base}]", code) + sep + comment


def _canonical(body: list[str]) -> list[str]:
    """The body without comments, its local names (p12, x7, r3, a3) renumbered in order of appearance."""
    names: dict[str, str] = {}

    def rename(m):
        tok = m.group(0)
        if tok not in names:
            names[tok] = f"{m.group(1)}#{len(names)}"
        return names[tok]

    return [_NAME.sub(rename, _COMMENT.sub("", line)) for line in body]


def _order(value: str):
    m = _ELEMENT.match(value)
    return (m.group(1), int(m.group(2))) if m else (value, -1)


def _load_items(values: list[str], slot: dict[str, int], ctype: str, indent: str):
    """Live-ins as (declarations, [(line, defs, uses, slot read)]), one item per value (see _loads)."""
    decls: list[str] = []
    items: list[tuple[str, tuple[str, ...], tuple[str, ...], int | None]] = []
    sizes: dict[str, int] = {}
    for value in values:
        m = _ELEMENT.match(value)
        if m:
            sizes[m.group(1)] = max(sizes.get(m.group(1), 0), int(m.group(2)) + 1)
            items.append((f"{indent}{value} = v[{slot[value]}];", (value,), (), slot[value]))
        else:
            items.append((f"{indent}const {ctype} {value} = v[{slot[value]}];", (value,), (), slot[value]))
    decls += [f"{indent}{ctype} {name}[{size}];" for name, size in sizes.items()]
    return decls, items


def _loads(values: list[str], slot: dict[str, int], ctype: str, indent: str) -> list[str]:
    """Live-ins: a scalar value as a const local, array elements into a local array of the same name."""
    lines: list[str] = []
    arrays: dict[str, list[tuple[int, int]]] = {}
    for value in values:
        m = _ELEMENT.match(value)
        if m:
            arrays.setdefault(m.group(1), []).append((int(m.group(2)), slot[value]))
        else:
            lines.append(f"{indent}const {ctype} {value} = v[{slot[value]}];")
    for name, elements in arrays.items():
        size = max(i for i, _ in elements) + 1
        lines.append(f"{indent}{ctype} {name}[{size}];")
        lines += [f"{indent}{name}[{i}] = v[{s}];" for i, s in elements]
    return lines
