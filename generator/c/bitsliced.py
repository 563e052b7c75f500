"""The C ``bitsliced`` schedule's cores and key schedule as statement lines (source.py lays them out).

Layout: N = 64·CS_PW blocks per call; s[j·8 + b] is the plane vector holding bit b of state byte j of
every block (lane k, bit t <-> block 64k + t).  cs_bs_load / cs_bs_store (the skeleton) move N blocks
in and out of that layout with six SWAR swap stages; the core reads the planes, runs the lowered
IR (bitslice.py) and writes the output planes.  Round keys are bitsliced once, by set_key: every
key byte becomes 8 masks (0 or all ones), and the IR key schedule itself runs on those masks
(uint64_t planes, no table lookups), so neither data nor key ever indexes memory.

    before: X[3] ^= rk[0][3]            (one byte of one block)
    after:  p40 = CS_P_XOR(p3_0, p16)   ... 8 statements, each on N blocks;  p16 = splat(ks->bs[3·8+0])
"""
from __future__ import annotations

from cipherspec.ir import Module, WordLayout

from .bitslice import Planes, lower, sbox_function
from .body import COMMENT_COLUMN
from .prepare import Prepared


class _CallNames(dict):
    """table name -> C function name with a prefix (setdefault ignores the default it is given)."""

    def __init__(self, prefix: str):
        super().__init__()
        self.prefix = prefix

    def setdefault(self, key, default=None):
        return super().setdefault(key, self.prefix + key)


def sbox_functions(prep: Prepared) -> list[str]:
    """Every used table's circuit, on plane vectors (cs_sbox_T) and on key masks (cs_ksbox_T)."""
    lines: list[str] = []
    for name, table in prep.tables.items():
        for ctype, prefix, fn in (("cs_p", "CS_P", f"cs_sbox_{name}"), ("uint64_t", "CS_M", f"cs_ksbox_{name}")):
            lines += ["", "CS_NOINLINE"] + sbox_function(table, ctype, prefix, fn)
    return lines


def _slots(module: Module) -> dict[str, int]:
    """Flat key name -> its first plane in ks->bs (a u<w> round key has planes ks->bs[first + bit])."""
    out, off = {}, 0
    for arr in module.key_arrays:
        for flat in arr.flat_names():
            out[flat] = off
            off += arr.width
    return out


def key_planes(module: Module) -> int:
    return sum(arr.width * len(arr.flat_names()) for arr in module.key_arrays)


def _word_index(name: str) -> int:
    return int(name[name.rindex("[") + 1:-1])


def byte_planes(layout: WordLayout, word: int) -> list[int]:
    """Word ``word`` of a byte string in ``layout``: bit b of it is plane (byte·8 + b mod 8) of the
    byte-plane layout, little- or big-endian.  u32 little, word 1: bits 0..7 -> planes 32..39, ..."""
    nb = layout.width // 8
    return [(word * nb + (b // 8 if layout.endian == "little" else nb - 1 - b // 8)) * 8 + b % 8
            for b in range(layout.width)]


def core(module: Module, prep: Prepared, kind: str) -> dict:
    """cs_<kind>_n(ks, in, out): N blocks through the bitsliced ``kind`` function."""
    fn = prep.functions[kind]
    slots = _slots(module)
    planes = Planes("cs_p", "CS_P", "        ", calls={})

    def bind(name: str, width: int) -> list:
        if name in slots:
            k = slots[name]
            return [planes.value(("key", k, b), f"CS_P_SPLAT(ks->bs[{k + b}])") for b in range(width)]
        return [planes.value(("in", p), f"s[{p}]") for p in byte_planes(module.block, _word_index(name))]

    outs = lower(fn, prep.tables, planes, bind)
    ind = "    "
    lines = [f"{ind}cs_p s[CS_BLOCK * 8], o[CS_BLOCK * 8];  /* s[j*8+b]: bit b of byte j, all blocks */",
             f"{ind}cs_bs_load(s, in);", f"{ind}{{"]
    lines += planes.lines
    for i, (name, _) in enumerate(fn.outputs):
        for b, (q, p) in enumerate(zip(byte_planes(module.block, _word_index(name)), outs[name])):
            stmt = f"{ind}    o[{q}] = {planes.literal(p)};"
            lines.append(f"{stmt.ljust(COMMENT_COLUMN)} /* block word {name}, bit {b} */")
    lines += [f"{ind}}}", f"{ind}cs_bs_store(out, o);"]
    return {"name": f"cs_{kind}_n", "doc": f"{kind}: N blocks at once (bitsliced core, {len(planes.lines)} plane ops)",
            "lines": lines}


def key_schedule(module: Module, prep: Prepared) -> list[str]:
    """set_key's body: the key schedule on 0/all-ones masks; writes ks->bs and the byte round keys."""
    fn = prep.functions["key_schedule"]
    planes = Planes("uint64_t", "CS_M", "        ", calls={})
    planes.calls = _CallNames("cs_ksbox_")

    def bind(name: str, width: int) -> list:
        return [planes.value(("key", p), f"CS_M_BIT(key[{p // 8}], {p % 8})")
                for p in byte_planes(module.key, _word_index(name))]

    outs = lower(fn, prep.tables, planes, bind)
    slots = _slots(module)
    members = {flat: (arr, i) for arr in module.key_arrays for i, flat in enumerate(arr.flat_names())}
    lines = list(planes.lines)
    ind = "        "
    for name, ps in outs.items():
        k = slots[name]
        for b, p in enumerate(ps):
            stmt = f"{ind}ks->bs[{k + b}] = {planes.literal(p)};"
            lines.append(f"{stmt.ljust(COMMENT_COLUMN)} /* round key {name}, bit {b} */")
        arr, idx = members[name]
        bit = (lambda b: f"{1 << b}u") if arr.width <= 32 else (lambda b: f"UINT64_C({1 << b:#x})")
        word = " | ".join(f"(ks->bs[{k + b}] & {bit(b)})" for b in range(arr.width))
        what = "a byte" if arr.width == 8 else f"a u{arr.width}"
        lines.append(f"{ind}ks->{arr.name}[{idx}] = (uint{arr.width}_t)({word});  /* round key {name} as {what} */")
    return lines
