"""x86 routines for S-boxes affine-equivalent to GF(2^8) inversion, on every byte of a register, from the
IR's S-box facts (cipherspec/sbox.py: T(x) = A·inv(B·x ⊕ b) ⊕ a), for the word-sliced kernels:

    GFNI     VGF2P8AFFINEQB (B, b) then VGF2P8AFFINEINVQB (A, a): two instructions
    AES-NI   B·x ⊕ b as two PSHUFB nibble tables, PSHUFB undoing ShiftRows, AESENCLAST with a zero key
             (S = M·inv ⊕ 0x63), A·M⁻¹·(y ⊕ 0x63) ⊕ a as two PSHUFB nibble tables

    sbox_routine("S", SM4's S) -> ["static inline cs_x cs_sbox_S(cs_x x)", "#if defined(__GFNI__)", ...]
    substitution_routine(0, ("T", "U", "T", "U"), 32) -> cs_sub_0: both routines, merged by byte masks
"""

from __future__ import annotations

from cipherspec.ir import Table
from cipherspec.sbox import AffineMap, facts

from ..body import COMMENT_COLUMN

INV_SHIFT_ROWS = tuple((i * 13) % 16 for i in range(16))  # PSHUFB before AESENCLAST: its ShiftRows undone


def gfni_matrix(m: AffineMap) -> int:
    """VGF2P8AFFINEQB's qword: result bit i = parity(byte 7-i of the qword & x)."""
    return sum(r << (8 * (7 - i)) for i, r in enumerate(m.rows))


def nibbles(m: AffineMap) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(lo, hi): m(x) = lo[x & 15] ^ hi[x >> 4], the constant in lo."""
    return tuple(m(n) for n in range(16)), tuple(m(n << 4) ^ m.const for n in range(16))


def bytes16(values) -> str:
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
        c_stmt(
            f"    x = CS_X_GF2P8AFFINE(x, {gfni_matrix(inv.inp):#018x}ull, {inv.inp.const:#04x});",
            f"{table.name}: B·x ^ b (VGF2P8AFFINEQB)",
        ),
        c_stmt(
            f"    return CS_X_GF2P8AFFINEINV(x, {gfni_matrix(inv.out):#018x}ull, {inv.out.const:#04x});",
            f"{table.name}: A·inv(.) ^ a (VGF2P8AFFINEINVQB)",
        ),
        "#else",
        c_stmt("    const cs_x m = CS_X_SPLAT8(0x0f);", "the low nibble of every byte"),
    ]
    for tag, mp in (("in", in_aes), ("out", out_aes)):
        if mp.identity:
            continue
        lo, hi = nibbles(mp)
        lines += [
            f"    static const uint8_t {tag}_lo[16] = {bytes16(lo)};",
            f"    static const uint8_t {tag}_hi[16] = {bytes16(hi)};",
        ]
    lines.append(f"    static const uint8_t isr[16] = {bytes16(INV_SHIFT_ROWS)};")
    if not in_aes.identity:
        lines.append(
            c_stmt(
                "    x = CS_X_XOR(CS_X_SHUFFLE(CS_X_BCAST16(in_lo), CS_X_AND(x, m)), "
                "CS_X_SHUFFLE(CS_X_BCAST16(in_hi), CS_X_AND(CS_X_SRL16(x, 4), m)));",
                f"{table.name}: the input map B·x ^ b as two nibble PSHUFBs",
            )
        )
    lines += [
        c_stmt(
            "    x = CS_X_SHUFFLE(x, CS_X_BCAST16(isr));", "InvShiftRows, so AESENCLAST's ShiftRows puts bytes back"
        ),
        c_stmt("    x = CS_X_AESENCLAST(x, CS_X_ZERO());", "the AES S-box M·inv(.) ^ 0x63 on every byte"),
    ]
    if not out_aes.identity:
        lines.append(
            c_stmt(
                "    x = CS_X_XOR(CS_X_SHUFFLE(CS_X_BCAST16(out_lo), CS_X_AND(x, m)), "
                "CS_X_SHUFFLE(CS_X_BCAST16(out_hi), CS_X_AND(CS_X_SRL16(x, 4), m)));",
                f"{table.name}: the output map A·M⁻¹(y ^ 0x63) ^ a as two nibble PSHUFBs",
            )
        )
    return lines + ["    return x;", "#endif", "}"]


def c_stmt(stmt: str, comment: str) -> str:
    return f"{stmt.ljust(COMMENT_COLUMN)} /* {comment} */"


def substitution_routine(k: int, tables: tuple[str, ...], w: int) -> list[str]:
    """cs_sub_<k>(cs_vW): byte j of every lane through tables[j] (one routine, or one per table merged by masks)."""
    head = [
        f"/* substitution {k}: byte j of every u{w} lane through {', '.join(tables)}[j] */",
        f"static inline cs_v{w} cs_sub_{k}(cs_v{w} v)",
        "{",
        c_stmt("    const cs_x x = (cs_x)v;", "the same bits as bytes"),
    ]
    distinct = list(dict.fromkeys(tables))
    if len(distinct) == 1:
        return head + [f"    return (cs_v{w})cs_sbox_{distinct[0]}(x);", "}"]
    body = [c_stmt("    cs_x r = CS_X_ZERO();", "the merged bytes")]
    for t in distinct:
        mask = [0xFF if tables[j % (w // 8)] == t else 0 for j in range(16)]
        body += [
            f"    static const uint8_t mask_{t}[16] = {bytes16(mask)};",
            c_stmt(
                f"    r = CS_X_OR(r, CS_X_AND(cs_sbox_{t}(x), CS_X_BCAST16(mask_{t})));",
                f"the bytes {t} applies to",
            ),
        ]
    return head + body + [f"    return (cs_v{w})r;", "}"]
