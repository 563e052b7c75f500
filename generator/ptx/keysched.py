"""The CUDA library's key schedule: the C that set_key runs on the host, in the .cu's host section (compiled by
nvcc's host compiler as C++17 at -O3, so the library stays one self-contained .cu) -- and, the same functions
compiled for the device too (``CS_HD``: __host__ __device__), what the multi-key kernel's key-schedule launch
runs, one thread per request (host.cu.j2's P_key_schedule_multi: CTR_DRBG bulk output needs thousands of
key schedules per GiB, and a host loop over them plus copying every request's round keys cost more than the
keystream itself).

It is the C backend's scalar key schedule (generator/c/keysched.py: one code path for the C, NEON and CUDA
libraries) on the CUDA-prepared module, with S-box lookups as Boolean circuits on masks (one lookup per bit), so no
memory address or branch depends on the key; round keys go zero-extended into the flat ``uint32_t`` words
(key arrays in declaration order, placement.rk_index).  A lane layout's derived words (keysplit.py: key-only
lane work moved into set_key) follow in P_expand_key, printed by the same IR-to-C printer (c/body.py):

    before: %5 = lut.u8 S %4                              (a key byte through the AES S-box)
    after:  cs_ctn_S(b5_in, b5_out, 4); v5 = b5_out[0]  (the circuit, 4 lookups at once; no table indexed by v4)
    before (derive): %1 = input.u32 "rk[3]"  %2 = shl.u32 %1, 8  %3 = or.u32 %1, %2   out "D[0]" = %3
    after:           const uint32_t v1 = (uint32_t)rk[3];  const uint32_t v2 = v1 << 8;  ...  rk[40] = v3;

    sec = key_section(module, "cs_lea128_...", derive=None)
    sec.text    the C (helpers, circuits, P_key_schedule, P_expand_key when derive is given)
    sec.entry   what set_key calls: "cs_lea128_..._key_schedule" (or "..._expand_key")
    sec.words   the u32 round-key words it writes (the key schedule's, then the derived ones)

Every function of the section is host+device (``host_device``):

    before: static inline uint32_t cs_load32le(const uint8_t *p) { ... }
    after:  CS_HD static inline uint32_t cs_load32le(const uint8_t *p) { ... }

``ct=False`` writes the same functions with table lookups: only the tests use it, to show that the
constant-time check (tests/differential/test_cuda_constant_time.py) catches a key-indexed lookup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cipherspec.ir import Function, Module
from cipherspec.passes import dce
from cipherspec.schedule import Schedule

from ..c.body import emit_body
from ..c.dialects import Scalar
from ..c.keysched import encryption_arrays, key_prep, key_schedule_parts, lookup_support, lookup_tables
from ..c.text import fragment, with_comment
from ..common.templates import render
from . import deriveloop, keyorder
from .abswitch import former_derive
from .placement import rk_index

CT_NOTE = "constant-time: S-boxes as Boolean circuits, no memory address or branch depends on the key"
TABLE_NOTE = "NOT constant-time: S-boxes as tables indexed by key bytes (a test's negative control)"


@dataclass(frozen=True)
class KeySection:
    text: str  # the host C of the key schedule (and derived words)
    entry: str  # the function set_key calls: (const uint8_t *key, uint32_t *rk)
    words: int  # the u32 words it writes: the key schedule's, then the derived words (or the reverse: schedule_at)
    entry_enc: str = ""  # the multi-key launch's (encrypt only): the words encrypt reads; "" = entry
    schedule_at: int = 0  # the key schedule's first word (after the derived words where keyorder.py ordered them)


def key_section(module: Module, P: str, derive: Function | None = None, ct: bool = True, rows: int = 0) -> KeySection:
    """``module``: the CUDA-prepared module (source.prepared); ``derive``: a lane layout's derived words
    (round-key words in, D[k] out, stored after the key schedule's words; where ``rows`` > 0, before them, after
    keyorder.HEAD words whose first is ``rows``: keyorder.py)."""
    prep = key_prep(module, Schedule(module.cipher, "c", "scalar", (), None))
    index = rk_index(module)
    # the multi-key CTR only encrypts: where encrypt reads fewer arrays (ARIA: ek, not dk), its launch runs the
    # schedule's first part (those arrays, key_schedule_parts) and the words derived from them alone
    enc = encryption_arrays(module)
    lines, rest = key_schedule_parts(module, prep, ct, enc, store=lambda name: f"rk[{index[name]}]")
    enc_derived = _derive_lines(derive, index, enc) if enc and derive is not None else None
    nd = len(derive.outputs) if derive is not None else 0
    first = rows > 0 and derive is not None  # the head and the derived words first (keyorder.py)
    head = keyorder.HEAD if first else 0
    return KeySection(
        host_device(
            render(
                "ptx/key.cu.j2",
                P=P,
                note=CT_NOTE if ct else TABLE_NOTE,
                words=fragment("words.c"),
                support=lookup_support(lookup_tables(prep, ["key_schedule"]), ct),
                lines=lines,
                rest=rest,
                enc_derived=enc_derived,
                enc_arrays=", ".join(sorted(enc or ())),
                derived=_derive_lines(derive, index) if derive is not None else None,
                nrk=len(index),
                nd=nd,
                derived_first=first,
                head=head,
                own_at=keyorder.OWN_WORDS,
                rows=rows,
                ks_at=f" + {head + nd}" if first else "",
                d_at=f" + {head}" if first else f" + {len(index)}",
            )
        ),
        f"{P}_expand_key" if derive is not None else f"{P}_key_schedule",
        head + len(index) + nd,
        (f"{P}_expand_key_enc" if derive is not None else f"{P}_key_schedule_enc") if enc else "",
        head + nd if first else 0,
    )


_FUNCTION = re.compile(r"^static (?=[^=;]*\()", re.M)  # a function definition at column 0 (not a table)


def host_device(text: str) -> str:
    """Marks every function the section defines ``CS_HD`` (host and device; the section defines CS_HD empty
    where it is compiled without nvcc).  A table (``static const T name[] = {...}``) stays host-only: only the
    tests' ct=False section has one, and it is never compiled for the device."""
    return _FUNCTION.sub("CS_HD static ", text)


def _derive_lines(derive: Function, index: dict[str, int], arrays: frozenset[str] | None = None) -> list[str]:
    """D[k] from the round-key words rk[] (u32, zero-extended), stored at d[k] (d = rk + len(index)).  ``arrays``: only
    the D[k] made from those key arrays' words alone (the encrypt-only expansion), the others dropped."""
    if any(op.code == "lut" for op in derive.ops):
        raise ValueError("derived key words must not look tables up (keysplit moves lane work, not lookups)")
    slot = {name: k for k, (name, _) in enumerate(derive.outputs)}
    if arrays is not None:
        from_arrays = [True] * len(derive.ops)  # the op's inputs are all words of `arrays`
        for i, op in enumerate(derive.ops):
            if op.code == "input":
                from_arrays[i] = op.imm[0].split("[", 1)[0] in arrays
            else:
                from_arrays[i] = all(from_arrays[a] for a in op.args)
        kept = [(n, v) for n, v in derive.outputs if from_arrays[v]]
        derive = dce.run(derive.copy_with(derive.ops, kept), {})
    dialect = Scalar()
    rest, loops = (derive, []) if former_derive() else deriveloop.split(derive, index, slot)
    lines = _stored(rest, lambda name, w: f"({dialect.ctype(w)})rk[{index[name]}]", lambda name: f"d[{slot[name]}]")
    for lp in loops:  # rows of a key array that derive by the same ops: one copy of them, in a loop (deriveloop.py)
        rows = f"{lp.array}[{lp.first} + {lp.step if lp.step > 1 else ''}k]"
        out_base = [f"        volatile uint32_t *const dk = d + {lp.out_stride} * k;"] if lp.out_stride else []
        lines += [
            f"    for (int k = 0; k < {lp.count}; ++k) {{  // {rows}: the same {lp.body.work()} ops a row",
            f"        const uint32_t *const kr = rk + {lp.in_base} + {lp.in_stride} * k;",
            *out_base,
            *_stored(
                lp.body,
                lambda name, w, base=lp.in_base: f"({dialect.ctype(w)})kr[{index[name] - base}]",
                lambda name, lp=lp: _row_slot(lp, slot[name], name),
                "        ",
            ),
            "    }",
        ]
    return lines


def _row_slot(lp: deriveloop.RowLoop, first: int, name: str) -> str:
    """Where row k of a row loop stores its output ``name`` (the first row's at ``first``): dk[first], dk = d + a
    stride common to its outputs; or, where they step apart (keyorder.py's rows), d[first + its own stride * k]."""
    if lp.out_stride:
        return f"dk[{first}]"
    step = lp.out_strides[name]
    return f"d[{first} {'-' if step < 0 else '+'} {abs(step)} * k]"


def _stored(fn: Function, bind, target, indent: str = "    ") -> list[str]:
    """fn's ops printed, each derived word stored (at ``target(name)``) right after the line that makes it: no long
    live ranges (the multi-key kernel runs this)."""
    body = emit_body(fn, Scalar(), {}, bind, indent=indent)
    stores: dict[str, list[str]] = {}
    for name, var in body.outputs.items():  # d: rk + len(index), a __restrict__ pointer apart from rk (key.cu.j2)
        stores.setdefault(var, []).append(with_comment(f"{indent}{target(name)} = {var};", f"derived word {name}"))
    lines = []
    for ln in body.lines:
        lines.append(ln)
        m = _DEF.match(ln)
        if m and m.group(1) in stores:
            lines += stores.pop(m.group(1))
    return lines + [ln for group in stores.values() for ln in group]


_DEF = re.compile(r"\s*const \w+ (\w+) =")
