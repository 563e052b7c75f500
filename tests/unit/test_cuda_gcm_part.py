"""A lane layout's GCM kernels that call the core are a spec family's object (source.py's parts,
templates/gcmpart.cu.j2): one text for the members that take the schedule, compiled once by `cipherspec build`
and linked into each member's library, which declares those kernels and launches them (gcm.cu.j2's family_def).
Codegen only (AES-128 and AES-256 as shipped: ~25 s); the real compile and link of such a library is
test_a_family_object_links below (nvcc, skipped without it), its GPU run tests/differential/test_cuda_gcm_gpu.py
(BACKEND.load loads the shipped source)."""

from __future__ import annotations

import re
import subprocess

import pytest
from shipped import shipped_cuda_source, shipped_registry
from tools import require_nvcc

from generator.ptx import build as cuda_build
from generator.ptx.build import family_rk_words, schedule_for
from generator.ptx.lanes_source import rk_words
from generator.ptx.source import Part, generate, prepared
from toolchain import nvcc

LINK = 'extern "C" __attribute__((visibility("hidden")))'
BOUNDS = r"(?:__launch_bounds__\([^)]*\) )?"
# every GCM kernel of the library (those that call the core, and the hashing, joining, finishing ones) but the
# keyed route's segment planes (the member's own host-and-device code makes them) and the chunked copy (host side)
GCM_KERNELS = {"gcm_long", "gcm_batch", "gcm_keystream", "gcm_ks_seg_smem", "gcm_finish_lanes", "gcm_key_lists"}
GCM_KERNELS |= {"gcm_join", "gcm_finish_ej", "gcm_wipe", "gcm_describe", "tgh_columns", "tgh_frags", "tgh_first"}
GCM_KERNELS |= {"tgh_level", "tgb_keyset", "tgb_keyid", "tgb_powers", "tgb_records"}
GCM_KERNELS |= {"gcm_ks_seg_const", "gcm_ks_seg_table", "gcm_finish", "tgh_first_v1", "tgb_records_v1"}  # (#if CS_AB)


def _defined(text: str) -> dict[str, str]:
    """The family object's definitions: name -> its text up to the body."""
    heads = re.findall(rf"^{re.escape(LINK)} (__global__ void {BOUNDS}(\w+)\([^{{;]*?)\n\{{", text, re.M)
    return {name: head for head, name in heads}


def test_the_family_object_is_one_text_for_its_members():
    reg = shipped_registry()
    aes256 = reg.module("aes256")
    want = rk_words(prepared(aes256, schedule_for(aes256, None)), schedule_for(aes256, None))
    assert family_rk_words(reg, "aes128", None) == want  # the family's largest member's round keys
    assert family_rk_words(reg, "lea128", None) == 0  # (a layout that is not a lane layout: no padding)
    a, b = shipped_cuda_source("aes128"), shipped_cuda_source("aes256")
    assert [p.name for p in a.parts] == [p.name for p in b.parts] == ["aes-gcm_cuda_" + a.name.split("_cuda_")[1]]
    assert a.parts[0].cu == b.parts[0].cu  # (the round keys padded to AES-256's, the round count read at run time)
    text = a.parts[0].cu
    assert a.symbol not in text and b.symbol not in text and "aes128" not in text  # nothing of a member's own
    fp = "cs_aes_gcm_cuda_" + a.symbol.split("_cuda_")[1]
    assert {n.removeprefix(fp + "_") for n in _defined(text)} == GCM_KERNELS
    assert f"__constant__ {fp}_rk {fp}_gcm_crk;" in text  # (the keyed route's constant block: read by its kernels)
    assert "int main" not in text and 'extern "C" {' not in text  # no host API: the member's


def test_the_member_declares_what_the_family_object_defines():
    src = shipped_cuda_source("aes128")
    defined = _defined(src.parts[0].cu)
    fp = re.search(r"typedef struct \{ uint32_t w\[\d+\]; \} (\w+)_rk;", src.parts[0].cu).group(1)
    member = src.cu.replace(src.symbol, fp)  # (its own types: the same layout under its own names)
    for name, head in defined.items():
        assert f"{LINK} {head};" in member, name  # the same declaration, no body
        assert re.search(rf"^__global__ void {BOUNDS}{name}\(", src.cu, re.M) is None
        assert re.search(rf"\b{name}\b(?!\()", src.cu), name  # launched, or its handle taken (not only declared)
    assert "_gcm_crk;" not in src.cu.replace("_gcm_crk_address", "")  # the constant block is the object's
    assert f"{LINK} cudaError_t " in src.cu  # ... and its handle on it a function there
    member = set(re.findall(rf"^__global__ void {BOUNDS}\w+?_(gcm_\w+)\(", src.cu, re.M))
    assert member == {"gcm_seg_planes", "gcm_put"}  # its own segment planes (P_seg_pre), the host's chunked copy


def test_a_source_alone_keeps_every_gcm_kernel():
    """generate() without a family (the CPU shim, the benchmarks' sources): one translation unit, as before."""
    module = shipped_registry().module("lea128", 1)
    sched = schedule_for(module, "bs_rk-const_t128")
    src = generate(module, sched)
    assert src.parts == ()
    assert LINK not in src.cu
    assert re.search(rf"^__global__ void {BOUNDS}{src.symbol}_gcm_long\(", src.cu, re.M)
    assert f"__constant__ {src.symbol}_rk {src.symbol}_gcm_crk;" in src.cu


def test_members_whose_objects_differ_get_a_file_each(tmp_path):
    written: dict = {}
    a = cuda_build._write_part(tmp_path, Part("fam-gcm_cuda_x", "text a"), written, "m1")
    c = cuda_build._write_part(tmp_path, Part("fam-gcm_cuda_x", "text c"), written, "m2")
    d = cuda_build._write_part(tmp_path, Part("fam-gcm_cuda_x", "text c"), written, "m3")
    b = cuda_build._write_part(tmp_path, Part("fam-gcm_cuda_x", "text a"), written, "m4")
    assert a == b == tmp_path / "fam-gcm_cuda_x.cu" and a.read_text() == "text a"
    assert c == d == tmp_path / "fam-gcm_cuda_x-m2.cu" and c.read_text() == "text c"


@pytest.mark.slow
def test_a_family_object_links(tmp_path):
    """LEA-128 at one round, bitsliced: the member and its family object compiled apart (nvcc -c) and linked; the
    member's launches resolve to the object's kernels inside the library (hidden: nothing of them exported)."""
    require_nvcc()
    module = shipped_registry().module("lea128", 1)
    sched = schedule_for(module, "bs_rk-const_t128")
    src = generate(module, sched, flavours=(sched.flavour,), gcm_family="lea")
    (part,) = src.parts
    cu, fam = tmp_path / f"{src.name}.cu", tmp_path / f"{part.name}.cu"
    cu.write_text(src.cu)
    (tmp_path / f"{src.name}.h").write_text(src.h)
    fam.write_text(part.cu)
    so = nvcc.build_library(cu, tmp_path / "lib.so", flavours=1, ab=False, parts=(fam,))
    undefined = subprocess.run(["nm", "-u", str(so)], capture_output=True, text=True, check=True).stdout
    assert "gcm_" not in undefined
    exported = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True, check=True)
    names = [ln.split()[-1] for ln in exported.stdout.splitlines() if " T " in ln]
    assert names and all(n.startswith(src.symbol) for n in names), names
    local = subprocess.run(["nm", str(so)], capture_output=True, text=True, check=True).stdout
    assert re.search(r" t cs_lea_gcm_cuda_\w+_gcm_long$", local, re.M)  # the object's launch stub, kept local
