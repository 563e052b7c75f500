"""Key-only work of encrypt moves into the key schedule: every value of encrypt that depends on round keys
alone (and is not a round key itself) becomes a word of a new key array ``D``, computed once per key.

    before: key_schedule(K) -> rk      encrypt: %3 = zext.u32 rk[1][0]   %4 = shl.u32 %3, 8   %5 = xor %2, %4
    after:  key_schedule(K) -> rk, D   (D[0] = zext(rk[1][0]) << 8, its ops appended to the key schedule)
            encrypt: %3 = input.u32 "D[0]"   %5 = xor %2, %3

The split is hoist_uniform's, with the round keys as the uniform inputs.  It pays where a backend's
passes left key-only work in the cipher (T-tables pack a column's round-key bytes into a word: 36 words of
AES-128, 7 operations each per block, now once per key).  decrypt is left as it is.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Function, KeyArray, Module
from . import hoist_uniform

ARRAY = "D"


def run_module(module: Module) -> Module:
    ks = module.functions["key_schedule"]
    keys = {n for ka in module.key_arrays for n in ka.flat_names()}
    enc = module.functions["encrypt"]
    split = hoist_uniform.split(enc, keys, prefix=ARRAY)
    if not split.frontier or ARRAY in {ka.name for ka in module.key_arrays}:
        return module
    # the key schedule, then pre's ops with its round-key inputs wired to the key schedule's outputs
    out_of = dict(ks.outputs)
    ops = list(ks.ops)
    index: dict[int, int] = {}
    for i, op in enumerate(split.pre.ops):
        if op.code == "input":
            index[i] = out_of[op.imm[0]]
            continue
        ops.append(replace(op, args=tuple(index[a] for a in op.args)))
        index[i] = len(ops) - 1
    widths = {split.pre.ops[v].width for _, v in split.pre.outputs}
    if len(widths) != 1:
        return module  # one key array has one width
    outputs = list(ks.outputs) + [(n, index[v]) for n, v in split.pre.outputs]
    schedule = Function(ks.name, ops, outputs)
    array = KeyArray(ARRAY, widths.pop(), (len(split.pre.outputs),))
    uses = dict(module.uses_keys)
    if "encrypt" in uses:
        uses["encrypt"] = tuple(uses["encrypt"]) + (ARRAY,)
    functions = dict(module.functions, key_schedule=schedule, encrypt=split.main)
    return replace(module, functions=functions, key_arrays=list(module.key_arrays) + [array], uses_keys=uses)
