"""The conformance matrix: every variant of the specs in tests/conformance/ on every target and schedule.

A cell is (variant, target column).  Running it gives ``"ok"``, ``"unsupported: <the one-line error>"``
(the backend refused the construct with a UsageError) or raises (a mismatch or a crash: a bug).
tests/conformance/matrix.json records the expected status of every cell; docs/language.md's table is rendered
from it (``python3 scripts/conformance.py --write`` re-runs every cell and rewrites both).

    columns()                         -> ["ref", "c scalar", "c sliced_v16", "c bitsliced_v16", "c aesni", "neon", "cuda"]
    run_cell("sbox4_u32", "neon")     -> "ok"
"""

from __future__ import annotations

import json
import tempfile
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np
from ci_scope import full_matrix
from paths import ROOT
from tools import clean_enough

from cipherspec.blockcipher import RefCipher, bytes_to_words
from cipherspec.errors import CipherspecError
from cipherspec.parse import parse_file
from cipherspec.registry import Registry
from driver.targets import make_cipher

SPEC_DIR = ROOT / "tests" / "conformance"
MATRIX = SPEC_DIR / "matrix.json"
PAGE = ROOT / "docs" / "language.md"  # the manual's page with the rendered matrix
BEGIN, END = "<!-- conformance matrix: begin -->", "<!-- conformance matrix: end -->"
C_SCHEDULES = ("scalar", "sliced_v16", "bitsliced_v16", "aesni")
COLUMNS = ("ref",) + tuple(f"c {s}" for s in C_SCHEDULES) + ("neon", "cuda")
BLOCKS = 130  # crosses the lanes of every C schedule (bitsliced_v16: 128 blocks per call)


def spec_files() -> list[Path]:
    return sorted(SPEC_DIR.glob("*.cs"))


@lru_cache(maxsize=1)
def registry() -> Registry:
    return Registry(extra=spec_files())


def variants() -> list[tuple[str, str]]:
    """(spec file stem, cipher name) in file order."""
    return [(p.stem, c.name) for p in spec_files() for c in parse_file(p).ciphers]


# spec files whose constructs the other conformance specs already cover on the other columns (sbox_inv.cs:
# lookups on the bytes of words, as sbox_words.cs); CI runs them where they are new: ref, aesni, and the
# bitsliced inversion circuit with general affine maps once
AESNI_STEMS = ("sbox_inv",)
AESNI_CI = ("ref", "c aesni")
AESNI_BITSLICED = ("invsub_u32_be",)
# gfnilayer.cs (bit-linear layers on byte words, GF2P8AFFINEQB in the sliced kernels' GFNI variants): its
# constructs are bitlinear.cs's and rotate.cs's on the other columns; CI runs it where it is new
GFNI_STEMS = ("gfnilayer",)
GFNI_CI = ("ref", "c sliced_v16")
# the cuda column compiles the bitsliced default (every cell with tables) in CI for a bit permutation with an S-box
# (~7 s of nvcc); the example ciphers add 8-bit S-boxes on u32 words (SM4, ~32 s) and a 4-bit S-box with a pLayer
# (PRESENT, ~13 s); sbox8_u8's would cost ~30 s for no new construct (CIPHERSPEC_FULL_MATRIX=1 compiles every one)
CUDA_BITSLICED_CI = ("bitlinear_perm",)


def ci_cells() -> list[tuple[str, str]]:
    """The (variant, column) cells the test runs: all of them, except that the C bitsliced column runs for
    one variant per spec file and block byte order, the widest: the bit-plane lowering is width-generic,
    so the narrower variants add a 20-40 s C build each on an empty cache and no construct; the AESNI_STEMS
    spec files run only their AESNI_CI columns.
    CIPHERSPEC_FULL_MATRIX=1 (and scripts/conformance.py) run every cell."""
    full = full_matrix()
    sliced = widest_variants()
    return [(name, col) for stem, name in variants() for col in COLUMNS if full or _in_ci(stem, name, col, sliced)]


@lru_cache(maxsize=1)
def widest_variants() -> frozenset[str]:
    """The widest variant of each spec file and block byte order (where CI runs the bit-plane lowerings)."""
    widest: dict[tuple, tuple[int, str]] = {}
    for stem, name in variants():
        m = registry().module(name)
        w = max(op.width for fn in m.functions.values() for op in fn.ops)
        key = (stem, m.block.endian)
        if key not in widest or w > widest[key][0]:
            widest[key] = (w, name)
    return frozenset(name for _, name in widest.values())


def _in_ci(stem: str, name: str, col: str, sliced: set[str]) -> bool:
    if stem in AESNI_STEMS:
        return col in AESNI_CI or (col == "c bitsliced_v16" and name in AESNI_BITSLICED)
    if stem in GFNI_STEMS:
        return col in GFNI_CI
    return col != "c bitsliced_v16" or name in sliced


def _data(ref: RefCipher, seed: int) -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes()
    return key, rng.integers(0, 256, (BLOCKS, ref.block_bytes), dtype=np.uint8)


def _compare(name: str, column: str, cipher, ref: RefCipher) -> None:
    key, blocks = _data(ref, zlib.crc32(name.encode()))
    rk, rrk = cipher.expand_key(key), ref.expand_key(key)
    if hasattr(cipher, "run_batch"):  # neon: both directions in one QEMU run
        data = blocks.tobytes()
        got = cipher.run_batch([("ecb_encrypt", rk, data, None), ("ecb_decrypt", rk, data, None)])
    else:
        got = [
            np.asarray(cipher.encrypt_blocks(rk, blocks)).tobytes(),
            np.asarray(cipher.decrypt_blocks(rk, blocks)).tobytes(),
        ]
    for kind, g in zip(("encrypt", "decrypt"), got):
        if g != getattr(ref, f"{kind}_blocks")(rrk, blocks).tobytes():
            raise AssertionError(f"{name} on {column}: {kind} differs from the interpreter")


def cuda_check(reg: Registry, name: str) -> None:
    """Compiles the default CUDA schedule for sm_90 (0 spills, 0 local memory; bitsliced: tools.clean_enough; CI: see
    below) and runs its cores, both
    flavours, under the CPU emulator (generator/ptx/emulate.py) against the interpreter."""
    from generator.ptx import cores, emulate
    from generator.ptx.build import shipped_flavours
    from generator.ptx.ctchoice import default_for
    from generator.ptx.ctr import state_names
    from generator.ptx.placement import CudaSchedule, rk_index, table_base
    from generator.ptx.source import generate, prepared
    from toolchain import nvcc

    module = prepared(reg.module(name))
    sched = default_for(module)
    if sched.layout == "bs" and not full_matrix() and name not in CUDA_BITSLICED_CI:
        # CI: the bitsliced default (a spec with tables; 20-70 s of nvcc each) compiles for CUDA_BITSLICED_CI and the
        # example ciphers (test_example_ciphers.py: SM4, PRESENT); the others compile their table layout, whose cores
        # the emulator runs below (test_cuda_ct_default.py checks that every default is constant-time)
        sched = table_base(module)
    src = generate(reg.module(name), sched, with_gcm=False)  # (GCM: test_cuda_compile.py)
    with tempfile.TemporaryDirectory() as d:
        cu = Path(d) / f"{src.name}.cu"
        cu.write_text(src.cu)
        (Path(d) / f"{src.name}.h").write_text(src.h)
        # CI: the one flavour the library ships, without A/B baselines (half the nvcc); both with the full matrix
        ships = {} if full_matrix() else {"flavours": shipped_flavours(sched), "ab": False}
        rep = nvcc.compile_cubin(cu, "sm_90", **ships)
    dirty = {k: vars(u) for k, u in rep.kernels.items() if not clean_enough(src.name, u, k)}  # (tools.py)
    if not rep.kernels or dirty:
        raise AssertionError(f"{name} on cuda: spills or local memory: {dirty}")
    ref = RefCipher(module)  # the split module (split_u64): its round keys are the kernels' 32-bit words
    key, blocks = _data(ref, 5)
    rkd = ref.expand_key(key)
    idx = rk_index(module)
    rk = np.zeros(len(idx), np.uint64)
    for n, i in idx.items():
        rk[i] = int(np.asarray(rkd[n]).reshape(-1)[0])
    tables = {t.name: np.array(t.values) for t in module.tables.values()}
    tab = "shared4" if module.tables else "shared"
    acc = cores.access(module, CudaSchedule(tab=tab), "RK")
    for kind, fn_blocks in (("encrypt", ref.encrypt_blocks), ("decrypt", ref.decrypt_blocks)):
        x = [w.astype(np.uint64) for w in bytes_to_words(module.block, blocks)]
        want = np.stack([w.astype(np.uint64) for w in bytes_to_words(module.block, fn_blocks(rkd, blocks))], 1)
        for flavour in ("ptx", "c"):
            text = cores.core(kind[0], module.functions[kind], module, acc, flavour, state_names(module, kind))
            got = emulate.run_core(text, x, rk, tables, copies=4 if module.tables else 1)
            if not (np.stack([np.asarray(w, np.uint64) for w in got], 1) == want).all():
                raise AssertionError(f"{name} on cuda ({flavour} cores, emulated): {kind} differs")


def run_cell(name: str, column: str) -> str:
    """'ok', or 'unsupported: <error>' when the target refuses the construct; raises on a wrong result."""
    reg = registry()
    try:
        ref = RefCipher(reg.module(name))
        if column == "ref":
            _compare(name, column, ref, ref)
        elif column.startswith("c "):
            cipher = make_cipher(reg, name, None, "c", column[2:])
            _compare(name, column, cipher, ref)
            if column == "c aesni":  # every x86 variant this CPU runs (GFNI, VAES, AES-NI, the fallback)
                for v in cipher.variants():
                    if cipher.variant_for(v) == v:
                        _compare(name, f"{column} ({v})", cipher.with_isa(v), ref)
            elif column == "c sliced_v16":  # the GFNI variants (bit-linear layers on GF2P8AFFINEQB) it runs
                for v in cipher.variants():
                    if v.startswith("gfni") and cipher.variant_for(v) == v:
                        _compare(name, f"{column} ({v})", cipher.with_isa(v), ref)
        elif column == "neon":
            _compare(name, column, make_cipher(reg, name, None, "neon"), ref)
        elif column == "cuda":
            cuda_check(reg, name)
        else:
            raise ValueError(f"unknown column {column!r}")
    except CipherspecError as e:  # a refusal; a compiler failing on generated code (ToolError) propagates
        return "unsupported: " + str(e).split("\n")[0].replace(str(SPEC_DIR) + "/", "")
    return "ok"


def load_matrix() -> dict[str, dict[str, str]]:
    return json.loads(MATRIX.read_text()) if MATRIX.is_file() else {}


def render(matrix: dict[str, dict[str, str]]) -> str:
    """The docs/language.md table: one row per variant, ✓ or the refusal's message."""
    notes: list[str] = []

    def cell(status: str, name: str = "", col: str = "") -> str:
        if status == "ok":
            return "✓"
        text = status.split(": ", 1)[1]
        if col == "c aesni":  # one note per reason, not per variant
            text = text.replace(name, "<variant>")
        if text not in notes:
            notes.append(text)
        return f"✗ ({notes.index(text) + 1})"

    lines = ["| spec | variant | " + " | ".join(COLUMNS) + " |", "|---|---|" + "---|" * len(COLUMNS)]
    for stem, name in variants():
        row = matrix.get(name, {})
        lines.append(
            f"| {stem}.cs | {name} | " + " | ".join(cell(row.get(c, "?: not run"), name, c) for c in COLUMNS) + " |"
        )
    lines.append("")
    lines += [f"({i + 1}) `{t}`  " for i, t in enumerate(notes)]
    return "\n".join(lines).rstrip() + "\n"


def page_section() -> str:
    text = PAGE.read_text()
    if BEGIN not in text or END not in text:
        return ""
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def write(matrix: dict[str, dict[str, str]]) -> None:
    MATRIX.write_text(json.dumps(matrix, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    text = PAGE.read_text()
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(f"{head}{BEGIN}\n{render(matrix)}{END}{tail}")
