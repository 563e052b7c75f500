"""Word-sliced AES-NI/GFNI lowering: any cipher on 16-, 32- or 64-bit words with a 16-byte block whose every
table lookup is an 8-bit S-box affine-equivalent to GF(2^8) inversion (the IR's S-box facts,
cipherspec/sbox.py), applied to the bytes of a word and packed back in place.

Register x_i of copy c holds word i of CS_VBITS/w blocks (one per w-bit lane; the blocks are transposed
in and out with unpack instructions, big-endian words byte-swapped with one PSHUFB), IL copies in flight
so that independent dependency chains hide the latencies.  Every IR op other than the substitution is
the vector dialect's lane-wise operator (dialects.Vector, GCC/Clang vector extensions: VPROLD on AVX-512).
XORs of rotations of one word regroup by the amount mod 8 where the ISA has no vector rotate (rotxor.py).
A substitution -- the pattern ``pack(T0[byte0(w)], T1[byte1(w)], ...)`` of the IR, found by ``groups`` --
is one S-box routine on the whole register, T(x) = A·inv(B·x ⊕ b) ⊕ a:

    GFNI     VGF2P8AFFINEQB (B, b) then VGF2P8AFFINEINVQB (A, a): two instructions
    AES-NI   in' = B·x ⊕ b as two PSHUFB nibble tables, PSHUFB undoing ShiftRows, AESENCLAST with a zero
             key (S = M·inv ⊕ 0x63), out' = A·M⁻¹·y ⊕ (A·M⁻¹·0x63 ⊕ a) as two PSHUFB nibble tables

Different tables on different byte positions of a word are computed each on the whole register and
merged with byte masks.  Constant-time: no table is indexed by a secret, no branch depends on one.

    before: %9 = trunc.u8 %8   %16 = lut.u8 %15, @S   ...   %29 = or.u32 %26, %28
    after:  const cs_v32 v29_0 = CS_SUB_0(v8_0);      (cs_sub_0: S on every byte, GFNI or AES-NI)
"""

from __future__ import annotations

from dataclasses import dataclass

from cipherspec.ir import Function, Module, Table
from cipherspec.sbox import AffineMap, facts

from ..body import COMMENT_COLUMN
from ..dialects import Vector
from ..text import fragment, key_slots, word_index
from . import rotxor

IL = 4  # copies of the state in flight (SM4 CTR: 4 faster than 2 on gfni_avx512 and vaes_avx2)
ALLOWED = ("input", "const", "xor", "and", "or", "not", "add", "sub", "shl", "shr", "rotl")
INV_SHIFT_ROWS = tuple((i * 13) % 16 for i in range(16))  # PSHUFB before AESENCLAST: its ShiftRows undone


@dataclass(frozen=True)
class Group:
    """``root`` = the bytes of ``src`` (a w-bit word) each through its table, packed back in place:
    byte k of the result = tables[k][byte k of src]."""

    root: int
    src: int
    tables: tuple[str, ...]


def _leaves(fn: Function, vid: int, w: int) -> list[int]:
    op = fn.ops[vid]
    if op.code in ("or", "xor") and op.width == w:
        return _leaves(fn, op.args[0], w) + _leaves(fn, op.args[1], w)
    return [vid]


def _byte_term(fn: Function, vid: int, w: int) -> tuple[int, int, int, str] | None:
    """zext(lut T (trunc.u8 (w >> k))) << j -> (w's value id, k, j, T), else None."""
    op, at = fn.ops[vid], 0
    if op.code == "shl" and op.width == w:
        at, op = op.imm[0], fn.ops[op.args[0]]
    if op.code != "zext" or op.width != w:
        return None
    lut = fn.ops[op.args[0]]
    if lut.code != "lut" or lut.width != 8:
        return None
    idx = fn.ops[lut.args[0]]
    if idx.code != "trunc" or idx.width != 8:
        return None
    src, k = idx.args[0], 0
    s = fn.ops[src]
    if s.code == "shr" and s.width == w:
        src, k = s.args[0], s.imm[0]
    if fn.ops[src].width != w:
        return None
    return src, k, at, lut.imm[0]


def groups(fn: Function, w: int) -> dict[int, Group]:
    """Every substitution of the bytes of a w-bit word in ``fn``, by its root (the OR/XOR of the packed bytes)."""
    found: dict[int, Group] = {}
    for vid, op in enumerate(fn.ops):
        if op.code not in ("or", "xor") or op.width != w:
            continue
        terms = [_byte_term(fn, leaf, w) for leaf in _leaves(fn, vid, w)]
        if any(t is None for t in terms) or len(terms) != w // 8:
            continue
        srcs = {t[0] for t in terms if t}
        at = {t[1]: t for t in terms if t and t[1] == t[2]}
        if len(srcs) == 1 and sorted(at) == list(range(0, w, 8)):
            found[vid] = Group(vid, srcs.pop(), tuple(at[8 * k][3] for k in range(w // 8)))
    return found


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


def _gfni_matrix(m: AffineMap) -> int:
    """VGF2P8AFFINEQB's qword: result bit i = parity(byte 7-i of the qword & x)."""
    return sum(r << (8 * (7 - i)) for i, r in enumerate(m.rows))


def _nibbles(m: AffineMap) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(lo, hi): m(x) = lo[x & 15] ^ hi[x >> 4], the constant in lo."""
    return tuple(m(n) for n in range(16)), tuple(m(n << 4) ^ m.const for n in range(16))


def _bytes16(values) -> str:
    return "{" + ", ".join(f"{v:#04x}" for v in values) + "}"


def sbox_routine(name: str, table: Table) -> list[str]:
    """static inline cs_x cs_sbox_<name>(cs_x x): the table on every byte of x (GFNI or AES-NI)."""
    f = facts(table.values)
    assert f is not None and f.inversion is not None
    inv = f.inversion
    out_aes, in_aes = inv.via_aes()
    lines = [
        f"/* {table.name} on every byte: {table.name}(x) = A·inv(B·x ^ b) ^ a (cipherspec/sbox.py; inv mod 0x11b) */",
        f"static inline cs_x cs_sbox_{name}(cs_x x)",
        "{",
        "#if defined(__GFNI__)",
        _c(
            f"    x = CS_X_GF2P8AFFINE(x, {_gfni_matrix(inv.inp):#018x}ull, {inv.inp.const:#04x});",
            f"{table.name}: B·x ^ b (VGF2P8AFFINEQB)",
        ),
        _c(
            f"    return CS_X_GF2P8AFFINEINV(x, {_gfni_matrix(inv.out):#018x}ull, {inv.out.const:#04x});",
            f"{table.name}: A·inv(.) ^ a (VGF2P8AFFINEINVQB)",
        ),
        "#else",
        _c("    const cs_x m = CS_X_SPLAT8(0x0f);", "the low nibble of every byte"),
    ]
    for tag, mp in (("in", in_aes), ("out", out_aes)):
        if mp.identity:
            continue
        lo, hi = _nibbles(mp)
        lines += [
            f"    static const uint8_t {tag}_lo[16] = {_bytes16(lo)};",
            f"    static const uint8_t {tag}_hi[16] = {_bytes16(hi)};",
        ]
    lines.append(f"    static const uint8_t isr[16] = {_bytes16(INV_SHIFT_ROWS)};")
    if not in_aes.identity:
        lines.append(
            _c(
                "    x = CS_X_XOR(CS_X_SHUFFLE(CS_X_BCAST16(in_lo), CS_X_AND(x, m)), "
                "CS_X_SHUFFLE(CS_X_BCAST16(in_hi), CS_X_AND(CS_X_SRL16(x, 4), m)));",
                f"{table.name}: the input map B·x ^ b as two nibble PSHUFBs",
            )
        )
    lines += [
        _c("    x = CS_X_SHUFFLE(x, CS_X_BCAST16(isr));", "InvShiftRows, so AESENCLAST's ShiftRows puts bytes back"),
        _c("    x = CS_X_AESENCLAST(x, CS_X_ZERO());", "the AES S-box M·inv(.) ^ 0x63 on every byte"),
    ]
    if not out_aes.identity:
        lines.append(
            _c(
                "    x = CS_X_XOR(CS_X_SHUFFLE(CS_X_BCAST16(out_lo), CS_X_AND(x, m)), "
                "CS_X_SHUFFLE(CS_X_BCAST16(out_hi), CS_X_AND(CS_X_SRL16(x, 4), m)));",
                f"{table.name}: the output map A·M⁻¹(y ^ 0x63) ^ a as two nibble PSHUFBs",
            )
        )
    return lines + ["    return x;", "#endif", "}"]


def _c(stmt: str, comment: str) -> str:
    return f"{stmt.ljust(COMMENT_COLUMN)} /* {comment} */"


def _substitution(k: int, tables: tuple[str, ...], w: int) -> list[str]:
    """cs_sub_<k>(cs_vW): byte j of every lane through tables[j] (one routine, or one per table merged by masks)."""
    head = [
        f"/* substitution {k}: byte j of every u{w} lane through {', '.join(tables)}[j] */",
        f"static inline cs_v{w} cs_sub_{k}(cs_v{w} v)",
        "{",
        _c("    const cs_x x = (cs_x)v;", "the same bits as bytes"),
    ]
    distinct = list(dict.fromkeys(tables))
    if len(distinct) == 1:
        return head + [f"    return (cs_v{w})cs_sbox_{distinct[0]}(x);", "}"]
    body = [_c("    cs_x r = CS_X_ZERO();", "the merged bytes")]
    for t in distinct:
        mask = [0xFF if tables[j % (w // 8)] == t else 0 for j in range(16)]
        body += [
            f"    static const uint8_t mask_{t}[16] = {_bytes16(mask)};",
            _c(
                f"    r = CS_X_OR(r, CS_X_AND(cs_sbox_{t}(x), CS_X_BCAST16(mask_{t})));",
                f"the bytes {t} applies to",
            ),
        ]
    return head + body + [f"    return (cs_v{w})r;", "}"]


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
    return _bytes16([lane * nb + (nb - 1 - j) for lane in range(16 // nb) for j in range(nb)])


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
    sections += ["\n".join(_substitution(k, key, w)) for key, k in subs.items()]
    sections += ["\n".join(rotxor.routine(k, key, w)) for key, k in rots.items()]
    return sections, subs, rots
