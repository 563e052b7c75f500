"""The reference C for the NEON comparison: the cipher's IR rendered as plain scalar C, one block per call.

This is the "straightforward C rendering" of a spec (one statement per IR op, tables as const arrays),
what a portable reference implementation compiles to; clang -O3 for aarch64 then does what it can.

    c_source(module, "encrypt", "ref_encrypt") ->
        void ref_encrypt(const uint32_t *rk, const uint8_t *in, uint8_t *out) { uint32_t v0 = ...; ... }
Round keys come in as the flat word array of the key schedule (uint32 per word; uint64 where a key array
has 64-bit words: rk_ctype).
"""

from __future__ import annotations

from cipherspec.ir import Module

OPS = {"xor": "^", "and": "&", "or": "|", "add": "+", "sub": "-"}
CT = {8: "uint8_t", 16: "uint16_t", 32: "uint32_t", 64: "uint64_t"}


def rk_ctype(module: Module) -> str:
    """The C type of one flat round-key word: uint64_t for 64-bit key arrays, else uint32_t."""
    return CT[64] if any(ka.width == 64 for ka in module.key_arrays) else CT[32]


def c_source(module: Module, fname: str, symbol: str) -> str:
    fn = module.functions[fname]
    flat = [n for ka in module.key_arrays for n in ka.flat_names()]
    kidx = {n: i for i, n in enumerate(flat)}
    blk = module.block
    wb = blk.width // 8
    lines = ["#include <stdint.h>"]
    used = sorted({op.imm[0] for op in fn.ops if op.code == "lut"})
    for t in used:
        tab = module.tables[t]
        lines.append(
            f"static const {CT[tab.out_width]} T_{t}[{len(tab.values)}] = {{"
            + ",".join(str(v) for v in tab.values)
            + "};"
        )
    lines.append(f"void {symbol}(const {rk_ctype(module)} *rk, const uint8_t *in, uint8_t *out) {{")
    states = [n for n, _, _ in fn.inputs() if n not in kidx]
    for k, _name in enumerate(states):
        bytes_ = [
            f"(({CT[blk.width]})in[{k * wb + b}] << {8 * (b if blk.endian == 'little' else wb - 1 - b)})"
            for b in range(wb)
        ]
        lines.append(f"  {CT[blk.width]} s{k} = " + " | ".join(bytes_) + ";")
    sid = {n: k for k, n in enumerate(states)}
    for i, op in enumerate(fn.ops):
        t = CT[op.width]
        a = [f"v{x}" for x in op.args]
        m = (1 << op.width) - 1
        if op.code == "input":
            e = f"({t})rk[{kidx[op.imm[0]]}]" if op.imm[0] in kidx else f"s{sid[op.imm[0]]}"
        elif op.code == "const":
            e = f"({t}){op.imm[0]}u"
        elif op.code in ("xor", "and", "or", "add", "sub"):
            e = f"({t})({a[0]} {OPS[op.code]} {a[1]})"
        elif op.code == "not":
            e = f"({t})~{a[0]}"
        elif op.code == "rotl":
            r = op.imm[0]
            e = f"({t})(({a[0]} << {r}) | ({a[0]} >> {op.width - r}))"
        elif op.code == "shl":
            e = f"({t})({a[0]} << {op.imm[0]})"
        elif op.code == "shr":
            e = f"({t})({a[0]} >> {op.imm[0]})"
        elif op.code == "lut":
            e = f"T_{op.imm[0]}[{a[0]}]"
        elif op.code == "gmul":
            c, poly = op.imm
            e = f"gm_{c}_{poly}({a[0]})"
        elif op.code in ("zext", "trunc"):
            e = f"({t})({a[0]} & {m}u)"
        else:
            raise ValueError(op.code)
        lines.append(f"  {t} v{i} = {e};")
    for k, (_name, v) in enumerate(fn.outputs):
        for b in range(wb):
            sh = 8 * (b if blk.endian == "little" else wb - 1 - b)
            lines.append(f"  out[{k * wb + b}] = (uint8_t)(v{v} >> {sh});")
    lines.append("}")
    gm = sorted({op.imm for op in fn.ops if op.code == "gmul"})
    pre = []
    for c, poly in gm:
        pre.append(
            f"static inline uint8_t gm_{c}_{poly}(uint8_t x) {{ uint8_t r = 0; for (int k = 0; k < 8; k++) {{"
            f" if (({c} >> k) & 1) r ^= x; x = (uint8_t)((x << 1) ^ ((x >> 7) ? {poly & 0xFF} : 0)); }} return r; }}"
        )
    return "\n".join(lines[:1] + pre + lines[1:]) + "\n"
