"""The C target's schedules: which exist for a cipher, how a ``--schedule`` text names one, the default.

Layouts:
    scalar          one block per call of the core
    sliced          N blocks per call: state word i of all N blocks in the lanes of one vector
                    (GCC/Clang ``vector_size``; a plain-array fallback elsewhere); param ``v`` = the
                    vector size in bytes for the block's word width (v32 on u32 words = 8 blocks,
                    on u8 words = 32 blocks); param ``i`` = independent lane groups per call, interleaved
                    statement by statement to hide latency (i2 on v64 u64 words = 16 blocks); without ``i``
                    the x86 variants of a 64-bit-word ARX spec get their width and interleave from the cost
                    model of lanes64.py (per ISA level)
    bitsliced       N = 8·v blocks per call (128 or 256): bit b of byte j of all N blocks in one bit-plane
                    vector, every op as plane logic (words of any width: add/sub as ripple-carry adders,
                    shifts, rotations, byte extraction and bit permutations as renaming), every table as
                    a Boolean circuit (Boyar-Peralta for AES-equivalent S-boxes, else synthesized:
                    generator/common/sbox_synth.py); constant-time.  Any spec whose block is a multiple of
                    8 bytes (bitsliced_support says why not); param ``v`` = the plane vector size in bytes
    aesni           x86-64 AES instructions (generator/c/aesni/): whole AES rounds as AESENC/AESDEC where
                    the IR is AES's, else byte-sliced S-boxes via AESENCLAST/AESDECLAST; 128-, 256- or
                    512-bit registers per ISA level (variants.py); the library falls back to bitsliced_v32
                    (``fallback``) on CPUs without AES-NI and on other targets; constant-time.  Only for
                    specs on u8 words whose tables are affine-equivalent to the AES S-box
Param ``t`` (only for specs with tables AND gmul): ``tbytes`` = byte tables, gmul as shifts/XORs;
``tfused`` = gmul-of-lut fused into one 256-entry table per (table, constant).

    parse_schedule(module, "sliced_v32")                -> Schedule(..., "sliced", (("v", 32),))
    parse_schedule(module, "lea128_c_sliced_v32")       -> the same (a full name)
    c_schedules(module)                                 -> every schedule the tests cover
"""

from __future__ import annotations

from cipherspec.errors import UsageError
from cipherspec.ir import Module
from cipherspec.schedule import Schedule

LAYOUTS = ("scalar", "sliced", "bitsliced", "aesni")
CONSTANT_TIME = ("bitsliced", "aesni")  # layouts that never index memory with secrets
VECTOR_BYTES = (16, 32)  # what a schedule's v may be (and what the tests enumerate)
WIDE_VECTOR_BYTES = VECTOR_BYTES + (64,)  # v64: AVX-512 registers (lanes64.py; pairs of v32 elsewhere)
MAX_INTERLEAVE = 8


def has_fusable_tables(module: Module) -> bool:
    """Tables and gmul both present: the fused-table option means something."""
    codes = {op.code for fn in module.functions.values() for op in fn.ops}
    return "lut" in codes and "gmul" in codes


def lanes(module: Module, schedule: Schedule) -> int:
    """Blocks per call of the core: 1 (scalar) or vector bytes / bytes of one block word (sliced)."""
    if schedule.layout == "scalar":
        return 1
    if schedule.layout == "bitsliced":
        return schedule.get("v") * 8
    if schedule.layout == "aesni":
        from .aesni import lanes as aesni_lanes

        return aesni_lanes(module, 128)
    return schedule.get("i", 1) * schedule.get("v") * 8 // module.block.width


def vector_lanes(module: Module, schedule: Schedule) -> int:
    """Blocks per vector of a sliced schedule: lanes() / i."""
    return schedule.get("v") * 8 // module.block.width


def _make(module: Module, layout: str, params: dict, rounds: int | None) -> Schedule:
    if layout not in LAYOUTS:
        raise UsageError(f"unknown C layout '{layout}' (layouts: {', '.join(LAYOUTS)})")
    full = {}
    if layout in CONSTANT_TIME:
        why = bitsliced_support(module) if layout == "bitsliced" else aesni_support(module)
        if why:
            raise UsageError(f"schedule {layout} is not available for {module.cipher}: {why}")
    elif has_fusable_tables(module):
        full["t"] = params.pop("t", "bytes")
        if full["t"] not in ("bytes", "fused"):
            raise UsageError(f"schedule param t must be 'bytes' or 'fused', got {full['t']!r}")
    if layout in ("sliced", "bitsliced"):
        v = params.pop("v", "32")
        if not str(v).isdigit() or int(v) not in WIDE_VECTOR_BYTES:
            raise UsageError(f"schedule param v must be one of {', '.join(map(str, WIDE_VECTOR_BYTES))}, got {v!r}")
        full["v"] = int(v)
    if layout == "sliced" and "i" in params:
        i = params.pop("i")
        if not str(i).isdigit() or not 1 <= int(i) <= MAX_INTERLEAVE:
            raise UsageError(f"schedule param i must be 1..{MAX_INTERLEAVE}, got {i!r}")
        full["i"] = int(i)
    if params:
        raise UsageError(f"unknown schedule params for {module.cipher} {layout}: {', '.join(sorted(params))}")
    return Schedule(module.cipher, "c", layout, tuple(full.items()), rounds)


def parse_schedule(module: Module, text: str, rounds: int | None = None) -> Schedule:
    """A full schedule name (``lea128_c_sliced_v32``) or its layout part (``sliced_v32``, ``sliced``)."""
    prefix = module.cipher + (f"r{rounds}" if rounds is not None else "") + "_c_"
    body = text[len(prefix) :] if text.startswith(prefix) else text
    if "_c_" in body:
        raise UsageError(
            f"schedule '{text}' is not a C schedule of {module.cipher}"
            + (f" with {rounds} rounds" if rounds is not None else "")
        )
    layout, *parts = body.split("_")
    params: dict[str, str] = {}
    for p in parts:
        if len(p) < 2 or p[0] not in "tvi":
            raise UsageError(f"bad schedule part '{p}' in '{text}' (params: t<bytes|fused>, v<16|32|64>, i<1..8>)")
        params[p[0]] = p[1:]
    return _make(module, layout, params, rounds)


def c_schedules(module: Module, rounds: int | None = None) -> list[Schedule]:
    """Every schedule of the C target for this cipher (what tests and benchmarks enumerate)."""
    tables = ["bytes", "fused"] if has_fusable_tables(module) else [None]
    out = []
    for t in tables:
        extra = {"t": t} if t else {}
        out.append(_make(module, "scalar", dict(extra), rounds))
        for v in VECTOR_BYTES:
            out.append(_make(module, "sliced", dict(extra, v=str(v)), rounds))
    if _bitsliced_listed(module) and not bitsliced_support(module):
        # v32 only: each bitsliced build takes the C compiler a minute or more (v16 stays buildable)
        out.append(_make(module, "bitsliced", {"v": "32"}, rounds))
    if not aesni_support(module):
        out.append(_make(module, "aesni", {}, rounds))
    return out


def _bitsliced_listed(module: Module) -> bool:
    """Where the tests enumerate bitsliced: specs with table lookups (it is their constant-time schedule)
    and byte-logic specs (PIPO: planes cost nothing there).  Elsewhere it stays buildable on request,
    but ripple-carry adders on wide words make cores the C compiler takes very long over, for nothing:
    a spec without tables is constant-time on every C schedule."""
    ops = [op for fn in module.functions.values() for op in fn.ops]
    return secret_lookups(module) or all(op.width == 8 and op.code not in ("add", "sub") for op in ops)


def bitsliced_support(module: Module) -> str:
    """'' when the bitsliced schedule can lower this spec, else why not (names the op or table)."""
    from generator.common.bitslice import unsupported

    if module.block.nbytes % 8:
        return (
            f"a {module.block.nbytes}-byte block (the bit-plane transposition moves 8-byte groups; "
            "use scalar or sliced)"
        )
    return unsupported(module.functions.values(), module.tables)


def aesni_support(module: Module) -> str:
    """'' when the aesni schedule can lower this spec (generator/c/aesni), else why not."""
    from .aesni import support

    return support(module)


def with_vector_bytes(module: Module, schedule: Schedule, v: int, interleave: int | None = None) -> Schedule:
    """The same schedule on v-byte vectors (sliced, bitsliced), and with ``interleave`` lane groups (sliced)."""
    params = {k: str(val) for k, val in schedule.params}
    params["v"] = str(v)
    if interleave is not None:
        params["i"] = str(interleave)
    return _make(module, schedule.layout, params, schedule.rounds)


def fallback(module: Module, schedule: Schedule) -> Schedule:
    """The portable kernels an aesni library runs where AES-NI is absent: bitsliced_v32 (constant-time)."""
    return _make(module, "bitsliced", {"v": "32"}, schedule.rounds)


def default_schedule(module: Module, rounds: int | None = None) -> Schedule:
    """Constant-time first: a cipher whose encryption indexes tables gets aesni (AES instructions, bitsliced
    fallback) or else bitsliced_v32 where they apply; every other cipher sliced_v32 (the fastest portable
    layout for word ciphers).  A table cipher neither applies to gets sliced_v32, NOT constant-time
    (``cipherspec build`` says so)."""
    if secret_lookups(module):
        for layout, why in (("aesni", aesni_support), ("bitsliced", bitsliced_support)):
            if not why(module):
                return _make(module, layout, {"v": "32"} if layout == "bitsliced" else {}, rounds)
    return _make(module, "sliced", {"v": "32"}, rounds)


def secret_lookups(module: Module) -> bool:
    """Whether any function -- encryption, decryption or the key schedule -- indexes a table with data or key
    material (a table schedule leaks through the cache, in set_key too)."""
    return any(op.code == "lut" for fn in module.functions.values() for op in fn.ops)


def resolve(module: Module, text: str | None, rounds: int | None = None) -> Schedule:
    return default_schedule(module, rounds) if text is None else parse_schedule(module, text, rounds)
