"""The machine layer for assembly targets (today NEON; any register-allocated target next):

    mir        instructions and virtual registers as Python objects (PeachPy style)
    interleave k independent block streams woven into one straight-line stream (perlasm's trick)
    lutgroups  lookups into one table at one depth batched together (a table loaded once per batch)
    sink       demand-driven op order (short live ranges)
    dce        dead machine instructions after selection folded ops away
    regalloc   Belady allocation with rematerialisation and stack spills, for straight-line code

Nothing here knows a target's syntax beyond the operand classes; the target supplies hooks.
"""
