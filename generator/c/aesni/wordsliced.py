"""Word-sliced AES-NI/GFNI lowering: any cipher on 16-, 32- or 64-bit words with a 16-byte block whose every
table lookup is an 8-bit S-box affine-equivalent to GF(2^8) inversion (the IR's S-box facts,
cipherspec/sbox.py), applied to the bytes of a word and packed back in place.

Register x_i of copy c holds word i of CS_VBITS/w blocks (one per w-bit lane; the blocks are transposed
in and out with unpack instructions, big-endian words byte-swapped with one PSHUFB), IL copies in flight
so that independent dependency chains hide the latencies.  Every IR op other than the substitution is
the vector dialect's lane-wise operator (dialects.Vector, GCC/Clang vector extensions: VPROLD on AVX-512).
XORs of rotations of one word regroup by the amount mod 8 where the ISA has no vector rotate (rotxor.py).
A substitution -- the pattern ``pack(T0[byte0(w)], T1[byte1(w)], ...)`` of the IR, found by
substitution.py -- is one S-box routine on the whole register (sboxes.py: two GFNI instructions, or
PSHUFB nibble maps around AESENCLAST; different tables on different byte positions merged by byte masks).
Constant-time: no table is indexed by a secret, no branch depends on one.

    before: %9 = trunc.u8 %8   %16 = lut.u8 %15, @S   ...   %29 = or.u32 %26, %28
    after:  const cs_v32 v29_0 = cs_sub_0(v8_0);      (cs_sub_0: S on every byte, GFNI or AES-NI)
"""

from __future__ import annotations

from cipherspec.ir import Function, Module, Table
from cipherspec.sbox import facts

from ..dialects import Vector
from ..text import fragment, key_slots, word_index
from . import rotxor
from .sboxes import bytes16, sbox_routine, substitution_routine
from .sboxes import c_stmt as _c
from .substitution import Group, groups

IL = 4  # copies of the state in flight (SM4 CTR: 4 faster than 2 on gfni_avx512 and vaes_avx2)
ALLOWED = ("input", "const", "xor", "and", "or", "not", "add", "sub", "shl", "shr", "rotl")


def _needed(fn: Function, found: dict[int, Group], rx: dict[int, rotxor.RotXor] | None = None) -> list[int]:
    """The ops the outputs read, a substitution reading only its word, a regrouped XOR of rotations its
    source and other leaves."""
    rx = rx or {}
    seen: set[int] = set()
    stack = [v for _, v in fn.outputs]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in found:
            stack.append(found[v].src)
        elif v in rx:
            stack += [rx[v].src, *rx[v].others]
        else:
            stack += list(fn.ops[v].args)
    return sorted(seen)


def support(module: Module, fn: Function, tables: dict[str, Table]) -> str:
    """'' when ``fn`` lowers word-sliced on the AES/GFNI instructions, else why not."""
    lay = module.block
    if lay.nbytes != 16 or lay.width not in (16, 32, 64):
        return f"word slicing needs a 16-byte block of u16, u32 or u64 words, not {lay}"
    found = groups(fn, lay.width)
    if not found and any(op.code == "lut" for op in fn.ops):
        return f"{fn.name} substitutes no bytes of a u{lay.width} word through a table"
    for name in sorted({t for g in found.values() for t in g.tables}):
        f = facts(tables[name].values)
        if f is None or f.inversion is None:
            return f"table {name} is not affine-equivalent to GF(2^8) inversion"
    for v in _needed(fn, found):
        op = fn.ops[v]
        if v in found:
            continue
        if op.code == "lut":
            return f"a lookup of {op.imm[0]} that is not a byte substitution of a whole word ({op.origin})"
        if op.code not in ALLOWED:
            return f"op {op.code}.u{op.width} in {fn.name} ({op.origin})"
        if op.width != lay.width:
            return f"a u{op.width} value in {fn.name} (words are u{lay.width})"
    return ""


def lanes(module: Module, vector_bits: int) -> int:
    """Blocks per run of the core: IL copies of CS_VBITS / w blocks."""
    return IL * vector_bits // module.block.width


def _unpack_network(regs: list[str], w: int, prefix: str, ind: str) -> tuple[list[str], list[str]]:
    """log2(128/w) stages of unpacks across the registers: a transpose of w-bit elements within every
    16-byte lane (blocks <-> words); returns the statements and the output registers."""
    lines: list[str] = []
    c, s = len(regs), 0
    while (1 << s) < c:
        e = w << s
        pairs = [(regs[2 * j], regs[2 * j + 1]) for j in range(c // 2)]
        nxt = [f"{prefix}{s}_{j}" for j in range(c)]
        what = f"{'block transposition' if prefix.startswith('t') else 'block transposition back'}, stage {s}"
        for j, (a, b) in enumerate(pairs):
            lines.append(_c(f"{ind}const cs_x {nxt[j]} = CS_X_UNPACKLO{e}({a}, {b});", what))
            lines.append(_c(f"{ind}const cs_x {nxt[c // 2 + j]} = CS_X_UNPACKHI{e}({a}, {b});", what))
        regs, s = nxt, s + 1
    return lines, regs


def _network_order(c: int) -> list[int]:
    """Which word (load) or which memory register (store) output k of the network is: bit reversal."""
    bits = c.bit_length() - 1
    return [int(format(k, f"0{bits}b")[::-1], 2) if bits else 0 for k in range(c)]


def _swap(lay) -> str:
    nb = lay.width // 8
    return bytes16([lane * nb + (nb - 1 - j) for lane in range(16 // nb) for j in range(nb)])


def core(
    module: Module, fn: Function, kind: str, subs: dict[tuple[str, ...], int], rots: dict[tuple[int, ...], int]
) -> dict:
    """cs_<kind>_n: CS_LANES blocks (IL copies of CS_VBITS/w) through ``fn``."""
    lay = module.block
    w, c = lay.width, lay.count
    slots = key_slots(module)
    found = groups(fn, w)
    rx = rotxor.find(fn, w, set(found))
    ind = "    "
    order = _network_order(c)
    lines = []
    if lay.endian == "big":
        lines.append(f"{ind}static const uint8_t bswap[16] = {_swap(lay)};  /* big-endian words */")
    for cp in range(IL):
        regs = []
        for k in range(c):
            load = f"CS_X_LOAD(in + {(cp * c + k)} * (CS_VBITS / 8))"
            if lay.endian == "big":
                load = f"CS_X_SHUFFLE({load}, CS_X_BCAST16(bswap))"
            lines.append(_c(f"{ind}const cs_x r{cp}_{k} = {load};", f"copy {cp}: blocks, 16 bytes per lane"))
            regs.append(f"r{cp}_{k}")
        net, outs = _unpack_network(regs, w, f"t{cp}_", ind)
        lines += net
        for k, reg in enumerate(outs):
            lines.append(
                _c(f"{ind}const cs_v{w} x{order[k]}_{cp} = (cs_v{w}){reg};", f"copy {cp}: block word X[{order[k]}]")
            )
    dialect = Vector()
    comment = {vid: (str(op.origin) if op.origin is not None else "(no origin)") for vid, op in enumerate(fn.ops)}
    for vid in _needed(fn, found, rx):
        op = fn.ops[vid]
        for cp in range(IL):
            if vid in rx:
                r = rx[vid]
                expr = f"cs_rotxor_{rots[r.amounts]}(v{r.src}_{cp})"
                for o in r.others:
                    expr = f"CS_V{w}_XOR(v{o}_{cp}, {expr})"
                note = f"{comment[vid]} (XOR of rotations, regrouped)"
            elif vid in found:
                g = found[vid]
                expr = f"cs_sub_{subs[g.tables]}(v{g.src}_{cp})"
                note = f"{comment[vid]} (substitution of the bytes of a word)"
            elif op.code == "input":
                if op.imm[0] in slots:
                    member, idx = slots[op.imm[0]]
                    expr = f"CS_V{w}_SPLAT(ks->{member}[{idx}])"
                else:
                    expr = f"x{word_index(op.imm[0])}_{cp}"
                note = comment[vid]
            elif op.code == "rotl":
                macro = "ROTB" if op.imm[0] % 8 == 0 else "ROTL"
                expr = f"CS_V{w}_{macro}(v{op.args[0]}_{cp}, {op.imm[0]})"
                note = comment[vid]
            else:
                expr = dialect.expr(op, [f"v{a}_{cp}" for a in op.args], {}, [fn.ops[a].width for a in op.args])
                note = comment[vid]
            lines.append(_c(f"{ind}const cs_v{w} v{vid}_{cp} = {expr};", note.replace("*/", "* /")))
    for cp in range(IL):
        outs_w = [f"(cs_x)v{v}_{cp}" for _, v in fn.outputs]
        names = [word_index(n) for n, _ in fn.outputs]
        regs = [outs_w[names.index(i)] for i in range(c)]
        net, outs = _unpack_network(regs, w, f"u{cp}_", ind)
        lines += net
        for k, reg in enumerate(outs):
            val = f"CS_X_SHUFFLE({reg}, CS_X_BCAST16(bswap))" if lay.endian == "big" else reg
            lines.append(
                _c(f"{ind}CS_X_STORE(out + {(cp * c + order[k])} * (CS_VBITS / 8), {val});", f"copy {cp}: blocks back")
            )
    return {
        "name": f"cs_{kind}_n",
        "doc": f"{kind}: CS_LANES blocks, word-sliced, {IL} copies in flight, S-boxes on GFNI or AES-NI",
        "lines": lines,
    }


def support_sections(
    module: Module, fns: list[Function], tables: dict[str, Table]
) -> tuple[list[str], dict[tuple[str, ...], int], dict[tuple[int, ...], int]]:
    """The vector types, the S-box routines and the substitutions the cores call."""
    w = module.block.width
    subs: dict[tuple[str, ...], int] = {}
    rots: dict[tuple[int, ...], int] = {}
    for fn in fns:
        found = groups(fn, w)
        for g in found.values():
            subs.setdefault(g.tables, len(subs))
        for r in rotxor.find(fn, w, set(found)).values():
            rots.setdefault(r.amounts, len(rots))
    names = sorted({t for key in subs for t in key})
    sections = [
        fragment("x86_vectors.c"),
        fragment("x86_gfni.c"),
        f"#define CS_LANES ({IL} * CS_VBITS / {w})  /* {IL} copies of CS_VBITS / {w} blocks */",
        '#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC diagnostic ignored "-Wpsabi"\n#endif',
        fragment("vector_ext.c", w=w, nbytes="CS_VBITS / 8"),
    ]
    sections.append("\n".join(rotxor.byte_rotations(w)))
    sections += ["\n".join(sbox_routine(n, tables[n])) for n in names]
    sections += ["\n".join(substitution_routine(k, key, w)) for key, k in subs.items()]
    sections += ["\n".join(rotxor.routine(k, key, w)) for key, k in rots.items()]
    return sections, subs, rots
