"""One cipher under one C schedule -> the text of its header and its source file (deterministic).

The Python side computes everything (bodies, loads, stores, tables, the lanes); the Jinja2
skeletons in templates/ only lay it out.

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


def generate(module: Module, schedule: Schedule) -> dict[str, str]:
    prep = prepare(module, schedule)
    n = lanes_of(module, schedule)
    sliced = schedule.layout == "sliced"
    bitsliced = schedule.layout == "bitsliced"
    P = module.cipher
    if bitsliced:
        cores = [bs.core(module, prep, "encrypt"), bs.core(module, prep, "decrypt")]
    else:
        cores = [_scalar_core(module, prep, "encrypt"), _scalar_core(module, prep, "decrypt")]
    widths: set[int] = set()
    luts: set[tuple[int, int]] = set()
    cvts: set[tuple[int, int]] = set()
    if sliced:
        cores += [_sliced_core(module, prep, "encrypt", n), _sliced_core(module, prep, "decrypt", n)]
        widths.add(module.block.width)
        for kind in ("encrypt", "decrypt"):
            fn = prep.functions[kind]
            for op in fn.ops:
                widths.add(op.width)
                if op.code == "lut":
                    tab = prep.tables[op.imm[0]]
                    luts.add((fn.ops[op.args[0]].width, tab.out_width))  # a 4-bit table takes a u8 index
                if op.code in ("zext", "trunc"):
                    cvts.add((fn.ops[op.args[0]].width, op.width))
    rotb = sorted({(op.width, op.imm[0]) for kind in ("encrypt", "decrypt") for op in prep.functions[kind].ops
                   if sliced and op.code == "rotl" and op.width > 8 and op.imm[0] % 8 == 0})
    spec_file = os.path.basename(module.source) if module.source else "?"
    data = {
        "P": P, "P_UP": P.upper(), "cipher": P, "version": __version__, "spec_file": spec_file,
        "schedule": schedule.name, "rounds": module.rounds,
        "block_bytes": module.block.nbytes, "key_bytes": module.key.nbytes,
        "ct_note": ct_note(schedule, prep), "lanes": n if sliced or bitsliced else 0,
        "bitsliced": bitsliced, "sbox_functions": bs.sbox_functions(prep) if bitsliced else [], "plane_words": n // 64 if bitsliced else 0,
        "key_planes": bs.key_planes(module) if bitsliced else 0,
        "key_arrays": [{"name": a.name, "ctype": f"uint{a.width}_t", "count": len(a.flat_names()),
                        "doc": _key_array_doc(a)} for a in module.key_arrays],
        "tables": [{"symbol": table_symbol(t.name), "ctype": f"uint{t.out_width}_t", "size": len(t.values),
                    "doc": t.name + (f" = inverse({t.inverse_of})" if t.inverse_of else ""),
                    "rows": _table_rows(t.values, t.out_width)} for t in prep.tables.values()] if not bitsliced else [],
        "widths": sorted(widths), "lut_pairs": sorted(luts), "cvt_pairs": sorted(cvts),
        "byte_rotations": [{"width": w, "amount": k, "mask": byte_rotation_mask(w, k, n)} for w, k in rotb],
        "key_schedule": bs.key_schedule(module, prep) if bitsliced else _key_schedule(module, prep), "cores": cores,
        "error_defines": "\n".join(define_lines(CIPHER_CODES)),
    }
    files = {f"include/{P}.h": render("c/header.h.j2", **data), f"src/{P}.c": render("c/source.c.j2", **data)}
    files.update(emit_drbg(module, P))  # CTR_DRBG over this library's own API
    return files


def library_sources(name: str) -> list[str]:
    """Every C source of a cipher's library: the cipher and its CTR_DRBG."""
    return [f"src/{name}.c"] + drbg_sources(name)
