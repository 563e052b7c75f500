"""Key-only work moves to set_key: every op of a lowered core that depends on round keys alone (a key byte
replicated into four lanes, a key bit spread over a plane) is computed once per key on the host and
stored in the round-key struct after the key schedule's words, as derived words D[k].

    before (core):  %1 = input rk[3]   %2 = shl %1, 8   %3 = or %1, %2  ...  %9 = xor %8, %5
    after  (core):  %1 = input D[0]                                           %9 = xor %8, %1
           (host, derive):  D[0] = rk[3] | rk[3] << 8 | ...   (keysched.key_section prints it in set_key)

The split is hoist_uniform's with the round keys as the uniform inputs; the encrypt and decrypt parts
are merged (a derived word both need is stored once).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cipherspec.ir import Function
from cipherspec.passes import hoist_uniform

from .irbuild import Builder


@dataclass(frozen=True)
class KeySplit:
    derive: Function  # round-key words -> D[0], D[1], ... (run by set_key)
    cores: dict[str, Function]  # function name -> the core reading D[k] (and no round-key word directly)

    @property
    def count(self) -> int:
        return len(self.derive.outputs)


def split(functions: dict[str, Function], key_names: set[str]) -> KeySplit:
    b = Builder("derive")
    names: dict[int, str] = {}  # builder value id -> derived word name
    cores = {}
    for fname, fn in functions.items():
        h = hoist_uniform.split(fn, key_names, prefix=f"{fname}.H")
        ids: list[int] = []
        for op in h.pre.ops:  # replay pre into the shared builder: equal values get one id
            b.origin = op.origin
            if op.code == "input":
                ids.append(b.input(op.imm[0]))
            elif op.code == "const":
                ids.append(b.const(op.imm[0], op.width))
            else:
                ids.append(b.op(op.code, *(ids[a] for a in op.args), imm=op.imm[0] if op.imm else None, width=op.width))
        rename = {}
        for hname, v in h.pre.outputs:
            vid = ids[v]
            names.setdefault(vid, f"D[{len(names)}]")
            rename[hname] = names[vid]
        ops = [
            replace(op, imm=(rename[op.imm[0]],)) if op.code == "input" and op.imm[0] in rename else op
            for op in h.main.ops
        ]
        cores[fname] = Function(fn.name, ops, list(h.main.outputs))
    derive = b.function([(n, v) for v, n in sorted(names.items(), key=lambda t: int(t[1][2:-1]))])
    return KeySplit(derive, cores)


def reads_keys_directly(fn: Function, key_names: set[str]) -> list[str]:
    """Round-key words a core still reads itself (after the split: those used as they are)."""
    return [op.imm[0] for op in fn.ops if op.code == "input" and op.imm[0] in key_names]
