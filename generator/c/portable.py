"""The portable kernels of one cipher under a scalar, sliced or bitsliced schedule -> src/<cipher>_<tag>.c.

Plain C99 (GCC/Clang vector extensions where present, plain arrays elsewhere), compiled once per ISA
level of the library (variants.py): the same text, other -march flags.  The Python side decides
everything (bodies, loads, stores, tables, the lanes, which support code a layout needs, how the
entry points walk the blocks: walk.py); templates/kernel.c.j2 only lays the sections out, and the
static support code (load/store helpers, lane vectors, bit planes and their transposition, the
counter helpers, the entry points) is plain C in templates/fragments/.

    kernel_source(module, Schedule(lea128, c, sliced, v=32)) -> "/* lea128_sliced_v32.c ... */"
"""

from __future__ import annotations

import os

from cipherspec.ir import Module
from cipherspec.schedule import Schedule
from cipherspec.version import __version__

from ..common.templates import render
from . import bitsliced as bs
from . import gfnilayers
from .body import emit_body
from .dialects import Scalar, Vector
from .prepare import Prepared, prepare
from .schedules import lanes as lanes_of
from .text import fragment, kernel_tag, key_slots, load, state_inputs, store, table_section, with_comment, word_index
from .walk import entry_points


def scalar_core(module: Module, prep: Prepared, kind: str) -> dict:
    fn = prep.functions[kind]
    slots = key_slots(module)
    lay = module.block
    step = lay.width // 8
    ind = "    "
    lines = []
    for name in state_inputs(fn, slots):
        i = word_index(name)
        lines.append(
            with_comment(f"{ind}const uint{lay.width}_t x{i} = {load(lay, f'in + {i * step}')};", f"block word {name}")
        )

    def bind(name: str, width: int) -> str:
        if name in slots:
            member, idx = slots[name]
            return f"ks->{member}[{idx}]"
        return f"x{word_index(name)}"

    body = emit_body(fn, Scalar(), prep.tables, bind, ind)
    lines += body.lines
    for i, (name, _) in enumerate(fn.outputs):
        lines.append(with_comment(f"{ind}{store(lay, f'out + {i * step}', body.outputs[name])};", f"block word {name}"))
    return {"name": f"cs_{kind}_1", "doc": f"{kind}: one block (scalar core)", "lines": lines}


def sliced_core(module: Module, prep: Prepared, kind: str, lanes: int, streams: int = 1, counter: bool = False) -> dict:
    """The block-sliced core: ``lanes`` blocks per call, in ``streams`` independent groups of lanes/streams
    blocks (one vector per state word each) whose statements are interleaved, stream j indented by j
    spaces, so that the chains of one group run while another's wait (latency hiding):

        streams=1:  const cs_v64 v40 = CS_V64_ADD(v39, v38);
        streams=2:  const cs_v64 s0_v40 = CS_V64_ADD(s0_v39, s0_v38);
                     const cs_v64 s1_v40 = CS_V64_ADD(s1_v39, s1_v38);

    ``counter``: the CTR core cs_ctr_n, whose ``in`` is the counter block and whose lanes are loaded by
    counter_load (encryption of ctr, ctr + 1, ...; the caller rules out a carry out of the low 64 bits).
    """
    fn = prep.functions[kind]
    slots = key_slots(module)
    lay = module.block
    ind = "    "
    vl = lanes // streams
    state = state_inputs(fn, slots)
    words = sorted(word_index(n) for n in state)
    fast = words == list(range(lay.count)) and lay.count & (lay.count - 1) == 0 and lay.count > 1
    tags = [""] if streams == 1 else [f"_{j}" for j in range(streams)]
    loads: list[str] = []
    for j, tag in enumerate(tags):
        src = "in" if streams == 1 else f"in + {j * vl} * CS_BLOCK"
        if counter:
            loads += counter_load(lay, vl, ind, j * vl, tag)
            continue
        load = (
            ["#if defined(CS_VECTOR_SHUFFLE)"] + _shuffle_load(lay, vl, ind, src, tag, j * vl) + ["#else"]
            if fast
            else []
        )
        loads += load + _scalar_load(lay, state, ind, src, tag, vl if streams > 1 else None)
        loads += ["#endif"] if fast else []
    lines = [f"{ind}cs_v{lay.width} {', '.join(f'x{i}{tag}' for tag in tags for i in range(lay.count))};"] + loads
    lines.append(f"{ind}{{")

    def binder(tag: str):
        def bind(name: str, width: int) -> str:
            if name in slots:
                member, idx = slots[name]
                return f"CS_V{width}_SPLAT(ks->{member}[{idx}])"
            return f"x{word_index(name)}{tag}"

        return bind

    alt = gfnilayers.alternative(gfni_outputs(module, prep, kind))
    bodies = [
        emit_body(
            fn, Vector(), prep.tables, binder(tag), ind + "    ", prefix="v" if streams == 1 else f"s{j}_v", alt=alt
        )
        for j, tag in enumerate(tags)
    ]
    lines += [" " * j + body.lines[n] for n in range(len(bodies[0].lines)) for j, body in enumerate(bodies)]
    fast_out = fast and [word_index(n) for n, _ in fn.outputs] == list(range(lay.count))
    for j, body in enumerate(bodies):
        outs = [body.outputs[name] for name, _ in fn.outputs]
        dst = "out" if streams == 1 else f"out + {j * vl} * CS_BLOCK"
        inner = ind if streams == 1 else ind + "    "
        group = [f"{ind}    {{  /* lane group {j}: blocks {j * vl}..{(j + 1) * vl - 1} */"] if streams > 1 else []
        if fast_out:
            group += (
                ["#if defined(CS_VECTOR_SHUFFLE)"]
                + _shuffle_store(lay, vl, outs, inner + "    ", dst, j * vl)
                + ["#else"]
            )
        group += _scalar_store(lay, fn, outs, inner, dst, vl if streams > 1 else None)
        if fast_out:
            group.append("#endif")
        lines += group + ([f"{ind}    }}"] if streams > 1 else [])
    lines.append(f"{ind}}}")
    what = f"{lanes} blocks at once" + (f", {streams} interleaved groups of {vl}" if streams > 1 else "")
    if counter:
        what = f"counter blocks in..in + {lanes - 1} (in = the counter; no carry out of its low 64 bits), {what}"
    return {
        "name": "cs_ctr_n" if counter else f"cs_{kind}_n",
        "doc": f"{kind}: {what} (block-sliced core)",
        "lines": lines,
    }


def gfni_outputs(module: Module, prep: Prepared, kind: str) -> dict[int, gfnilayers.Output]:
    """The outputs of ``kind``'s layers that a sliced kernel computes on GFNI where the variant has it."""
    memo = prep.__dict__.setdefault("_gfni", {})
    if kind not in memo:
        keys = tuple(arr.name for arr in module.key_arrays)
        memo[kind] = gfnilayers.chosen(prep.functions[kind], prep.tables, keys)
    return memo[kind]


def has_counter_core(module: Module, layout: str) -> bool:
    """Whether a kernel gets cs_ctr_n: sliced, 64-bit block words (the counter's low 64 bits are the last
    word, whatever the word order: counter_load)."""
    return layout == "sliced" and module.block.width == 64


def counter_load(lay, vl: int, ind: str, first: int, tag: str = "") -> list[str]:
    """Lane l of x_i = word i of counter block ctr + first + l (``in`` = ctr, big-endian over the block):
    the last word holds the counter's low 64 bits, lo + first + l (byte-swapped for little-endian words,
    on any host); the others are the counter's high bytes, the same in every block of a run without a
    carry.  Vector extensions: one add of a lane-index vector and one byte shuffle; else a lane loop.

        x0 = CS_V64_SPLAT(cs_load64le(in + 0));   x1 = CS_V64_SPLAT(lo + 8) + (cs_v64){0, 1, 2, 3}; swap
    """
    c = lay.count
    last = f"x{c - 1}{tag}"
    value = f"lo + {first} + (uint64_t)l"
    iota = ", ".join(str(k) for k in range(vl))
    lines = [f"{ind}{{", f"{ind}const uint64_t lo = cs_load64be(in + CS_BLOCK - 8);"]
    lines += [
        with_comment(
            f"{ind}x{i}{tag} = CS_V64_SPLAT({load(lay, f'in + {8 * i}')});",
            f"block word X[{i}]: counter bytes {8 * i}..{8 * i + 7}",
        )
        for i in range(c - 1)
    ]
    lines += [
        "#if defined(CS_VECTOR_SHUFFLE)",
        f"{ind}typedef uint8_t cs_vbytes_64 __attribute__((vector_size({8 * vl})));",
        with_comment(
            f"{ind}{last} = CS_V64_SPLAT(lo + {first}) + (cs_v64){{{iota}}};",
            f"blocks {first}..{first + vl - 1}: the counter's low 64 bits",
        ),
        *(_swap_bytes(lay, last, vl, ind, always=True) if lay.endian == "little" else []),
        "#else",
        f"{ind}uint64_t w[{vl}];",
        f"{ind}int l;",
        with_comment(
            f"{ind}for (l = 0; l < {vl}; l++) w[l] = {f'cs_bswap64({value})' if lay.endian == 'little' else value};",
            f"blocks {first}..{first + vl - 1}: the counter's low 64 bits",
        ),
        with_comment(f"{ind}memcpy(&{last}, w, sizeof {last});", f"block word X[{c - 1}], all lanes"),
        "#endif",
    ]
    return lines + [f"{ind}}}"]


def _scalar_load(lay, state: list[str], ind: str, src: str = "in", tag: str = "", vl: int | None = None) -> list[str]:
    """Word i of block l into lane l of x_i through a transposed array (any word count, plain arrays)."""
    t, step = f"uint{lay.width}_t", lay.width // 8
    n = "CS_LANES" if vl is None else str(vl)
    lines = [
        f"{ind}{{",
        f"{ind}{t} w[{lay.count}][{n}];  /* w[i][l]: word i of block l (the transpose) */",
        f"{ind}int l;",
        f"{ind}for (l = 0; l < {n}; l++) {{",
    ]
    for name in state:
        i = word_index(name)
        lines.append(
            with_comment(
                f"{ind}    w[{i}][l] = {load(lay, f'{src} + l * CS_BLOCK + {i * step}')};", f"block word {name}"
            )
        )
    lines.append(f"{ind}}}")
    for name in state:
        i = word_index(name)
        x = f"x{i}{tag}"
        lines.append(with_comment(f"{ind}memcpy(&{x}, w[{i}], sizeof {x});", f"block word {name}, all lanes"))
    return lines + [f"{ind}}}"]


def _scalar_store(lay, fn, outs: list[str], ind: str, dst: str = "out", vl: int | None = None) -> list[str]:
    t, step = f"uint{lay.width}_t", lay.width // 8
    n = "CS_LANES" if vl is None else str(vl)
    lines = [f"{ind}    {t} w[{lay.count}][{n}];", f"{ind}    int l;"]
    for i, (name, _) in enumerate(fn.outputs):
        lines.append(
            with_comment(f"{ind}    memcpy(w[{i}], &{outs[i]}, sizeof {outs[i]});", f"block word {name}, all lanes")
        )
    lines.append(f"{ind}    for (l = 0; l < {n}; l++) {{")
    for i, (name, _) in enumerate(fn.outputs):
        lines.append(
            with_comment(
                f"{ind}        {store(lay, f'{dst} + l * CS_BLOCK + {i * step}', f'w[{i}][l]')};", f"block word {name}"
            )
        )
    return lines + [f"{ind}    }}"]


def _swap_bytes(lay, var: str, lanes: int, ind: str, always: bool = False) -> list[str]:
    """Every lane's bytes reversed where the block's word order differs from the host's (``always``: on
    every host): one byte shuffle, or on x86 without SSSE3 (no PSHUFB: gcc would assemble the shuffle byte
    by byte) log2(bytes) steps of shifts and masks that swap halves, quarters, ... of each lane."""
    if lay.width == 8:
        return []
    host = "__ORDER_LITTLE_ENDIAN__" if lay.endian == "big" else "__ORDER_BIG_ENDIAN__"
    w, nb = lay.width, lay.width // 8
    idx = ", ".join(str(lane * nb + (nb - 1 - j)) for lane in range(lanes) for j in range(nb))
    steps = []
    k = w // 2
    while k >= 8:
        mask = sum(((1 << k) - 1) << (2 * k * g) for g in range(w // (2 * k)))
        m = f"(uint{w}_t)0x{mask:0{w // 4}x}u" + ("ll" if w == 64 else "")
        steps.append(f"{ind}{var} = (({var} & {m}) << {k}) | (({var} >> {k}) & {m});")
        k //= 2
    swap = [
        "#if (defined(__x86_64__) || defined(__i386__)) && !defined(__SSSE3__)",
        *steps,
        "#else",
        f"{ind}{{ cs_vbytes_{w} b_; memcpy(&b_, &{var}, sizeof b_);",
        f"{ind}  b_ = CS_SHUF2(cs_vbytes_{w}, b_, b_, {idx}); memcpy(&{var}, &b_, sizeof b_); }}",
        "#endif",
    ]
    return swap if always else ["#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == " + host, *swap, "#endif"]


def _shuffle_load(lay, lanes: int, ind: str, src: str = "in", tag: str = "", first: int = 0) -> list[str]:
    """x_i = word i of every block: the blocks loaded as whole vectors, then log2(count) stages of
    even/odd deinterleaving (each stage halves the word stride; block order is kept)."""
    c, w = lay.count, lay.width
    T = f"cs_v{w}"
    even = ", ".join(str(2 * e) for e in range(lanes))
    odd = ", ".join(str(2 * e + 1) for e in range(lanes))
    lines = [
        f"{ind}{{",
        f"{ind}typedef uint8_t cs_vbytes_{w} __attribute__((vector_size({lanes * w // 8})));",
        f"{ind}{T} {', '.join(f't0_{k}' for k in range(c))};",
    ]
    for k in range(c):
        lines.append(
            with_comment(
                f"{ind}memcpy(&t0_{k}, {src} + {k} * sizeof t0_{k}, sizeof t0_{k});",
                f"blocks {first + k * lanes // c}..{first + (k + 1) * lanes // c - 1}",
            )
        )
        lines += _swap_bytes(lay, f"t0_{k}", lanes, ind)
    cur = [f"t0_{k}" for k in range(c)]
    s = 0
    while (1 << s) < c:
        s += 1
        nxt = [""] * c
        for j in range(c // 2):
            for half, mask in ((0, even), (1, odd)):
                v = f"t{s}_{half * c // 2 + j}"
                lines.append(
                    with_comment(
                        f"{ind}const {T} {v} = CS_SHUF2({T}, {cur[2 * j]}, {cur[2 * j + 1]}, {mask});",
                        f"block transposition, stage {s}",
                    )
                )
                nxt[half * c // 2 + j] = v
        cur = nxt
    lines += [with_comment(f"{ind}x{i}{tag} = {cur[i]};", f"block word X[{i}], all lanes") for i in range(c)]
    return lines + [f"{ind}}}"]


def _shuffle_store(lay, lanes: int, outs: list[str], ind: str, dst: str = "out", first: int = 0) -> list[str]:
    """The inverse of _shuffle_load: log2(count) stages of interleaving, then whole-vector stores."""
    c, w = lay.count, lay.width
    T = f"cs_v{w}"
    lo = ", ".join(str((e % 2) * lanes + e // 2) for e in range(lanes))
    hi = ", ".join(str(((lanes + e) % 2) * lanes + (lanes + e) // 2) for e in range(lanes))
    lines = [f"{ind}typedef uint8_t cs_vbytes_{w} __attribute__((vector_size({lanes * w // 8})));"]
    cur = list(outs)
    stages = 0
    while (1 << stages) < c:
        stages += 1
    for s in range(stages, 0, -1):
        prev = [""] * c
        for j in range(c // 2):
            a, b = cur[j], cur[c // 2 + j]
            prev[2 * j], prev[2 * j + 1] = f"u{s}_{2 * j}", f"u{s}_{2 * j + 1}"
            for v, mask in ((prev[2 * j], lo), (prev[2 * j + 1], hi)):
                lines.append(
                    with_comment(
                        f"{ind}{T} {v} = CS_SHUF2({T}, {a}, {b}, {mask});", f"block transposition back, stage {s}"
                    )
                )
        cur = prev
    for k in range(c):
        lines += _swap_bytes(lay, cur[k], lanes, ind)
        lines.append(
            with_comment(
                f"{ind}memcpy({dst} + {k} * sizeof {cur[k]}, &{cur[k]}, sizeof {cur[k]});",
                f"blocks {first + k * lanes // c}..{first + (k + 1) * lanes // c - 1}",
            )
        )
    return lines


def one_block_declarations(P: str) -> str:
    """The library's one-block cores, as a kernel calls them (cs_encrypt_1, cs_decrypt_1)."""
    return "\n".join(
        ["/* one block at a time: the library's scalar cores ({P}.c), compiled once */".replace("{P}", P)]
        + [f"void {P}_cs_{k}_1(const {P}_key *ks, const uint8_t *in, uint8_t *out);" for k in ("encrypt", "decrypt")]
        + [f"#define cs_{k}_1 {P}_cs_{k}_1" for k in ("encrypt", "decrypt")]
    )


def byte_rotation_mask(width: int, amount: int, lanes: int) -> str:
    """The __builtin_shuffle mask rotating each little-endian ``width``-bit lane left by ``amount`` bits:
    result byte j of a lane is source byte (j - amount/8) mod (width/8).  (32, 8): 3,0,1,2, 7,4,5,6, ..."""
    nb, sh = width // 8, amount // 8
    return ", ".join(str(lane * nb + (j - sh) % nb) for lane in range(lanes) for j in range(nb))


def layout_doc(layout: str, lanes: int, streams: int = 1) -> str:
    """The source banner's paragraph on the layout."""
    if layout == "bitsliced":
        return (
            f" * Bitsliced: {lanes} blocks per call of the core; bit b of state byte j of all {lanes} blocks lives in one\n"
            " * plane vector (GCC/Clang vector extensions; define CS_NO_VECTOR_EXT to use the plain-array fallback).\n"
            " * S-boxes are Boolean circuits, round keys are planes: no table lookups at all.  A short run\n"
            f" * (a tail, one CBC-encryption block) is padded to {lanes} blocks."
        )
    if layout == "sliced" and streams > 1:
        vl = lanes // streams
        return (
            f" * Block-sliced: {lanes} blocks per call of the core, in {streams} interleaved groups of {vl}; word i of the\n"
            f" * {vl} blocks of a group lives in the lanes of one vector (GCC/Clang vector extensions; define\n"
            " * CS_NO_VECTOR_EXT to use the plain-array fallback); the groups' statements alternate, so one group's\n"
            f" * dependency chains run while another's wait.  Runs of {lanes} blocks, then the scalar core for the tail."
        )
    if layout == "sliced":
        return (
            f" * Block-sliced: {lanes} blocks per call of the core; word i of all {lanes} blocks lives in the lanes of one\n"
            " * vector (GCC/Clang vector extensions; define CS_NO_VECTOR_EXT to use the plain-array fallback).\n"
            f" * Runs of {lanes} blocks, then the scalar core for the tail."
        )
    return " * Scalar: one block per call of the core."


def _sliced_support(module: Module, prep: Prepared, lanes: int, streams: int = 1) -> list[str]:
    """The vector types and operators of a sliced core: one section each for the lane vectors (vector
    extensions, plain-array fallback), the byte-shuffle rotations, the per-lane lookups and conversions.
    With ``streams`` > 1 a vector holds lanes / streams blocks (CS_VLANES) and a core call CS_LANES."""
    vl = lanes // streams
    vmacro = "CS_LANES" if streams == 1 else "CS_VLANES"
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
    vectors = "\n".join(
        [fragment("vectors_open.c", lanes=lanes, vlanes=vl if streams > 1 else 0)]
        + [fragment("vector_ext.c", w=w, nbytes=vl * w // 8) for w in sorted(widths)]
        + ["#else /* plain arrays: any C99 compiler */"]
        + [fragment("vector_plain.c", w=w, vl=vmacro) for w in sorted(widths)]
        + ["#endif"]
    )
    gfni = 8 in widths and any(gfni_outputs(module, prep, kind) for kind in ("encrypt", "decrypt"))
    return (
        [vectors]
        + ([fragment("gfni_layers.c", nbytes=vl)] if gfni else [])
        + [
            fragment("byte_rotation.c", w=w, k=k, nbytes=vl * w // 8, mask=byte_rotation_mask(w, k, vl))
            for w, k in sorted(rotb)
        ]
        + [fragment("lane_lookup.c", a=a, b=b, vl=vmacro) for a, b in sorted(luts)]
        + [fragment("lane_convert.c", a=a, b=b, vl=vmacro) for a, b in sorted(cvts)]
    )


def kernel_source(module: Module, schedule: Schedule, ct_note: str) -> str:
    """The kernel file of a scalar, sliced or bitsliced schedule."""
    prep = prepare(module, schedule)
    layout = schedule.layout
    n = lanes_of(module, schedule) if layout != "scalar" else 0
    P = module.cipher
    support = [table_section(list(prep.tables.values()))] if prep.tables and layout != "bitsliced" else []
    after_cores: list[str] = []
    if layout == "bitsliced":
        support.append(fragment("planes.c", lanes=n, plane_words=n // 64, counter=bs.has_counter_core(module)))
        support.append(
            "\n".join(
                [
                    "/* ---- S-boxes as circuits (out of line: the cores call them once per lookup) ---- */",
                    fragment("noinline.c"),
                ]
                + bs.sbox_functions(prep.tables)
            )
        )
        cores = [bs.core(module, prep, "encrypt"), bs.core(module, prep, "decrypt")]
        if bs.has_counter_core(module):
            cores.append(bs.counter_core(cores[0]))
        support += [piece for c in cores for piece in c["pieces"]]
        after_cores = [fragment("padded_run.c", P=P, kind=kind) for kind in ("encrypt", "decrypt")]
    else:  # the one-block cores are the library's (library.py: compiled once, not once per ISA level)
        cores = []
        support.append(one_block_declarations(P))
    streams = schedule.get("i", 1) if layout == "sliced" else 1
    counter_core = has_counter_core(module, layout)
    if layout == "sliced":
        support += _sliced_support(module, prep, n, streams)
        cores += [sliced_core(module, prep, kind, n, streams) for kind in ("encrypt", "decrypt")]
    if counter_core:
        support.append(fragment("bswap64.c"))
        cores.append(sliced_core(module, prep, "encrypt", n, streams, counter=True))
    after_cores += [fragment("mode_helpers.c")] + ([fragment("ctr_fill.c")] if n else [])
    after_cores += [fragment("kernel_names.c", P=P)] + entry_points(
        P,
        n,
        layout == "bitsliced",
        counter_core=counter_core,
        counter_planes=layout == "bitsliced" and bs.has_counter_core(module),
    )
    return render(
        "c/kernel.c.j2",
        P=P,
        cipher=P,
        tag=kernel_tag(schedule),
        version=__version__,
        spec_file=os.path.basename(module.source) if module.source else "?",
        schedule=schedule.name,
        ct_note=ct_note,
        layout_doc=layout_doc(layout, n, streams),
        block_bytes=module.block.nbytes,
        words=fragment("words.c"),
        support=support,
        cores=cores,
        after_cores=after_cores,
    )
