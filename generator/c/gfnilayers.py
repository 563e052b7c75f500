"""GFNI lowering of the bit-linear layers of a sliced kernel on byte words: each output byte of a layer is
the XOR over its source bytes of one 8x8 bit-matrix multiply (VGF2P8AFFINEQB), chosen per layer where that
takes fewer vector ops than the shifts, masks and ORs the IR writes.

In a sliced kernel register v_s holds byte word s of every block, one block per byte lane, so every byte
of the register needs the same 8x8 matrix: the one-matrix-per-qword restriction of GF2P8AFFINEQB costs
nothing and no byte shuffle is needed (the layer's byte movement is the choice of source register).  The
matrices come from the IR analysis (cipherspec/bitlinear.py): bit b of output o has bit k of source s.
A source whose block is the identity is XORed in as it is (a round key); the layer's constant bits go
into the instruction's immediate.  Constant-time: the matrices are compile-time constants, no table.

    before (PRESENT-like pLayer + key, 208 word ops per layer):
        %300 = shr.u8 %290, 3   %301 = and.u8 %300, 1   ...   %340 = xor.u8 %339, %31   %341 = and.u8 %340, 15
    after (16 outputs x (4 + 1 affine, 4 XORs) = 144 ops):
        const cs_v8 v341 = CS_GFNI_OR(CS_V8_GFA(v290, 0x...ULL, 0x00) ^ ... ^ CS_V8_GFA(v31, 0x...ULL, 0x00), <as before>);

``CS_GFNI_OR(g, p)`` is ``g`` where the kernel is compiled with GFNI for its vector width, else ``p`` (the
variants without GFNI keep the IR's ops; the GFNI variant leaves them dead and the compiler drops them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cipherspec.bitlinear import Layer, bit_forms, layers
from cipherspec.ir import Function, Table

IDENTITY = 0x0102040810204080  # the GF2P8AFFINEQB matrix of the identity map (byte 7 - i: bit i)
MIN_OPS = 4  # smaller layers (a key XOR, one mask) are left as written


@dataclass(frozen=True)
class Term:
    """``matrix`` times the XOR of sources ``srcs`` (u8 words; sources with the same block share one multiply):
    byte 7 - i of ``matrix`` = the source bits feeding bit i."""

    srcs: tuple[int, ...]
    matrix: int

    @property
    def identity(self) -> bool:
        return self.matrix == IDENTITY


@dataclass(frozen=True)
class Output:
    """Output op ``vid`` = XOR of its terms, XOR ``const``."""

    vid: int
    terms: tuple[Term, ...]
    const: int

    def ops(self) -> int:
        """Vector instructions: one GF2P8AFFINEQB per non-identity term, the XORs between terms, and one more
        XOR for a constant no affine term's immediate can carry."""
        affine = sum(1 for t in self.terms if not t.identity)
        srcs = sum(len(t.srcs) for t in self.terms)
        xors = max(srcs - 1, 0) + (1 if self.const and not affine and self.terms else 0)
        return affine + xors


@dataclass(frozen=True)
class Plan:
    """One layer of a function: its GFNI form (empty where ``why_not``) and both costs in vector ops."""

    layer: Layer
    outputs: tuple[Output, ...]
    gfni_ops: int
    why_not: str  # '' where the layer has a GFNI form

    @property
    def shift_ops(self) -> int:
        return self.layer.ops

    @property
    def chosen(self) -> bool:
        return not self.why_not and self.gfni_ops < self.shift_ops

    def note(self) -> str:
        if self.why_not:
            return f"shifts/masks as written ({self.shift_ops} word ops): no GFNI form ({self.why_not})"
        if self.chosen:
            return (
                f"GFNI where the CPU has it: {self.gfni_ops} vector ops per layer (GF2P8AFFINEQB 8x8 bit matrices "
                f"+ XORs, no shuffles: each register is one byte word) instead of {self.shift_ops} shift/mask/OR ops"
            )
        return f"shifts/masks as written ({self.shift_ops} word ops): cheaper than GFNI's {self.gfni_ops}"


def matrix(rows: list[int]) -> int:
    """The GF2P8AFFINEQB qword of the 8x8 bit matrix whose row i (a mask over input bits) gives output bit i."""
    return sum((r & 0xFF) << (8 * (7 - i)) for i, r in enumerate(rows))


def affine_byte(a: int, x: int, b: int) -> int:
    """GF2P8AFFINEQB on one byte (the instruction's definition): bit i = parity(byte 7 - i of a & x) ^ bit i of b."""
    return sum((bin((a >> (8 * (7 - i))) & 0xFF & x).count("1") & 1) << i for i in range(8)) ^ b


def plan_layer(fn: Function, lay: Layer, forms: list, base: dict[int, int]) -> Plan:
    """The GFNI form of one layer (every output and every source a u8 word), or why it has none."""
    wide = [fn.ops[v] for v in lay.outputs + lay.sources if fn.ops[v].width != 8]
    if wide:
        return Plan(lay, (), 0, f"a u{wide[0].width} word in the layer: GF2P8AFFINEQB works on bytes")
    outs = []
    for o in lay.outputs:
        rows: dict[int, list[int]] = {}
        const = 0
        for i, f in enumerate(forms[o]):
            const |= (f & 1) << i
            for s in lay.sources:
                bits = (f >> base[s]) & 0xFF
                if bits:
                    rows.setdefault(s, [0] * 8)[i] = bits
        by_matrix: dict[int, list[int]] = {}
        for s, r in sorted(rows.items()):
            by_matrix.setdefault(matrix(r), []).append(s)
        terms = tuple(Term(tuple(srcs), a) for a, srcs in by_matrix.items())
        outs.append(Output(o, terms, const))
    return Plan(lay, tuple(outs), sum(out.ops() for out in outs), "")


def plans(fn: Function, tables: dict[str, Table], key_names: tuple[str, ...] = ()) -> list[Plan]:
    """Every layer of ``fn`` with at least MIN_OPS ops, planned."""
    forms, base = bit_forms(fn, tables)
    return [plan_layer(fn, lay, forms, base) for lay in layers(fn, tables, key_names) if lay.ops >= MIN_OPS]


def chosen(fn: Function, tables: dict[str, Table], key_names: tuple[str, ...] = ()) -> dict[int, Output]:
    """Output op -> its GFNI form, for the layers where GFNI pays."""
    return {out.vid: out for p in plans(fn, tables, key_names) if p.chosen for out in p.outputs}


def expression(out: Output, names: list[str]) -> str:
    """The C expression of one output on the GFNI macros (CS_V8_GFA: fragments/gfni_layers.c)."""
    parts, const = [], out.const
    for t in out.terms:
        x = " ^ ".join(names[s] for s in t.srcs)
        if t.identity:
            parts.append(x)
        else:
            parts.append(f"CS_V8_GFA({x if len(t.srcs) == 1 else f'({x})'}, {t.matrix:#018x}ULL, {const:#04x})")
            const = 0
    if const or not parts:
        parts.append(f"CS_V8_SPLAT({const:#04x})")
    return "(" + " ^ ".join(parts) + ")"


def alternative(found: dict[int, Output]) -> Callable[[int, list[str], str], str] | None:
    """The emit_body hook: op vid's expression as CS_GFNI_OR(GFNI form, the dialect's), for the chosen outputs."""
    if not found:
        return None

    def alt(vid: int, names: list[str], expr: str) -> str:
        return f"CS_GFNI_OR({expression(found[vid], names)}, {expr})" if vid in found else expr

    return alt
