"""Round keys in groups: four key-table vectors per ``LD1`` through a pointer walking the table, where the
kernel reads the key table in order (encryption, CTR), instead of one ``LDR`` (or half an ``LDP``) each.

Key vregs are rematerialisable (isel: ``ldr qK, [x0, #16·slot]`` before a use); this pass gives each
aligned group of four slots one explicit load, placed before the first use of any of its keys.  The loads
keep table order (the pointer post-increments by 64), so the pass applies only when the groups' first
uses come in that order and every group is read; otherwise the code is returned as it is.  A key evicted
later is still reloaded by its LDR recipe.

    before:  ldr q3, [x0, #0] ; eor ... ; ldr q3, [x0, #16] ; eor ... ; ldr q3, [x0, #32] ; ...   (per key)
    after:   mov x10, x0 ; ... ; ld1 {v3.16b-v6.16b}, [x10], #64 ; eor ... ; eor ... ; eor ...  (per 4 keys)
"""

from __future__ import annotations

from ..mir.mir import Instr, Text, VecList, VReg

GROUP = 4  # vectors per LD1 (its largest register list)


def run(code: list[Instr], keys: dict[VReg, int], ptr: str) -> list[Instr] | None:
    """code with grouped key loads through ``ptr`` (a free GPR, reset from x0 at the top of the body), or
    None when the key table is not read in group order."""
    if not keys:
        return None
    first: dict[VReg, int] = {}
    for n, ins in enumerate(code):
        for v in list(ins.uses) + list(ins.extra.get("group_uses", ())):
            if v in keys and v not in first:
                first[v] = n
    by_slot = {s: v for v, s in keys.items()}
    groups = (max(by_slot) // GROUP) + 1
    at: list[int] = []
    members: list[tuple[VReg, ...]] = []
    for g in range(groups):
        vs = tuple(by_slot.get(s) for s in range(GROUP * g, GROUP * g + GROUP))
        used = [first[v] for v in vs if v is not None and v in first]
        if not used or any(v is None for v in vs):
            return None  # a slot without a vreg (or a group nobody reads): the walk would skip it
        at.append(min(used))
        members.append(vs)  # type: ignore[arg-type]
    if any(b <= a for a, b in zip(at, at[1:])):
        return None
    loads: dict[int, Instr] = {}
    for g, vs in enumerate(members):
        loads[at[g]] = Instr(
            "ld1",
            (VecList(vs, "16b"), Text(f"[{ptr}]"), Text(f"#{16 * GROUP}")),
            defs=vs,
            kind="op",
            origin="round keys " + ", ".join(v.name for v in vs),
            stream=code[at[g]].stream,
            extra={"group_defs": vs},
        )
    out = [Instr(f"mov {ptr}, x0", (), kind="raw", origin="walk the round keys")]
    for n, ins in enumerate(code):
        if n in loads:
            out.append(loads[n])
        out.append(ins)
    return out
