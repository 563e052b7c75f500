"""One cipher under one C schedule -> the text of its header and its source file (deterministic).

The Python side decides everything (bodies, loads, stores, tables, the lanes, which support code a
layout needs, how the modes walk the blocks: walk.py); templates/source.c.j2 only lays the sections
out, and the static C support code (load/store helpers, lane vectors, bit planes and their
transposition, the mode functions) lives as plain C in templates/fragments/, pasted with at most a
few values filled in.

    files = generate(module, schedule)   -> {"include/lea128.h": "...", "src/lea128.c": "..."}
"""
from __future__ import annotations

import os
import re

from cipherspec import __version__
from cipherspec.ir import Function, KeyArray, Module, WordLayout
from cipherspec.schedule import Schedule

from runtime.c_abi import CIPHER_CODES, define_lines

from ..common.templates import render
from ..drbg.emit import drbg_sources, emit_drbg

from . import bitsliced as bs
from .body import COMMENT_COLUMN, emit_body
from .dialects import Scalar, Vector, const_literal, table_symbol
from .prepare import Prepared, prepare
from .schedules import lanes as lanes_of
from .walk import walk

_INDEX = re.compile(r"^(.*)\[(\d+)\]$")


def word_suffix(layout: WordLayout) -> str:
    return f"{layout.width}{'le' if layout.endian == 'little' else 'be'}"


def _load(layout: WordLayout, ptr: str) -> str:
    return f"({ptr})[0]" if layout.width == 8 else f"cs_load{word_suffix(layout)}({ptr})"


def _store(layout: WordLayout, ptr: str, value: str) -> str:
    return f"({ptr})[0] = {value}" if layout.width == 8 else f"cs_store{word_suffix(layout)}({ptr}, {value})"


def _word_index(name: str) -> int:
    m = _INDEX.match(name)
    if m is None:
        raise ValueError(f"input {name!r} is not a word of an array")
    return int(m.group(2))


def _with_comment(stmt: str, comment: str) -> str:
    return f"{stmt.ljust(COMMENT_COLUMN)} /* {comment} */"


def key_slots(module: Module) -> dict[str, tuple[str, int]]:
    """Flat key-array element name ("rk[3][5]") -> (struct member, index)."""
    return {flat: (arr.name, i) for arr in module.key_arrays for i, flat in enumerate(arr.flat_names())}


def _state_inputs(fn: Function, slots: dict) -> list[str]:
    return [name for name, _, _ in fn.inputs() if name not in slots]


def _key_schedule(module: Module, prep: Prepared) -> list[str]:
    fn = prep.functions["key_schedule"]
    ind = "        "
    lines = []
    for name, _, _ in fn.inputs():
        i = _word_index(name)
        ptr = f"key + {i * module.key.width // 8}"
        lines.append(_with_comment(f"{ind}const uint{module.key.width}_t k{i} = {_load(module.key, ptr)};",
                                   f"key word {name}"))
    body = emit_body(fn, Scalar(), prep.tables,
                     lambda name, w: f"k{_word_index(name)}", ind)
    lines += body.lines
    slots = key_slots(module)
    for name, var in body.outputs.items():
        member, idx = slots[name]
        lines.append(_with_comment(f"{ind}ks->{member}[{idx}] = {var};", f"round key {name}"))
    return lines


def _scalar_core(module: Module, prep: Prepared, kind: str) -> dict:
    fn = prep.functions[kind]
    slots = key_slots(module)
    lay = module.block
    step = lay.width // 8
    ind = "    "
    lines = []
    for name in _state_inputs(fn, slots):
        i = _word_index(name)
        lines.append(_with_comment(f"{ind}const uint{lay.width}_t x{i} = {_load(lay, f'in + {i * step}')};",
                                   f"block word {name}"))

    def bind(name: str, width: int) -> str:
        if name in slots:
            member, idx = slots[name]
            return f"ks->{member}[{idx}]"
        return f"x{_word_index(name)}"

    body = emit_body(fn, Scalar(), prep.tables, bind, ind)
    lines += body.lines
    for i, (name, _) in enumerate(fn.outputs):
        lines.append(_with_comment(f"{ind}{_store(lay, f'out + {i * step}', body.outputs[name])};",
                                   f"block word {name}"))
    return {"name": f"cs_{kind}_1", "doc": f"{kind}: one block (scalar core)", "lines": lines}


def _sliced_core(module: Module, prep: Prepared, kind: str, lanes: int) -> dict:
    fn = prep.functions[kind]
    slots = key_slots(module)
    lay = module.block
    step = lay.width // 8
    t = f"uint{lay.width}_t"
    ind = "    "
    state = _state_inputs(fn, slots)
    lines = [f"{ind}{t} w[{lay.count}][CS_LANES];  /* w[i][l]: word i of block l (the transpose) */",
             f"{ind}int l;"]
    for name in state:
        lines.append(f"{ind}cs_v{lay.width} x{_word_index(name)};")
    lines.append(f"{ind}for (l = 0; l < CS_LANES; l++) {{")
    for name in state:
        i = _word_index(name)
        lines.append(_with_comment(f"{ind}    w[{i}][l] = {_load(lay, f'in + l * CS_BLOCK + {i * step}')};",
                                   f"block word {name}"))
    lines.append(f"{ind}}}")
    for name in state:
        i = _word_index(name)
        lines.append(_with_comment(f"{ind}memcpy(&x{i}, w[{i}], sizeof x{i});", f"block word {name}, all lanes"))
    lines.append(f"{ind}{{")

    def bind(name: str, width: int) -> str:
        if name in slots:
            member, idx = slots[name]
            return f"CS_V{width}_SPLAT(ks->{member}[{idx}])"
        return f"x{_word_index(name)}"

    body = emit_body(fn, Vector(), prep.tables, bind, ind + "    ")
    lines += body.lines
    for i, (name, _) in enumerate(fn.outputs):
        var = body.outputs[name]
        lines.append(_with_comment(f"{ind}    memcpy(w[{i}], &{var}, sizeof {var});", f"block word {name}, all lanes"))
    lines.append(f"{ind}}}")
    lines.append(f"{ind}for (l = 0; l < CS_LANES; l++) {{")
    for i, (name, _) in enumerate(fn.outputs):
        lines.append(_with_comment(f"{ind}    {_store(lay, f'out + l * CS_BLOCK + {i * step}', f'w[{i}][l]')};",
                                   f"block word {name}"))
    lines.append(f"{ind}}}")
    return {"name": f"cs_{kind}_n", "doc": f"{kind}: {lanes} blocks at once (block-sliced core)", "lines": lines}


def byte_rotation_mask(width: int, amount: int, lanes: int) -> str:
    """The __builtin_shuffle mask rotating each little-endian ``width``-bit lane left by ``amount`` bits:
    result byte j of a lane is source byte (j - amount/8) mod (width/8).  (32, 8): 3,0,1,2, 7,4,5,6, ..."""
    nb, sh = width // 8, amount // 8
    return ", ".join(str(lane * nb + (j - sh) % nb) for lane in range(lanes) for j in range(nb))


def _table_rows(values: tuple[int, ...], width: int, per_row: int = 16) -> list[str]:
    lits = [const_literal(v, width) for v in values]
    return [", ".join(lits[i:i + per_row]) + ("," if i + per_row < len(lits) else "")
            for i in range(0, len(lits), per_row)]


def ct_note(schedule: Schedule, prep: Prepared) -> str:
    if schedule.layout == "bitsliced":
        return ("Constant-time: bitsliced, S-boxes as Boolean circuits, no table lookups and no "
                "data- or key-dependent branches or addresses, in set_key and in every mode.")
    secret = prep.secret_tables()
    if secret:
        return (f"NOT constant-time: secret-indexed tables {', '.join(secret)} "
                "(timing may leak key and data through the cache).")
    return "Constant-time: no secret-indexed table lookups, no secret-dependent branches."


def _key_array_doc(arr: KeyArray) -> str:
    return f"{arr.name}: u{arr.width}" + "".join(f"[{n}]" for n in arr.shape) + ", flattened"


def fragment(name: str, **data) -> str:
    """A C fragment (templates/fragments/NAME: plain C, at most a few values filled in), no final newline."""
    return render(f"c/fragments/{name}", **data).rstrip("\n")


def layout_doc(layout: str, lanes: int) -> str:
    """The source banner's paragraph on the layout."""
    if layout == "bitsliced":
        return (f" * Bitsliced: {lanes} blocks per call of the core; bit b of state byte j of all {lanes} blocks lives in one\n"
                " * plane vector (GCC/Clang vector extensions; define CS_NO_VECTOR_EXT to use the plain-array fallback).\n"
                " * S-boxes are Boolean circuits, round keys are planes: no table lookups at all.  Every mode runs\n"
                f" * the {lanes}-block core, a short run (tail, CBC encryption) padded to {lanes} blocks.")
    if layout == "sliced":
        return (f" * Block-sliced: {lanes} blocks per call of the core; word i of all {lanes} blocks lives in the lanes of one\n"
                " * vector (GCC/Clang vector extensions; define CS_NO_VECTOR_EXT to use the plain-array fallback).\n"
                f" * ECB, CBC decryption and CTR run {lanes}-block chunks, then the scalar core for the tail.")
    return " * Scalar: one block per call of the core."


def _table_section(prep: Prepared) -> str:
    parts = ["/* ---- tables ---- */"]
    for t in prep.tables.values():
        doc = t.name + (f" = inverse({t.inverse_of})" if t.inverse_of else "")
        rows = "\n".join("    " + row for row in _table_rows(t.values, t.out_width))
        parts.append(f"static const uint{t.out_width}_t {table_symbol(t.name)}[{len(t.values)}] = {{  /* {doc} */\n"
                     f"{rows}\n}};")
    return "\n".join(parts)


def _sliced_support(module: Module, prep: Prepared, lanes: int) -> list[str]:
    """The vector types and operators of a sliced core: one section each for the lane vectors (vector
    extensions, plain-array fallback), the byte-shuffle rotations, the per-lane lookups and conversions."""
    widths = {module.block.width}
    luts: set[tuple[int, int]] = set()
    cvts: set[tuple[int, int]] = set()
    rotb: set[tuple[int, int]] = set()
    for kind in ("encrypt", "decrypt"):
        fn = prep.functions[kind]
        for op in fn.ops:
            widths.add(op.width)
            if op.code == "lut":
                tab = prep.tables[op.imm[0]]
                luts.add((fn.ops[op.args[0]].width, tab.out_width))  # a 4-bit table takes a u8 index
            elif op.code in ("zext", "trunc"):
                cvts.add((fn.ops[op.args[0]].width, op.width))
            elif op.code == "rotl" and op.width > 8 and op.imm[0] % 8 == 0:
                rotb.add((op.width, op.imm[0]))
    vectors = "\n".join([fragment("vectors_open.c", lanes=lanes)]
                        + [fragment("vector_ext.c", w=w, nbytes=lanes * w // 8) for w in sorted(widths)]
                        + ["#else /* plain arrays: any C99 compiler */"]
                        + [fragment("vector_plain.c", w=w) for w in sorted(widths)] + ["#endif"])
    return ([vectors]
            + [fragment("byte_rotation.c", w=w, k=k, nbytes=lanes * w // 8, mask=byte_rotation_mask(w, k, lanes))
               for w, k in sorted(rotb)]
            + [fragment("lane_lookup.c", a=a, b=b) for a, b in sorted(luts)]
            + [fragment("lane_convert.c", a=a, b=b) for a, b in sorted(cvts)])


def generate(module: Module, schedule: Schedule) -> dict[str, str]:
    prep = prepare(module, schedule)
    layout = schedule.layout
    n = lanes_of(module, schedule) if layout != "scalar" else 0
    P = module.cipher
    support = [_table_section(prep)] if prep.tables and layout != "bitsliced" else []
    after_cores: list[str] = []
    if layout == "bitsliced":
        support.append("\n".join([fragment("planes.c", lanes=n, plane_words=n // 64)] + bs.sbox_functions(prep)))
        cores = [bs.core(module, prep, "encrypt"), bs.core(module, prep, "decrypt")]
        after_cores = [fragment("padded_run.c", P=P, kind=kind) for kind in ("encrypt", "decrypt")]
        after_cores.append(fragment("one_block_padded.c", P=P))
    else:
        cores = [_scalar_core(module, prep, "encrypt"), _scalar_core(module, prep, "decrypt")]
    if layout == "sliced":
        support += _sliced_support(module, prep, n)
        cores += [_sliced_core(module, prep, "encrypt", n), _sliced_core(module, prep, "decrypt", n)]
    after_cores += [fragment("mode_helpers.c")] + ([fragment("ctr_fill.c")] if n else [])
    spec_file = os.path.basename(module.source) if module.source else "?"
    note = ct_note(schedule, prep)
    header = {
        "P": P, "P_UP": P.upper(), "cipher": P, "version": __version__, "spec_file": spec_file,
        "schedule": schedule.name, "rounds": module.rounds, "ct_note": note,
        "block_bytes": module.block.nbytes, "key_bytes": module.key.nbytes,
        "key_planes": bs.key_planes(module) if layout == "bitsliced" else 0,
        "key_arrays": [{"name": a.name, "ctype": f"uint{a.width}_t", "count": len(a.flat_names()),
                        "doc": _key_array_doc(a)} for a in module.key_arrays],
        "error_defines": "\n".join(define_lines(CIPHER_CODES)),
    }
    source = {
        "P": P, "P_UP": P.upper(), "cipher": P, "version": __version__, "spec_file": spec_file,
        "schedule": schedule.name, "ct_note": note, "layout_doc": layout_doc(layout, n),
        "block_bytes": module.block.nbytes, "words": fragment("words.c"), "support": support,
        "key_schedule": bs.key_schedule(module, prep) if layout == "bitsliced" else _key_schedule(module, prep),
        "cores": cores, "after_cores": after_cores,
        "modes": fragment("modes.c", P=P, P_UP=P.upper(), walk=walk(n, layout == "bitsliced")),
    }
    files = {f"include/{P}.h": render("c/header.h.j2", **header), f"src/{P}.c": render("c/source.c.j2", **source)}
    files.update(emit_drbg(module, P))  # CTR_DRBG over this library's own API
    return files


def library_sources(name: str) -> list[str]:
    """Every C source of a cipher's library: the cipher and its CTR_DRBG."""
    return [f"src/{name}.c"] + drbg_sources(name)
