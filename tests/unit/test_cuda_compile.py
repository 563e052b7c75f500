"""Every cipher's default CUDA schedule compiles with nvcc for sm_90 (and sm_80: one cipher per family and block
shape in CI), with 0
spills and 0 local memory.

Runs in CI without a GPU (nvcc from the system or the PyPI wheel nvidia-cuda-nvcc).  Without nvcc the
tests skip, unless CIPHERSPEC_REQUIRE_TOOLS=1, where they fail.  Results are cached by content hash
(toolchain/nvcc.py), so only changed kernels recompile.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ci_scope import full_matrix, representatives
from shipped import shipped_registry
from tools import clean_enough, is_key_schedule_ok, require_nvcc

from generator.ptx import multikey
from generator.ptx.build import schedule_for, shipped_flavours
from generator.ptx.source import generate, prepared
from toolchain import nvcc

pytestmark = pytest.mark.slow  # nvcc + ptxas: seconds per kernel file on an empty cache

NAMES = shipped_registry().names()
# sm_90 (what `cipherspec build --target cuda` ships) for every cipher but the table ciphers' other key sizes; sm_80 (CIPHERSPEC_CUDA_ARCH=sm_80) for
# one cipher per family and block shape in CI (tests/support/ci_scope.py), every cipher with CIPHERSPEC_FULL_MATRIX=1
# every table cipher's other key sizes (AES-192/256, ARIA-192/256: the same bitsliced layout, 1-2 min of nvcc each
# on an empty cache) only with CIPHERSPEC_FULL_MATRIX=1; the device run builds them all (bench/gpu/ct_bench.sh)
# sm_80 in CI: the representatives without tables; the table ciphers' bitsliced defaults (AES, ARIA: 1-2.5 min of
# nvcc each, the suite's slowest tests) are compiled for sm_90 only, and for sm_80 with CIPHERSPEC_FULL_MATRIX=1
REPRESENTATIVES = representatives(NAMES)
SM90 = [n for n in NAMES if n in REPRESENTATIVES or not shipped_registry().module(n).tables]
SM80 = [n for n in REPRESENTATIVES if full_matrix() or not shipped_registry().module(n).tables]
CELLS = [(n, "sm_90") for n in SM90] + [(n, "sm_80") for n in SM80]
# a few non-default placements are compiled too (sm_90 only), so every accessor path meets ptxas in CI: table
# accessors (const, global), round keys in registers and in shared memory, ILP, the bitsliced lanes with round
# keys in shared memory (the defaults cover rk-const, swar lanes and the bitsliced round loops); ARIA's global
# tables with ILP, HIGHT's rk-shared and swar_t64 only with CIPHERSPEC_FULL_MATRIX=1 (accessors the others cover)
EXTRA = [
    ("aes128", "rk-shared_tab-const"),
    ("cham128_128", "rk-reg_t1024"),
    ("cham64_128", "rk-shared_t64_ilp2_nohoist"),
    ("pipo64_128", "bs_t64"),
] + (
    [("aria128", "rk-const_tab-global_ilp2"), ("hight", "rk-shared_ilp2"), ("hight", "swar_t64")]
    if full_matrix()
    else []
)


# GCM's kernels (gcm.cu.j2) are compiled for one cipher in CI (its default, sm_90: about half a minute of
# nvcc); every 128-bit cipher's, and the other archs, with CIPHERSPEC_FULL_MATRIX=1 (the device run
# compiles the AES/ARIA/LEA ones: bench/gpu/gcm.sh)
GCM_CI = ("lea128", "sm_90")


def _with_gcm(name, arch) -> bool:
    return full_matrix() or (name, arch) == GCM_CI


def _kernels(registry, name, with_gcm: bool, sched_text: str | None = None, cu: Path | None = None) -> int:
    """13 kernels; a cheap key schedule (multikey.fused_key_schedule, not a lane layout) adds the multi-key kernel
    that derives its round keys (two flavours), and where the key is whole words its pair form (the plan's V and key
    side by side, CIPHERSPEC_MG_PAIR=1; two flavours).  A 128-bit block adds GCM's 9 (gcm.cu.j2: long message, fused batch,
    the batch's keystream, join, finish, the finish from a made E(K, J0), describe, wipe, the staging's parameter
    copy), the tensor-core GHASH's 5
    (tgh.cu.j2: columns, fragments, first and its A/B baseline, level) and the batch's 5 (tgb.cu.j2: key set, key
    ids, powers, records and its A/B baseline); a bitsliced layout 3 more (the lane-key finish, the keyed keystream
    and its key lists), and where its CTR kernel's hoisted core runs free (AES-128: the source ``cu`` has them) 3 more
    (the keyed keystream is then the record-a-trip kernel, in its 3 forms: round keys in shared memory, in constant
    memory and from the key table; and the records' planes).  The A/B baselines are compiled in at CS_AB 1,
    as here; `cipherspec build` leaves them out."""
    module = registry.module(name)
    sched = schedule_for(module, sched_text)
    fused = _fused(module, sched)
    mk = 2 * fused + 2 * (fused and module.key.nbytes % 4 == 0)
    if not (with_gcm and module.block.nbytes == 16):
        return 13 + mk
    seg = cu is not None and "_gcm_ks_seg_smem(" in cu.read_text()
    return 13 + mk + 19 + 3 * (sched.layout == "bs") + 3 * seg


def _source(tmp_path_factory, registry, name, sched_text, with_gcm: bool = False):
    sched = schedule_for(registry.module(name), sched_text)
    src = generate(registry.module(name), sched, with_gcm=with_gcm)
    d = tmp_path_factory.mktemp("cu")
    cu = d / f"{src.name}.cu"
    cu.write_text(src.cu)
    (d / f"{src.name}.h").write_text(src.h)
    return cu


def _fused(module, sched) -> bool:
    """Whether the multi-key kernel that derives its round keys is built (multikey.fused_key_schedule: a cheap key
    schedule, not a lane layout)."""
    return not sched.lanes and multikey.key_schedule_cost(prepared(module, sched)) <= multikey.FUSE_MAX_OPS


def _shipped_kernels(module, sched, with_gcm: bool) -> int:
    """The kernels of what `cipherspec build` ships (the schedule's one flavour, no A/B baseline): ECB enc/dec,
    CTR keystream/xor, the tail, multi-key and the key schedule (7); the multi-key kernel that derives its round
    keys where _fused; a 128-bit block's GCM 17 (the 19 of _kernels less the tensor-core GHASH's and the batch's
    A/B baselines; lane and word layouts only)."""
    assert not (with_gcm and sched.layout == "bs")  # (its count: _kernels, at both flavours)
    return 7 + _fused(module, sched) + 17 * (with_gcm and module.block.nbytes == 16)


def _ships_one_flavour(sched, with_gcm: bool) -> bool:
    """In CI a default compiles as it ships: its one flavour without A/B baselines (half the nvcc of both
    flavours: AES-128's 41 -> 19 s of CPU); both flavours and the baselines with CIPHERSPEC_FULL_MATRIX=1 (and in
    the device run, whose runtime builds both).  A bitsliced GCM cell compiles both (its count: _kernels)."""
    return not full_matrix() and not (with_gcm and sched.layout == "bs")


@pytest.mark.parametrize("name,arch", CELLS)
def test_default_schedule_compiles_clean(tmp_path_factory, registry, name, arch):
    require_nvcc()
    gcm = _with_gcm(name, arch)
    cu = _source(tmp_path_factory, registry, name, None, gcm)
    module = registry.module(name)
    sched = schedule_for(module, None)
    if _ships_one_flavour(sched, gcm):
        rep = nvcc.compile_cubin(cu, arch, flavours=shipped_flavours(sched), ab=False)
        want = _shipped_kernels(module, sched, gcm)
    else:
        rep = nvcc.compile_cubin(cu, arch)
        want = _kernels(registry, name, gcm, cu=cu)
    assert len(rep.kernels) == want, rep.text[
        -2000:
    ]  # ecb enc/dec, ctr keystream/xor, ctr tail, multi-key (a flavour's or two); key schedule; GCM (128-bit blocks)
    for kernel, use in rep.kernels.items():
        assert clean_enough(cu.stem, use, kernel), (
            f"{cu.stem} {arch} {kernel}: {vars(use)}"
        )  # (tools.BITSLICED_SPILL_BUDGET)
        assert use.registers <= 255


@pytest.mark.parametrize("name,sched", EXTRA)
def test_other_placements_compile(tmp_path_factory, registry, name, sched):
    require_nvcc()
    cu = _source(tmp_path_factory, registry, name, sched, full_matrix())
    rep = nvcc.compile_cubin(cu, "sm_90")
    assert len(rep.kernels) == _kernels(registry, name, full_matrix(), sched, cu)
    for kernel, use in rep.kernels.items():
        no_spills = use.spill_stores == 0 and use.spill_loads == 0
        assert no_spills or is_key_schedule_ok(use, kernel), f"{cu.stem} {kernel}: {vars(use)}"


def test_shipped_library_builds(tmp_path, registry):
    """The library `cipherspec build --target cuda` ships (nvcc -shared: device code, host stubs, host API) for a
    lane layout (HIGHT: swar), so the host pass of nvcc sees the lane kernels' template as users get it."""
    require_nvcc()
    from generator.ptx.build import build

    notes = build(registry, ["hight"], None, tmp_path)
    lib = next(tmp_path.glob("libhight_cuda_*.so"))
    assert "swar" in lib.name, notes
    prefix = "cs_" + lib.stem.removeprefix("lib").replace("-", "_")
    syms = _exports(lib)
    want = {f"{prefix}_{e}" for e in ("set_key", "ctr_dev", "ctr_host", "ecb_dev", "ecb_host", "mg_ctr_host")}
    assert want <= syms, sorted(want - syms)


def _exports(lib) -> set[str]:
    import subprocess

    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


# the bitsliced layout's GCM kernels under each round-key placement, through nvcc's front end only (a few seconds):
# CI compiles GCM for one lane-layout cipher (GCM_CI), so a bitsliced one's keyed route reading `rkp` where an
# rk-shared core has none went unseen until the device run built it
BS_GCM = ["bs_t128_rk-shared", None]


@pytest.mark.parametrize("sched_text", BS_GCM)
def test_bitsliced_gcm_parses_at_every_rk_placement(tmp_path, registry, sched_text):
    import subprocess

    nvcc_path = require_nvcc()
    module = registry.module("aes128", 2)  # two rounds: the same kernels and round-key reads, a sixth of the source
    src = generate(module, schedule_for(module, sched_text), 2, with_gcm=True)
    assert "_gcm_long(" in src.cu and "_gcm_finish_lanes(" in src.cu
    cu = tmp_path / f"{src.name}.cu"
    cu.write_text(src.cu)
    (tmp_path / f"{src.name}.h").write_text(src.h)
    flags = ["-arch=sm_90", "-std=c++17", "-fdevice-syntax-only", "-w", "-c", "-o", "/dev/null"]
    res = subprocess.run([str(nvcc_path), *flags, "-I", str(tmp_path), str(cu)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
