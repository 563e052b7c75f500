"""The NEON target's IR passes: the module as instruction selection sees it.

prepare(module)        -> module with gmul lowered, wide values split, masked rotations as shifts
neon_passes(module)    -> (Pass("lower_gmul"), ..., constfold, cse, dce)  or ()  when none applies
"""

from __future__ import annotations

from cipherspec.ir import Module
from cipherspec.passes import constfold, cse, dce, lower_gmul, mask_rotate, split_wide
from cipherspec.pipeline import Pass, run_passes

CLEANUP = (Pass("constfold", constfold.run), Pass("cse", cse.run), Pass("dce", dce.run))


def neon_passes(module: Module) -> tuple[Pass, ...]:
    """The NEON target's passes, each only where the spec needs it, then a clean-up: gmul has no NEON
    instruction (lowered to xtime chains); a lane holds one block word, so values wider than the block
    words become limbs of the word width (split_wide); a rotation masked to one of its halves becomes
    that shift (mask_rotate: a bit permutation's masked rotations).  Any other spec compiles the shared
    IR as it is."""
    passes = []
    if any(op.code == "gmul" for fn in module.functions.values() for op in fn.ops):
        passes.append(Pass("lower_gmul", lower_gmul.run))
    if split_wide.wide_values(module):
        passes.append(Pass("split_wide", run_module=split_wide.run_module))
    if any(mask_rotate.applies(fn) for fn in module.functions.values()):  # a rotation is SHL + SRI here
        passes.append(Pass("mask_rotate", mask_rotate.run))
    return tuple(passes) + CLEANUP if passes else ()


def prepare(module: Module) -> Module:
    """The module after the NEON passes (what isel sees); a module needing none is returned as it is, so
    preparing twice costs nothing."""
    return run_passes(module, neon_passes(module))
