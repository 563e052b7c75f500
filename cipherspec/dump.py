"""The canonical text form of the IR (what golden tests compare and ``cipherspec dump`` prints).

; lea128 (family lea: nk=4 rounds=24) block u32[4] little, key u32[4] little
func encrypt   ; 29 inputs, 4 outputs, 124 ops
  %0 = input.u32 "X[0]"                          ; lea.cs:31:3 encrypt
  %12 = rotl.u32 %11, 9                          ; lea.cs:33:7 encrypt r0
  out "X[0]" = %12
"""

from __future__ import annotations

from .ir import Function, Module
from .sbox import AffineMap, facts

COMMENT_COLUMN = 48


def _rows(m: AffineMap) -> str:
    return "[" + " ".join(f"{r:02x}" for r in m.rows) + f"] ^ {m.const:#04x}"


def table_facts(values) -> list[str]:
    """The S-box facts of a 4- or 8-bit table as comment lines (none for other tables)."""
    f = facts(values)
    if f is None:
        return []
    lines = [f"  ; {f.describe()}"]
    if f.inversion is not None:
        lines.append(
            f"  ; = out(inv(in(x))), inv mod 0x11b, bit rows: out {_rows(f.inversion.out)}, in {_rows(f.inversion.inp)}"
        )
    return lines


def format_op(vid: int, op, with_origin: bool = True) -> str:
    head = f"%{vid} = {op.code}.u{op.width}"
    parts = [f"%{a}" for a in op.args]
    if op.code == "input":
        parts.append(f'"{op.imm[0]}"')
    elif op.code == "const":
        parts.append(f"{op.imm[0]:#x}")
    elif op.code == "lut":
        parts.append(f"@{op.imm[0]}")
    elif op.code == "gmul":
        parts.append(f"{op.imm[0]:#x} mod {op.imm[1]:#x}")
    else:
        parts.extend(str(i) for i in op.imm)
    text = f"  {head} {', '.join(parts)}".rstrip()
    if with_origin and op.origin is not None:
        text = f"{text:<{COMMENT_COLUMN}} ; {op.origin}"
    return text


def format_function(fn: Function, with_origin: bool = True) -> str:
    n_in = sum(1 for op in fn.ops if op.code == "input")
    lines = [f"func {fn.name}   ; {n_in} inputs, {len(fn.outputs)} outputs, {len(fn.ops) - n_in} ops"]
    lines += [format_op(i, op, with_origin) for i, op in enumerate(fn.ops)]
    lines += [f'  out "{name}" = %{v}' for name, v in fn.outputs]
    return "\n".join(lines)


def format_module(m: Module, functions: tuple[str, ...] | None = None, with_origin: bool = True) -> str:
    params = " ".join(f"{k}={v}" for k, v in m.params.items())
    lines = [f"; {m.cipher} (family {m.family}: {params}) block {m.block}, key {m.key}"]
    for t in m.tables.values():
        derived = f" = inverse(@{t.inverse_of})" if t.inverse_of else ""
        lines.append(f"table @{t.name} u{t.in_width} -> u{t.out_width} [{len(t.values)}]{derived}")
        row = 16
        for i in range(0, len(t.values), row):
            lines.append("  " + " ".join(f"{v:0{t.out_width // 4}x}" for v in t.values[i : i + row]))
        lines += table_facts(t.values)
    for name in functions or tuple(m.functions):
        lines.append(format_function(m.functions[name], with_origin))
    return "\n".join(lines) + "\n"
