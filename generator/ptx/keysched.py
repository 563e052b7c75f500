"""The host key schedule as plain C99, straight from the IR (the CUDA library sets keys on the host).

generator/c (the portable C backend) was not in the tree when this was written, so the CUDA
backend emits its own small host key schedule: one typed C statement per IR op, S-boxes as
``static const`` arrays, words read from the key bytes as the spec's ``key`` layout says, round keys
written zero-extended into the flat ``uint32_t`` array (key arrays in declaration order).

    IR:  %7 = rotl.u32 %6, 9           C:  const uint32_t t7 = (uint32_t)((t6 << 9) | (t6 >> 23));  /* lea.cs:17 ... */
"""

from __future__ import annotations

from cipherspec.errors import UsageError
from cipherspec.ir import Function, Module, WordLayout, mask

SYMBOL = {"xor": "^", "and": "&", "or": "|", "add": "+", "sub": "-"}
CTYPE = {8: "uint8_t", 16: "uint16_t", 32: "uint32_t", 64: "uint64_t"}


def read_words(layout: WordLayout, src: str) -> list[str]:
    """C expressions for each word of ``layout`` read from byte pointer ``src``."""
    nb = layout.width // 8
    out = []
    for j in range(layout.count):
        terms = []
        for t in range(nb):
            sig = t if layout.endian == "little" or nb == 1 else nb - 1 - t
            terms.append(f"((uint64_t){src}[{j * nb + t}] << {8 * sig})")
        out.append(f"({CTYPE[layout.width]})({' | '.join(terms)})")
    return out


def function_c(fn: Function, inputs: dict[str, str], outputs: dict[str, str], tables: str = "T_") -> list[str]:
    """Statements computing ``fn``: inputs bound to C expressions, outputs assigned to lvalues."""
    lines = []
    for v, op in enumerate(fn.ops):
        ty, w = CTYPE[op.width], op.width
        a = [f"t{x}" for x in op.args]
        code = op.code
        if code == "input":
            expr = inputs[op.imm[0]]
        elif code == "const":
            expr = f"{op.imm[0]:#x}u"
        elif code in ("xor", "and", "or", "add", "sub"):
            expr = f"{a[0]} {SYMBOL[code]} {a[1]}"
        elif code == "not":
            expr = f"~{a[0]}"
        elif code == "shl":
            expr = f"{a[0]} << {op.imm[0]}"
        elif code == "shr":
            expr = f"{a[0]} >> {op.imm[0]}"
        elif code == "rotl":
            k = op.imm[0]
            expr = f"({a[0]} << {k}) | ({a[0]} >> {w - k})"
        elif code == "lut":
            expr = f"{tables}{op.imm[0]}[{a[0]}]"
        elif code in ("zext", "trunc"):
            expr = a[0]
        else:
            raise UsageError(f"host key schedule: no C for opcode {code}")
        if w < 32 and code not in ("input", "const", "lut", "zext", "trunc"):
            expr = f"({expr}) & {mask(w):#x}u"
        where = f" /* %{v} {code} @ {op.origin} */" if op.origin else f" /* %{v} {code} */"
        lines.append(f"const {ty} t{v} = ({ty})({expr});{where}")
    for name, v in fn.outputs:
        lines.append(f"{outputs[name]} = t{v};")
    return lines


def key_schedule_c(module: Module, fname: str, rk_index: dict[str, int]) -> str:
    """A C function ``static void fname(const uint8_t *key, uint32_t *rk)``."""
    fn = module.functions["key_schedule"]
    words = read_words(module.key, "key")
    names = [n for n, _, _ in fn.inputs()]
    inputs = dict(zip(names, words))
    outs = {n: f"rk[{rk_index[n]}]" for n, _ in fn.outputs}
    body = "\n    ".join(function_c(fn, inputs, outs))
    return f"static void {fname}(const uint8_t *key, uint32_t *rk)\n{{\n    {body}\n}}\n"


def tables_c(module: Module, prefix: str = "T_") -> str:
    """The tables the key schedule reads, as host arrays."""
    used = {op.imm[0] for op in module.functions["key_schedule"].ops if op.code == "lut"}
    out = []
    for t in module.tables.values():
        if t.name not in used:
            continue
        vals = ", ".join(f"{x:#x}" for x in t.values)
        out.append(f"static const {CTYPE[t.out_width]} {prefix}{t.name}[{len(t.values)}] = {{{vals}}};")
    return "\n".join(out) + ("\n" if out else "")
