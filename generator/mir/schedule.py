"""List scheduling of a dataflow DAG for a register file: one order function for every backend.

A backend hands a DAG (nodes, the values each reads, which values sit in registers) and gets a valid
topological order back.  Two regimes, one greedy list scheduler:

* ``limit=None`` (pressure only; the CUDA bitsliced kernels, where ptxas schedules latency itself): among
  the ready nodes emit first the one that frees the most registers (operands it is the last reader of) for
  the registers it takes (one, if anything reads its result); ties keep the original order, so unrelated
  work keeps its locality.  AES's last round on CUDA: each S-box output's final XOR right after its inputs
  instead of all sixteen S-boxes first (270 live planes at the peak before, flat after).
* ``limit=R`` (register-pressure-aware latency scheduling; the NEON kernels, where nobody reorders after
  us): while fewer than R - ``margin`` values are live, emit the ready node with the longest path to the
  end (``height``: latency-weighted), so independent chains overlap -- an S-box of one byte starts while the
  diffusion XORs of the next byte are still being computed; once the live count nears R, the pressure rule
  above takes over and the order drains registers before it opens new live ranges.

    before (spec order, R = 4):  a = x0^k0; b = x1^k1; c = x2^k2; d = x3^k3; e = a&b; f = c&d; g = e^f
    pressure order:             a, b, e, c, d, f, g      (3 live at the peak instead of 4)

    order(nodes, operands, registers, keep, limit=None, height=None, margin=2) -> the nodes, reordered
    live_peak(order, operands, registers, keep) -> the most values live at once in that order
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable


def order(
    nodes: list[int],
    operands: dict[int, tuple[int, ...]],
    registers: set[int],
    keep: Iterable[int],
    limit: int | None = None,
    height: dict[int, float] | None = None,
    margin: int = 2,
    after: dict[int, tuple[int, ...]] | None = None,
) -> list[int]:
    """``nodes`` in a valid order (each after its operands that are nodes); ``operands[n]``: the values n
    reads (nodes or other values: inputs, constants); ``registers``: values held in registers -- the others
    (constants, memory operands) cost nothing; ``keep``: values live after the last node (outputs);
    ``limit``: registers available (None: pressure only); ``height``: priority of a node when there is room
    (its latency-weighted path to the end; default 0); ``after[n]``: nodes n must follow that are no values
    it reads (side effects: a store after the previous store)."""
    pos = {n: i for i, n in enumerate(nodes)}
    users: dict[int, list[int]] = {}
    remaining: dict[int, int] = {}
    for n in nodes:
        for v in set(operands[n]):
            users.setdefault(v, []).append(n)
            remaining[v] = remaining.get(v, 0) + 1
    for v in keep:
        remaining[v] = remaining.get(v, 0) + 1
    waiting = {n: sum(1 for v in set(operands[n]) if v in pos) for n in nodes}
    for n, prev in (after or {}).items():
        for p in set(prev) - set(operands[n]):
            users.setdefault(p, []).append(n)
            waiting[n] += 1
    h = height or {}
    live = sum(1 for v in registers if v not in pos and remaining.get(v, 0))  # inputs read later

    def score(n: int) -> int:
        freed = sum(1 for v in set(operands[n]) if v in registers and remaining[v] == 1)
        takes = 1 if n in registers and remaining.get(n, 0) else 0
        return freed - takes

    def pressure_key(n: int) -> tuple:
        return (-score(n), pos[n], n)

    def height_key(n: int) -> tuple:
        return (-h.get(n, 0), -score(n), pos[n], n)

    # two lazy heaps over the ready nodes: by pressure, and (with a budget) by height while there is room;
    # an entry whose key went stale (an operand lost readers) is pushed again with its current key
    heaps: list[tuple[list, object]] = [([], pressure_key)] + ([([], height_key)] if limit is not None else [])

    def push(n: int) -> None:
        for heap, k in heaps:
            heapq.heappush(heap, k(n))  # type: ignore[operator]

    done: set[int] = set()
    out: list[int] = []
    for n in nodes:
        if not waiting[n]:
            push(n)
    while len(out) < len(nodes):
        room = limit is not None and live < limit - margin
        heap, k = heaps[1] if room else heaps[0]
        if not heap:
            break
        entry = heapq.heappop(heap)
        n = entry[-1]
        if n in done:
            continue
        now = k(n)  # type: ignore[operator]
        if now != entry:
            heapq.heappush(heap, now)
            continue
        live -= score(n)  # operands it last reads die, its result is born
        done.add(n)
        out.append(n)
        for v in set(operands[n]):
            remaining[v] -= 1
            if remaining[v] == 1:  # its last reader now frees it: worth more
                for u in users[v]:
                    if u not in done and not waiting[u]:
                        push(u)
        for u in users.get(n, ()):
            waiting[u] -= 1
            if not waiting[u]:
                push(u)
    if len(out) != len(nodes):
        raise AssertionError("schedule order: the graph has a cycle (internal)")
    return out


def live_peak(seq: list[int], operands: dict[int, tuple[int, ...]], registers: set[int], keep: Iterable[int]) -> int:
    """The most register values live at once when the nodes run in ``seq`` (inputs count from the start)."""
    remaining: dict[int, int] = {}
    for n in seq:
        for v in set(operands[n]):
            remaining[v] = remaining.get(v, 0) + 1
    for v in keep:
        remaining[v] = remaining.get(v, 0) + 1
    nodes = set(seq)
    live = {v for v in registers if v not in nodes and remaining.get(v, 0)}
    peak = len(live)
    for n in seq:
        if n in registers and remaining.get(n, 0):
            live.add(n)
        peak = max(peak, len(live))
        for v in set(operands[n]):
            remaining[v] -= 1
            if not remaining[v]:
                live.discard(v)
    return peak
