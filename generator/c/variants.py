"""Run-time dispatch for the C libraries: the x86-64 ISA levels, and which kernels a library carries.

A library's kernels are compiled once per ISA level (the same C source with ``-march`` flags, or, for
the ``aesni`` kernels, one source whose vector width follows the level); the library's own C code
(src/<cipher>.c) reads CPUID once, at first use, and calls the best variant the CPU can run.

    level       CPU features it needs                         flags                          blocks
    sse2        x86-64 baseline                               -march=x86-64                  (any)
    aesni       x86-64-v2 (SSSE3, SSE4.1/4.2, POPCNT) + AES  -march=x86-64-v2 -maes         128-bit AES-NI
    avx2        x86-64-v3 (AVX2, BMI1/2, FMA, MOVBE, ...)     -march=x86-64-v3
    vaes_avx2   x86-64-v3 + AES + VAES                        -march=x86-64-v3 -maes -mvaes  256-bit VAES
    avx512      x86-64-v4 (AVX-512 F/BW/CD/DQ/VL)             -march=x86-64-v4
    vaes_avx512 x86-64-v4 + AES + VAES                        -march=x86-64-v4 -maes -mvaes  512-bit VAES
    gfni_avx2   x86-64-v3 + AES + VAES + GFNI                 ... -mgfni                     256-bit GFNI
    gfni_avx512 x86-64-v4 + AES + VAES + GFNI                 ... -mgfni                     512-bit GFNI

    variants(module, schedule)  (x86-64 targets, best first)
        aes128_c_aesni      -> vaes_avx512, vaes_avx2, aesni (kernel aesni);  avx2, sse2 (bitsliced_v32)
        sm4_c_aesni         -> gfni_avx512, vaes_avx512, gfni_avx2, vaes_avx2, aesni (word-sliced); avx2, sse2
        lea128_c_sliced_v32 -> avx512 (sliced_v64_i2: 32-bit ARX words on zmm, lanes64.py), avx2 (sliced_v32),
                               sse2 (sliced_v16)
        present80_c_sliced_v32 -> gfni_avx512, avx512, gfni_avx2, avx2, sse2: the gfni levels compute the pLayer
                               on GF2P8AFFINEQB (gfnilayers.py), the others with the IR's shifts and masks
        speck128_128_c_sliced_v32 -> avx512 (sliced_v64_i4), avx2 (sliced_v32_i4), sse2 (sliced_v16_i4):
                               64-bit ARX words, width and interleave per level from lanes64.py's cost model
    portable(module, schedule)  (any other target: one variant, no ISA flags)
        aes128_c_aesni      -> portable (bitsliced_v32)

GHASH (GCM) is dispatched the same way, from the carry-less multiplies a level allows (``allows``):
sse2 -> portable, aesni -> pclmul, the AVX2 and AVX-512 levels -> vpclmul_avx2 / vpclmul_avx512 where
the CPU has VPCLMULQDQ (CPUID.(7,0):ECX bit 10), else pclmul (CPUID.1:ECX bit 1).

CIPHERSPEC_X86_ISA=<level> caps the choice: the best variant whose features the level has (avx2 on an
AES library: the bitsliced AVX2 kernels).  A level this CPU lacks, or a name that is no level, is an
error at first use: set_key returns CIPHERSPEC_ERR_ISA and <cipher>_dispatch_error() says why.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cipherspec.ir import Module
from cipherspec.schedule import Schedule

# CPU feature groups the dispatcher tests (fragments/dispatch_x86.c computes them from CPUID/XGETBV)
FEATURES = ("SSE2", "V2", "AES", "V3", "VAES", "V4", "CLMUL", "VCLMUL", "GFNI")


@dataclass(frozen=True)
class Level:
    name: str
    features: tuple[str, ...]  # subset of FEATURES
    flags: tuple[str, ...]  # compiler flags of its objects
    vector_bits: int  # the widest vector the level's AES-NI kernels use (0: no AES instructions)
    doc: str
    # features beyond its own that the level lets GHASH use where the CPU has them (carry-less multiplies:
    # no psABI level names them, but every CPU with AES-NI or AVX2 has PCLMULQDQ)
    allows: tuple[str, ...] = ()


LEVELS = (
    Level("sse2", ("SSE2",), ("-march=x86-64",), 0, "x86-64 baseline (SSE2)"),
    Level(
        "aesni", ("SSE2", "V2", "AES"), ("-march=x86-64-v2", "-maes"), 128, "x86-64-v2 + AES-NI, 128-bit", ("CLMUL",)
    ),
    Level("avx2", ("SSE2", "V2", "V3"), ("-march=x86-64-v3",), 0, "x86-64-v3 (AVX2)", ("CLMUL", "VCLMUL")),
    Level(
        "vaes_avx2",
        ("SSE2", "V2", "V3", "AES", "VAES"),
        ("-march=x86-64-v3", "-maes", "-mvaes"),
        256,
        "x86-64-v3 + VAES, 256-bit",
        ("CLMUL", "VCLMUL"),
    ),
    Level("avx512", ("SSE2", "V2", "V3", "V4"), ("-march=x86-64-v4",), 0, "x86-64-v4 (AVX-512)", ("CLMUL", "VCLMUL")),
    Level(
        "vaes_avx512",
        ("SSE2", "V2", "V3", "V4", "AES", "VAES"),
        ("-march=x86-64-v4", "-maes", "-mvaes"),
        512,
        "x86-64-v4 + VAES, 512-bit",
        ("CLMUL", "VCLMUL"),
    ),
    Level(
        "gfni_avx2",
        ("SSE2", "V2", "V3", "AES", "VAES", "GFNI"),
        ("-march=x86-64-v3", "-maes", "-mvaes", "-mgfni"),
        256,
        "x86-64-v3 + VAES + GFNI, 256-bit",
        ("CLMUL", "VCLMUL"),
    ),
    Level(
        "gfni_avx512",
        ("SSE2", "V2", "V3", "V4", "AES", "VAES", "GFNI"),
        ("-march=x86-64-v4", "-maes", "-mvaes", "-mgfni"),
        512,
        "x86-64-v4 + VAES + GFNI, 512-bit",
        ("CLMUL", "VCLMUL"),
    ),
)
BY_NAME = {lv.name: lv for lv in LEVELS}
PORTABLE_LEVELS = ("avx512", "avx2", "sse2")  # best first: portable C kernels at each level
AESNI_LEVELS = ("vaes_avx512", "vaes_avx2", "aesni")
# word-sliced and byte-sliced aesni kernels (aesni/wordsliced.py, aesni/bytesliced.py) compute S-boxes on GFNI
# where the level has it
GFNI_AESNI_LEVELS = ("gfni_avx512", "vaes_avx512", "gfni_avx2", "vaes_avx2", "aesni")
WORD_LEVELS = GFNI_AESNI_LEVELS
# a sliced kernel with a bit-linear layer on byte words that pays on GFNI (gfnilayers.py) also compiles at the
# GFNI levels (their AES/VAES features are more than the layer needs: a CPU with GFNI but no VAES runs avx512/avx2)
GFNI_SLICED_LEVELS = ("gfni_avx512", "avx512", "gfni_avx2", "avx2", "sse2")
# An aesni library's portable fallback runs where AES-NI is missing: CPUs before AVX2 (every x86-64 CPU
# with AVX-512 has AES-NI), or a level forced lower with CIPHERSPEC_X86_ISA; sse2 and avx2 cover both.
FALLBACK_LEVELS = ("avx2", "sse2")


@dataclass(frozen=True)
class Variant:
    """One compiled copy of a kernel: ``name`` (the level, or "portable"), the kernel schedule it runs."""

    name: str
    kernel: Schedule
    level: Level | None  # None: the portable variant (no ISA flags, every target)

    @property
    def flags(self) -> tuple[str, ...]:
        if self.level is None:
            return ()
        extra = (f"-DCS_VBITS={self.level.vector_bits}",) if self.kernel.layout == "aesni" else ()
        return self.level.flags + extra

    @property
    def needs(self) -> str:
        return self.level.doc if self.level else "any C99 compiler"


def kernels(module: Module, schedule: Schedule) -> list[Schedule]:
    """The kernel schedules a library schedule compiles, best first: aesni -> [aesni, its fallback]."""
    from .schedules import fallback

    if schedule.layout == "aesni":
        return [schedule, fallback(module, schedule)]
    return [schedule]


def variants(module: Module, schedule: Schedule) -> list[Variant]:
    """The x86-64 variants of a library, best first (the dispatcher's table)."""
    ks = kernels(module, schedule)
    out = []
    for k in ks:
        names = _aesni_levels(module) if k.layout == "aesni" else FALLBACK_LEVELS if len(ks) > 1 else PORTABLE_LEVELS
        if names == PORTABLE_LEVELS and has_gfni_layers(module, k):
            names = GFNI_SLICED_LEVELS
        out += [Variant(n, _level_kernel(module, k, n), BY_NAME[n]) for n in names]
    return out


def has_gfni_layers(module: Module, kernel: Schedule) -> bool:
    """Whether a sliced kernel computes some bit-linear layer on GFNI where the variant has it."""
    from .portable import gfni_outputs
    from .prepare import prepare

    if kernel.layout != "sliced":
        return False
    prep = prepare(module, kernel)
    return any(gfni_outputs(module, prep, kind) for kind in ("encrypt", "decrypt"))


def _aesni_levels(module: Module) -> tuple[str, ...]:
    from .aesni import has_gfni_sboxes

    return GFNI_AESNI_LEVELS if has_gfni_sboxes(module) else AESNI_LEVELS


def portable(module: Module, schedule: Schedule) -> Variant:
    """The one variant of a library on a target that is not x86-64: the last (portable) kernel, on 16-byte
    vectors (what SSE2, NEON and most other SIMD units have)."""
    return Variant("portable", _level_kernel(module, kernels(module, schedule)[-1], "portable"), None)


def compiled_kernels(module: Module, schedule: Schedule) -> list[Schedule]:
    """Every kernel schedule some variant compiles (one source file each), in first-use order."""
    return list(dict.fromkeys([v.kernel for v in variants(module, schedule)] + [portable(module, schedule).kernel]))


def _level_kernel(module: Module, kernel: Schedule, level: str) -> Schedule:
    """The kernel a level compiles: a sliced kernel of a 64-bit-word ARX spec (no ``i`` given) on the width
    and interleave lanes64's cost model picks for the level; else the kernel itself, narrowed on sse2 and
    the portable variant."""
    from . import lanes64
    from .schedules import with_vector_bytes

    p = lanes64.plan(module, level) if kernel.layout == "sliced" and kernel.get("i") is None else None
    if p is not None:
        return with_vector_bytes(module, kernel, p.vector_bytes, p.interleave)
    return _narrow(module, kernel) if level in ("sse2", "portable") else kernel


def layout_notes(module: Module, schedule: Schedule, x86: bool = True) -> list[str]:
    """The build notes on a 64-bit-word spec's lane layout: per variant, what lanes64 chose and its
    estimate; or why the model does not apply (nothing for specs on narrower words)."""
    from . import lanes64

    if module.block.width not in (32, 64) or schedule.layout != "sliced":
        return []
    if module.block.width == 32 and not lanes64.qualifies(module):
        return []  # (32-bit words: a note only where the model applies)
    if schedule.get("i") is not None:
        return [f"{schedule.name}: interleave i{schedule.get('i')} given: every variant uses it (no cost model)"]
    why = lanes64.why_not(module)
    if why:
        return [f"{schedule.name}: 64-bit lanes, no interleave ({why}: lanes64's cost model does not apply)"]
    levels = [v.name for v in variants(module, schedule)] if x86 else ["portable"]
    return [f"{schedule.name}: {p.note()}" for lv in levels if (p := lanes64.plan(module, lv)) is not None]


def _narrow(module: Module, kernel: Schedule) -> Schedule:
    """A sliced or bitsliced kernel on 16-byte vectors: wider ones compile to pairs of 16-byte operations,
    at twice the compile time (gcc's generic vector lowering) for nothing."""
    from .schedules import with_vector_bytes

    return with_vector_bytes(module, kernel, 16) if kernel.get("v", 0) > 16 else kernel


def is_x86_64(triple: str) -> bool:
    """``cc -dumpmachine`` output -> whether the x86-64 variants apply (x86_64-linux-gnu, x86_64-pc-...)."""
    return triple.split("-")[0] in ("x86_64", "amd64")


@functools.cache
def compiler_supports(cc: str, flags: tuple[str, ...]) -> bool:
    """Whether ``cc`` compiles (and so can build a variant) with ``flags``; cached per process."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "probe.c"
        src.write_text("int cs_probe(int x) { return x + 1; }\n")
        try:
            p = subprocess.run(
                [cc, *flags, "-c", str(src), "-o", str(Path(d) / "probe.o")], capture_output=True, text=True, timeout=60
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return p.returncode == 0
