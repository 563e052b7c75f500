"""The machine layer for assembly targets (today NEON; any register-allocated target next):

    mir        instructions and virtual registers as Python objects (PeachPy style)
    interleave k independent block streams woven into one straight-line stream (perlasm's trick)
    lutgroups  lookups into one table at one depth batched together (a table loaded once per batch)
    sink       demand-driven op order (short live ranges)
    schedule   list scheduling of a DAG for a register file (pressure only, or latency within a budget);
               shared by every backend (NEON machine code, the CUDA bitsliced cores)
    reorder    a selected machine-code body rescheduled with it (loads/stores keep their order)
    dce        dead machine instructions after selection folded ops away
    regalloc   Belady allocation with rematerialisation and stack spills, for straight-line code

Nothing here knows a target's syntax beyond the operand classes; the target supplies hooks.
"""
