"""Register allocation for straight-line machine code: Belady's furthest-next-use with rematerialisation.

A kernel body is one basic block (rounds are unrolled), so the allocator knows every future use and
evicts the value whose next use is furthest away — optimal for spill count on straight-line code when
all reloads cost the same.  Values with a ``remat`` recipe (round keys, constants, table slices) are
evicted first and never stored: they are reloaded from where they came from.  Other values spill to
16-byte stack slots once (SSA: a slot stays valid) and are reloaded before their next use.

    before (3 physical registers):  a = ld k0;  b = ld k1;  c = eor a, b;  d = add c, a;  st d
    after:  v0 = ld k0;  v1 = ld k1;  v2 = eor v0, v1;  v1 = add v2, v0;  st v1   (b's register reused)

Register lists (``group_uses``/``group_defs``) get consecutive registers; ``tied`` uses share the def's
register (a copy is made first when the tied value is still needed).  The target supplies the few
instructions the allocator inserts (spill store, reload, move).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from .mir import Instr, VReg

INF = 1 << 60


@dataclass
class TargetHooks:
    spill: Callable[[VReg, int], Instr]  # store vreg (in its register) to slot
    reload: Callable[[VReg, int], Instr]  # load vreg from slot into its register
    move: Callable[[VReg, VReg], Instr]  # dst vreg <- src vreg (a register copy)
    new_vreg: Callable[[str], VReg]


@dataclass
class Allocation:
    code: list[tuple[Instr, dict]] = field(default_factory=list)  # each instruction with its register map
    used: set[int] = field(default_factory=set)
    slots: int = 0
    spills: int = 0
    reloads: int = 0
    remats: int = 0
    moves: int = 0


class _State:
    def __init__(self, instrs: list[Instr], pregs: list[int], hooks: TargetHooks):
        self.instrs = instrs
        self.pregs = pregs
        self.allowed = set(pregs)
        self.hooks = hooks
        self.loc: dict[VReg, int] = {}
        self.occ: dict[int, VReg] = {}
        self.slot: dict[VReg, int] = {}
        self.free_slots: list[int] = []
        self.out = Allocation()
        self.uses: dict[VReg, list[int]] = {}
        self.hint_base: dict[int, int] = {}  # id(group tuple) -> chosen base register
        for i, ins in enumerate(instrs):
            for v in _all_uses(ins):
                self.uses.setdefault(v, []).append(i)

    # ------------------------------------------------------------------ helpers
    def next_use(self, v: VReg, pos: int) -> int:
        lst = self.uses.get(v, ())
        k = bisect_right(lst, pos)
        return lst[k] if k < len(lst) else INF

    def emit(self, ins: Instr, regs: dict):
        self.out.code.append((ins, regs))
        self.out.used.update(regs.values())

    def place(self, v: VReg, p: int):
        self.loc[v] = p
        self.occ[p] = v

    def release(self, v: VReg):
        p = self.loc.pop(v, None)
        if p is not None and self.occ.get(p) is v:
            del self.occ[p]

    def evict(self, v: VReg, pos: int, stream: int):
        """Takes v out of its register, storing it first when it has no other way back."""
        p = self.loc[v]
        if self.next_use(v, pos - 1) < INF and v.remat is None and v not in self.slot:
            s = self.free_slots.pop() if self.free_slots else self._new_slot()
            self.slot[v] = s
            ins = self.hooks.spill(v, s)
            ins.stream = stream
            self.emit(ins, {v: p})
            self.out.spills += 1
        self.release(v)

    def _new_slot(self) -> int:
        self.out.slots += 1
        return self.out.slots - 1

    def victim_cost(self, v: VReg, pos: int) -> float:
        d = self.next_use(v, pos - 1)
        if d == INF:
            return INF
        return (d - pos) * (4 if v.remat is not None or v in self.slot else 1)

    def take_reg(self, pos: int, protect: set, stream: int, prefer: list[int] | None = None) -> int:
        for p in (prefer or []) + self.pregs:
            if p in self.allowed and p not in self.occ:
                return p
        cands = [(self.victim_cost(v, pos), -p, p) for p, v in self.occ.items() if v not in protect]
        if not cands:
            raise RuntimeError("register allocation: every register is needed by one instruction")
        _, _, p = max(cands)
        self.evict(self.occ[p], pos, stream)
        return p

    def take_window(self, n: int, pos: int, protect: set, stream: int) -> int:
        """A base b with b..b+n-1 all free (evicting the cheapest set of occupants)."""
        best = None
        for b in range(0, 33 - n):
            window = range(b, b + n)
            if not all(p in self.allowed for p in window):
                continue
            occupants = [self.occ[p] for p in window if p in self.occ]
            if any(v in protect for v in occupants):
                continue
            cost = sum(1.0 / (1 + self.victim_cost(v, pos)) for v in occupants)
            key = (cost, self.pregs.index(b))
            if best is None or key < best[0]:
                best = (key, b)
        if best is None:
            raise RuntimeError(f"register allocation: no {n} consecutive registers free")
        b = best[1]
        for p in range(b, b + n):
            if p in self.occ:
                self.evict(self.occ[p], pos, stream)
        return b

    def bring(self, v: VReg, p: int, pos: int, stream: int):
        """Makes v live in register p (free) by moving, reloading or rematerialising it."""
        if v in self.loc:
            ins = self.hooks.move(v, v)
            ins.stream = stream
            self.emit(ins, {"dst": p, v: self.loc[v]})
            self.out.moves += 1
            self.release(v)
            self.place(v, p)
            return
        if v in self.slot:
            ins = self.hooks.reload(v, self.slot[v])
            ins.stream = stream
            self.emit(ins, {v: p})
            self.out.reloads += 1
            self.place(v, p)
            return
        if v.remat is None:
            raise RuntimeError(f"register allocation: {v} used before it is defined")
        for ins in v.remat(v):
            ins.stream = stream
            self.emit(ins, {v: p})
        self.out.remats += 1
        self.place(v, p)


def _all_uses(ins: Instr) -> list[VReg]:
    seen = []
    for v in list(ins.uses) + list(ins.extra.get("group_uses", ())):
        if v not in seen:
            seen.append(v)
    return seen


def allocate(instrs: list[Instr], pregs: list[int], hooks: TargetHooks) -> Allocation:
    """pregs: the allocatable physical registers in preference order."""
    st = _State(instrs, pregs, hooks)
    group_hint: dict[VReg, tuple] = {}
    for ins in instrs:
        g = ins.extra.get("group_uses")
        if g:
            for k, v in enumerate(g):
                group_hint.setdefault(v, (g, k))
    for pos, ins in enumerate(instrs):
        s = ins.stream
        uses = _all_uses(ins)
        protect = set(uses)
        # 1. register lists read by this instruction
        g = ins.extra.get("group_uses")
        if g and not all(v in st.loc and st.loc[v] == st.loc[g[0]] + k for k, v in enumerate(g)):
            group_remat = ins.extra.get("group_remat")
            if group_remat is not None and any(v not in st.loc for v in g):
                for v in g:
                    st.release(v)
                b = st.take_window(len(g), pos, protect - set(g), s)
                for load in group_remat():
                    load.stream = s
                    st.emit(load, {v: b + k for k, v in enumerate(g)})
                st.out.remats += 1
                for k, v in enumerate(g):
                    st.place(v, b + k)
            else:
                b = st.take_window(len(g), pos, protect - set(g), s)
                for k, v in enumerate(g):
                    if st.loc.get(v) != b + k:
                        st.bring(v, b + k, pos, s)
        # 2. ordinary uses
        for v in ins.uses:
            if v not in st.loc:
                p = st.take_reg(pos, protect, s)
                st.bring(v, p, pos, s)
        regs = {v: st.loc[v] for v in uses}
        # 3. a tied use keeps living: copy it so the instruction may overwrite the copy
        tied_reg = None
        if ins.tied is not None:
            if st.next_use(ins.tied, pos) < INF:
                p = st.take_reg(pos, protect, s)
                ins_mv = hooks.move(ins.tied, ins.tied)
                ins_mv.stream = s
                st.emit(ins_mv, {"dst": p, ins.tied: st.loc[ins.tied]})
                st.out.moves += 1
                tied_reg = p
            else:
                tied_reg = st.loc[ins.tied]
        # 4. uses that die here free their registers (sources are read before the result is written)
        for v in uses:
            if st.next_use(v, pos) == INF:
                st.release(v)
                if v in st.slot:
                    st.free_slots.append(st.slot.pop(v))
        if tied_reg is not None and tied_reg in st.occ:  # the tied value lives on in its own register
            pass
        # 5. results
        gd = ins.extra.get("group_defs")
        if gd:
            b = st.take_window(len(gd), pos + 1, set(), s)
            for k, v in enumerate(gd):
                st.place(v, b + k)
                regs[v] = b + k
        for k, v in enumerate(ins.defs):
            if gd and v in gd:
                continue
            if k == 0 and tied_reg is not None:
                if tied_reg in st.occ:
                    st.evict(st.occ[tied_reg], pos + 1, s)
                p = tied_reg
            else:
                prefer = []
                if v in group_hint:
                    grp, kk = group_hint[v]
                    base = st.hint_base.get(id(grp))
                    if base is None:
                        base = _free_window(st, len(grp))
                        if base is not None:
                            st.hint_base[id(grp)] = base
                    if base is not None:
                        prefer = [base + kk]
                p = st.take_reg(pos + 1, set(regs) | set(ins.defs), s, prefer)
            st.place(v, p)
            regs[v] = p
        st.emit(ins, regs)
        for v in ins.defs:  # results nobody reads
            if st.next_use(v, pos) == INF:
                st.release(v)
    return st.out


def _free_window(st: _State, n: int) -> int | None:
    for b in range(0, 33 - n):
        if all(p in st.allowed and p not in st.occ for p in range(b, b + n)):
            return b
    return None
