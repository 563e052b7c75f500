"""The C ``bitsliced`` schedule's cores and key schedule as statement lines (source.py lays them out).

Layout: N = 64·CS_PW blocks per call; s[j·8 + b] is the plane vector holding bit b of state byte j of
every block (lane k, bit t <-> block CS_PW·t + k).  cs_bs_load / cs_bs_store (the skeleton) move N blocks
in and out of that layout with six SWAR swap stages; the core reads the planes, runs the lowered
IR (bitslice.py) and writes the output planes.  Round keys are bitsliced once, by the library's
set_key: every round-key byte becomes 8 masks (0 or all ones, ks->bs), and set_key's own S-box
lookups run as the same circuits on masks (library.py), so neither data nor key ever indexes memory.

    before: X[3] ^= rk[0][3]            (one byte of one block)
    after:  p40 = CS_P_XOR(p3_0, p16)   ... 8 statements, each on N blocks;  p16 = splat(ks->bs[3·8+0])
"""

from __future__ import annotations

import re

from cipherspec.ir import Module, WordLayout

from .bitslice import Planes, circuit_gates, lower, sbox_function
from .body import COMMENT_COLUMN
from .prepare import Prepared
from .split import Stmt, assignment, split

INLINE_GATES = 64  # a core's circuit of at most this many gates is inlined at every lookup (4-bit S-boxes)


def sbox_functions(tables, masks: bool = False) -> list[str]:
    """Each table's circuit as a C function: on plane vectors (cs_sbox_T, the cores) or, with ``masks``,
    on uint64_t masks, one lookup per bit (cs_ksbox_T: the library's constant-time key-schedule lookups).
    A core's small circuit (INLINE_GATES) is inlined where it is called: its inputs and outputs stay in
    registers instead of going through the argument arrays; big ones (8-bit S-boxes) stay out of line,
    which keeps the cores small enough for the C compiler."""
    lines: list[str] = []
    for name, table in tables.items():
        ctype, prefix, fn = ("uint64_t", "CS_M", f"cs_ksbox_{name}") if masks else ("cs_p", "CS_P", f"cs_sbox_{name}")
        body = sbox_function(table, ctype, prefix, fn, by_value=not masks)
        inline = not masks and circuit_gates(table) <= INLINE_GATES
        lines += ["", "CS_INLINE" if inline else "CS_NOINLINE"] + (
            [body[0].replace("static void", "void", 1)] + body[1:] if inline else body
        )
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
    return int(name[name.rindex("[") + 1 : -1])


def byte_planes(layout: WordLayout, word: int) -> list[int]:
    """Word ``word`` of a byte string in ``layout``: bit b of it is plane (byte·8 + b mod 8) of the
    byte-plane layout, little- or big-endian.  u32 little, word 1: bits 0..7 -> planes 32..39, ..."""
    nb = layout.width // 8
    return [
        (word * nb + (b // 8 if layout.endian == "little" else nb - 1 - b // 8)) * 8 + b % 8
        for b in range(layout.width)
    ]


PIECE = 600  # plane statements per out-of-line piece of a core (split.py: keeps gcc linear)
_TOKEN = re.compile(r"\b(p\d+|r\d+\[\d+\])")
_CALL = re.compile(r"\br(\d+)\[(\d+)\]; cs_sbox_")  # cs_p rN[live]; cs_sbox_T(rN, x planes);
_ROUND = re.compile(r"\br(\d+) \*/$")
KEY_PLANE = re.compile(r"ks->bs\[(\d+)\]")


def _stmt(line: str) -> Stmt:
    """A plane statement with the values it defines and uses (parsed from the text Planes wrote) and its
    round (from its origin comment)."""
    code = line.split("/*", 1)[0]
    rnd = _ROUND.search(line)
    group = int(rnd.group(1)) if rnd else ("out" if code.lstrip().startswith("o[") else None)
    call = _CALL.search(code)
    if call:  # cs_p rN[live]; cs_sbox_T(rN, x planes);
        n, live = call.group(1), int(call.group(2))
        return Stmt(line, tuple(f"r{n}[{i}]" for i in range(live)), tuple(_TOKEN.findall(code[call.end() :])), group)
    return assignment(line, _TOKEN, group)


def core(module: Module, prep: Prepared, kind: str) -> dict:
    """cs_<kind>_n(ks, in, out): N blocks through the bitsliced ``kind`` function, its plane statements in
    out-of-line pieces (``pieces``: the C functions, to be placed before the core)."""
    fn = prep.functions[kind]
    slots = _slots(module)
    planes = Planes("cs_p", "CS_P", "    ", calls={})

    def bind(name: str, width: int) -> list:  # read where used (every piece sees ks and s): nothing to hand on
        if name in slots:
            k = slots[name]
            return [f"CS_P_SPLAT(ks->bs[{k + b}])" for b in range(width)]
        return [f"s[{p}]" for p in byte_planes(module.block, _word_index(name))]

    outs = lower(fn, prep.tables, planes, bind)
    ind = "    "
    lines = list(planes.lines)
    for _i, (name, _) in enumerate(fn.outputs):
        for b, (q, p) in enumerate(zip(byte_planes(module.block, _word_index(name)), outs[name])):
            stmt = f"{ind}o[{q}] = {planes.literal(p)};"
            lines.append(f"{stmt.ljust(COMMENT_COLUMN)} /* block word {name}, bit {b} */")
    pieces = split([_stmt(line) for line in lines], PIECE, "cs_p", ind, KEY_PLANE, order=True)
    name = f"cs_{kind}_n"
    sections = []
    for k, body in enumerate(pieces.functions):
        uses = sum(c.function == k for c in pieces.calls)
        sections.append(
            "\n".join(
                [
                    f"/* {kind}: piece {k} ({uses} call{'s' * (uses > 1)}; kb: its round-key planes) */",
                    "CS_NOINLINE",
                    f"static void {name}_{k}(const uint64_t *kb, const cs_p *s, cs_p *o, const cs_p *v, cs_p *w)",
                    "{",
                    f"{ind}(void)kb; (void)s; (void)o; (void)v; (void)w;",
                ]
                + body
                + ["}"]
            )
        )
    body = [
        f"{ind}cs_p s[CS_BLOCK * 8], o[CS_BLOCK * 8];  /* s[j*8+b]: bit b of byte j, all blocks */",
        f"{ind}cs_p v[2][{pieces.slots}];  /* planes handed from one piece to the next (read one, write the other) */",
        f"{ind}cs_bs_load(s, in);",
    ]
    body += [
        f"{ind}{name}_{c.function}(ks->bs + {c.key_base}, s, o, v[{k % 2}], v[{(k + 1) % 2}]);"
        for k, c in enumerate(pieces.calls)
    ]
    body.append(f"{ind}cs_bs_store(out, o);")
    return {
        "name": name,
        "key_type": f"const {module.cipher}_key",
        "doc": f"{kind}: N blocks at once (bitsliced core, {len(planes.lines)} plane ops; "
        f"{len(pieces.calls)} pieces, {len(pieces.functions)} distinct)",
        "lines": body,
        "pieces": sections,
    }


def has_counter_core(module: Module) -> bool:
    """Whether the bitsliced kernel gets cs_ctr_n: blocks of whole 64-bit words (the counter's low 64
    bits are the last one, transposed; the words above it are constant over a run, splatted)."""
    return module.block.nbytes % 8 == 0


def counter_core(encrypt: dict) -> dict:
    """cs_ctr_n(ks, ctr, in, out): the encrypt core's pieces on the planes of the counter blocks ctr ..
    ctr + N - 1 (cs_bs_load_ctr: only the counter's low word is transposed), the keystream XORed into
    ``in`` as it is transposed back (cs_bs_store_xor): no counter blocks or keystream in memory.  Before
    each piece, a share of the next run's input and output lines is prefetched (cs_bs_prefetch).

        before: cs_ctr_fill(stream, ctr, N); cs_encrypt_n(ks, stream, stream); cs_xor_bytes(out, in, stream)
        after:  cs_ctr_n(ks, ctr, in, out)
    """
    lines = ["    cs_bs_load_ctr(s, ctr);" if ln.strip() == "cs_bs_load(s, in);" else ln for ln in encrypt["lines"]]
    lines = ["    cs_bs_store_xor(out, o, in);" if ln.strip() == "cs_bs_store(out, o);" else ln for ln in lines]
    assert lines != encrypt["lines"], "bitsliced counter core: the encrypt core's load/store lines moved"
    calls = [i for i, ln in enumerate(lines) if ln.strip().startswith(encrypt["name"] + "_")]
    for k, i in enumerate(reversed(calls)):  # the next run's lines, spread over the pieces
        lines.insert(i, f"    cs_bs_prefetch(in, out, {len(calls) - 1 - k}, {len(calls)});")
    return {
        "name": "cs_ctr_n",
        "params": f"{encrypt['key_type']} *ks, const uint8_t *ctr, const uint8_t *in, uint8_t *out",
        "doc": "CTR: N counter blocks ctr, ctr + 1, ... (no carry out of the low 64 bits) through the encrypt "
        "core's pieces, XORed into in (bitsliced core)",
        "lines": lines,
        "pieces": [],
    }
