"""Register-pressure order: a topological order of a selected dataflow graph that keeps few values live.

The order the IR lists ops in is the spec's: AES's last round computes all sixteen S-boxes and only then
adds the round key, so after LOP3 fusion each S-box output's final XOR waits for the key with two
operands live instead of one result -- 16 more live planes per S-box, 270 at the peak, and ptxas spills.
A greedy list scheduler fixes that without knowing anything about AES: among the ops whose operands are
ready, emit first the one that frees the most registers (operands it is the last reader of) for the
registers it takes (one, if anything reads its result); ties keep the original order, so unrelated work
keeps its locality.

    before: s0 = sbox0(x0..7) -> a0, b0 ... s15 -> a15, b15;  y0 = lop3(a0, b0, k0) ... y127   (peak +8/S-box)
    after:  a0, b0, y0 = lop3(a0, b0, k0), ... (each y right after its a, b)                   (peak flat)

    order(nodes, operands, registers, keep) -> the nodes, reordered
"""

from __future__ import annotations

import heapq


def order(nodes: list[int], operands: dict[int, tuple[int, ...]], registers: set[int], keep: set[int]) -> list[int]:
    """``nodes`` in a valid order (each after its operands that are nodes); ``operands[n]``: the values n
    reads; ``registers``: values (nodes or inputs) held in registers -- the others (constants, memory
    operands) cost nothing; ``keep``: values live after the last node (outputs)."""
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

    def score(n: int) -> int:
        freed = sum(1 for v in set(operands[n]) if v in registers and remaining[v] == 1)
        takes = 1 if n in registers and remaining.get(n, 0) else 0
        return freed - takes

    heap = [(-score(n), pos[n], n) for n in nodes if not waiting[n]]
    heapq.heapify(heap)
    done: set[int] = set()
    out: list[int] = []
    while heap:
        s, _, n = heapq.heappop(heap)
        if n in done:
            continue
        now = -score(n)
        if now != s:  # stale: an operand lost readers since it was pushed
            heapq.heappush(heap, (now, pos[n], n))
            continue
        done.add(n)
        out.append(n)
        for v in set(operands[n]):
            remaining[v] -= 1
            if remaining[v] == 1:  # its last reader now frees it: worth more
                for u in users[v]:
                    if u not in done and not waiting[u]:
                        heapq.heappush(heap, (-score(u), pos[u], u))
        for u in users.get(n, ()):
            waiting[u] -= 1
            if not waiting[u]:
                heapq.heappush(heap, (-score(u), pos[u], u))
    if len(out) != len(nodes):
        raise AssertionError("pressure order: the graph has a cycle (internal)")
    return out
