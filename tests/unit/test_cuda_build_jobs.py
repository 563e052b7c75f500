"""`cipherspec build --target cuda` compiles one translation unit per cipher, with only the schedule's default
kernel flavour, largest source first (issue 25's build time).  No nvcc needed: build_library is replaced by a
recorder (codegen only, LEA/CHAM/SPECK-sized sources: about a second); the real compile of a one-flavour
library is test_one_flavour_library below (nvcc + cuobjdump, skipped without them)."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from dataclasses import replace

import pytest
from paths import ROOT
from shipped import shipped_registry
from tools import require_nvcc

from cipherspec.registry import Registry
from generator.ptx import build as cuda_build
from generator.ptx.build import schedule_for
from generator.ptx.placement import FLAVOURS
from generator.ptx.source import Part, generate
from toolchain import nvcc
from toolchain.jobs import LargestFirst


def test_largest_waiting_job_goes_first():
    gate, ran = threading.Event(), []
    q = LargestFirst(1)
    try:
        q.submit(5, gate.wait)  # holds the only worker while the rest queue up
        for size in (10, 30, 20):
            q.submit(size, lambda s=size: ran.append(s))
        gate.set()
        q.finish()
    finally:
        q.close()
    assert ran == [30, 20, 10]


def test_a_failed_job_is_raised_by_finish():
    q = LargestFirst(2)

    def boom():
        raise RuntimeError("nvcc failed")

    try:
        q.submit(1, boom)
        with pytest.raises(RuntimeError, match="nvcc failed"):
            q.finish()
    finally:
        q.close()


def test_a_family_object_compiles_once_and_links_into_each_member(tmp_path, monkeypatch):
    """Three members, two of whose family GCM objects are one text (as AES-128's and AES-256's are: codegen in
    test_cuda_gcm_part.py; here the sources are LEA's with made-up objects, so that the graph is all it tests): each
    member's source compiled, each object text once, each library linked from its own object and its family's, after
    both are compiled."""
    reg = shipped_registry()
    real = {n: cuda_build.shipped_source(reg, n, None) for n in ("lea128", "lea192", "lea256")}

    def shipped(registry, name, schedule, flavours=None):
        module, sched, src = real[name]
        text = "// one member's object\n" if name == "lea128" else "// the others' object\n"
        return module, sched, replace(src, parts=(Part("lea-gcm_cuda_x", text),))

    monkeypatch.setattr(cuda_build, "shipped_source", shipped)
    monkeypatch.setattr(nvcc, "find_nvcc", lambda: tmp_path / "nvcc")
    lock, compiled, linked = threading.Lock(), [], []

    def compile_object(cu, arch=None, flavours=3, ab=True):
        with lock:
            compiled.append((cu.name, flavours, ab))
        return tmp_path / f"{cu.stem}.o"

    def link_library(objects, out, arch=None):
        with lock:
            assert all(o.stem + ".cu" in {c for c, _, _ in compiled} for o in objects)  # (compiled first)
            linked.append((out.name, [o.name for o in objects]))

    monkeypatch.setattr(nvcc, "compile_object", compile_object)
    monkeypatch.setattr(nvcc, "link_library", link_library)
    monkeypatch.setattr(nvcc, "build_library", lambda *a, **k: pytest.fail("one translation unit"))
    cuda_build.build(reg, list(real), None, tmp_path, None)
    objects = {
        "lea128": "lea-gcm_cuda_x.cu",
        "lea192": "lea-gcm_cuda_x-lea192.cu",
        "lea256": "lea-gcm_cuda_x-lea192.cu",
    }
    assert sorted(p.name for p in tmp_path.glob("lea-gcm_cuda_x*.cu")) == sorted(set(objects.values()))
    members = {n: f"{src.name}.cu" for n, (_, _, src) in real.items()}
    assert sorted(c for c, _, _ in compiled) == sorted([*members.values(), *set(objects.values())])  # each once
    assert all(f in (1, 2) and ab is False for _, f, ab in compiled)  # the shipped flavour, no A/B kernel
    want = [(f"lib{m[:-3]}.so", [m[:-3] + ".o", objects[n][:-3] + ".o"]) for n, m in members.items()]
    assert sorted(linked) == sorted(want)


def test_build_compiles_each_cipher_once_with_its_default_flavour(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(nvcc, "find_nvcc", lambda: tmp_path / "nvcc")
    abs_ = []

    def record(cu, out, arch=None, flavours=3, ab=True):
        calls.append((cu.name, flavours))
        abs_.append(ab)

    monkeypatch.setattr(nvcc, "build_library", record)
    names = ["lea128", "cham64_128"]
    cuda_build.build(shipped_registry(), names, None, tmp_path, None)
    reg = shipped_registry()
    want = set()
    for n in names:
        sched = schedule_for(reg.module(n), None)
        want.add((f"{sched.name(cuda_build.prepared(reg.module(n), sched))}.cu", 1 << FLAVOURS.index(sched.flavour)))
    assert sorted(calls) == sorted(want)  # one compile per cipher: no probe, no second variant
    assert all(f in (1, 2) for _, f in calls)
    assert abs_ == [False, False]  # no device A/B baseline kernel in a shipped library (-DCS_AB=0)
    for cu, fl in calls:  # the shipped source holds that flavour's cores only
        text = (tmp_path / cu).read_text()
        assert f"#define CS_FLAVOURS {fl}" in text
        assert "_c(const uint32_t" not in text if fl == 1 else "_ptx(const uint32_t" not in text


def _core_defs(cu: str, flavour: str) -> int:
    """How many cores of ``flavour`` the source defines (cs_enc_ptx, cs_menc_c, ...)."""
    return len(re.findall(rf"void cs_\w+_{flavour}\(", cu))


@pytest.mark.parametrize(
    "name, rounds, text",
    [
        ("lea128", None, None),
        ("lea128", None, "fl-c"),
        ("lea128", 1, "bs_rk-const_t128"),
        ("lea128", 1, "bs_rk-const_fl-c_t128"),
    ],
)
def test_shipped_source_holds_one_flavour(registry, name, rounds, text):
    """generate(..., flavours=(the schedule's,)) -- what `cipherspec build` writes -- leaves the other flavour's cores
    and kernels out of the source (codegen and nvcc's parse of them were the unshipped half of a bitsliced source), and
    its default CS_FLAVOURS is that flavour's bit; a -DCS_FLAVOURS naming the missing flavour stops at an #error."""
    module = registry.module(name, rounds)
    sched = schedule_for(module, text)
    both = generate(module, sched, rounds).cu
    one = generate(module, sched, rounds, flavours=(sched.flavour,)).cu
    bit, other = 1 << FLAVOURS.index(sched.flavour), FLAVOURS[1 - FLAVOURS.index(sched.flavour)]
    assert "#define CS_FLAVOURS 3" in both and f"#define CS_FLAVOURS {bit}" in one
    assert _core_defs(both, other) > 0 and _core_defs(one, other) == 0
    assert _core_defs(one, sched.flavour) == _core_defs(both, sched.flavour) > 0
    assert f"#if CS_FLAVOURS & {bit}  // the {sched.flavour} flavour's kernels" in one
    assert f"// the {other} flavour's kernels" not in one
    assert f"#if CS_FLAVOURS & ~{bit}\n#error" in one
    assert len(one) < len(both)
    with pytest.raises(ValueError, match="holds the schedule's"):
        generate(module, sched, rounds, flavours=(other,))


def _ptx_text(path) -> str:
    """A PTX file's text without the anonymous namespaces' per-file hashes (nvcc names them after the file)."""
    text = re.sub(r"_GLOBAL__N__[0-9a-f]+_\d+_\w*?_cu_[0-9a-f]+", "_G_", path.read_text())
    return re.sub(r"_INTERNAL_[0-9a-f]+_", "_I_", text)


@pytest.mark.slow
def test_shipped_source_compiles_to_the_same_ptx(tmp_path, registry):
    """The one-flavour source and the two-flavour one under -DCS_FLAVOURS compile to the same PTX (the anonymous
    namespaces' per-file hashes aside): leaving the unshipped flavour out changes no kernel.  LEA-128 at one round in
    the bitsliced layout's plain-C flavour, GCM included (48 s in CI beside the other worker); the shipped defaults (inline PTX:
    AES-128, PRESENT-80, SPECK-128/128) and SPECK's scalar plain C were compared the same way when this came in."""
    require_nvcc()
    module = registry.module("lea128", 1)
    for text in ("bs_rk-const_fl-c_t128",):
        sched = schedule_for(module, text)
        ptx = []
        for k, flavours in enumerate((FLAVOURS, (sched.flavour,))):
            src = generate(module, sched, 1, flavours=flavours)
            d = tmp_path / f"{text}-{k}"
            d.mkdir()
            (d / f"{src.name}.cu").write_text(src.cu)
            (d / f"{src.name}.h").write_text(src.h)
            flags = [f"-DCS_FLAVOURS={1 << FLAVOURS.index(sched.flavour)}"] if k == 0 else []
            res = subprocess.run(
                [
                    str(nvcc.require_nvcc()),
                    "-ptx",
                    "-arch=sm_90",
                    "-O3",
                    "-std=c++17",
                    "-DCS_AB=0",
                    *flags,
                    "-o",
                    str(d / "x.ptx"),
                    str(d / f"{src.name}.cu"),
                ],
                capture_output=True,
                text=True,
            )
            assert res.returncode == 0, res.stderr[-2000:]
            ptx.append(_ptx_text(d / "x.ptx"))
        assert ptx[0] == ptx[1], text


def test_source_guards_each_flavour(registry):
    src = generate(registry.module("lea128"), schedule_for(registry.module("lea128"), None)).cu
    assert "#define CS_FLAVOURS 3" in src  # a plain nvcc of the .cu still builds both (the runtime, benchmarks)
    assert src.count("#if CS_FLAVOURS & 1  // the ptx flavour's kernels") == 1
    assert src.count("#if CS_FLAVOURS & 2  // the c flavour's kernels") == 1
    assert src.count("if (!cs_flavour_built(flavour)) return CS_EFLAVOUR;") == 4  # ECB, CTR, multi-key, staged


def _without_ab(cu: str) -> str:
    """The source as the preprocessor sees it with -DCS_AB=0: every `#if CS_AB` block dropped (nesting counted)."""
    out, depth = [], 0  # depth > 0: inside a CS_AB block, at that #if nesting
    for line in cu.splitlines():
        word = line.split("//")[0].split()
        if depth:
            depth += word[:1] in (["#if"], ["#ifdef"], ["#ifndef"])
            depth -= word[:1] == ["#endif"]
            continue
        if word[:2] == ["#if", "CS_AB"]:
            depth = 1
            continue
        out.append(line)
    return "\n".join(out)


def test_shipped_library_leaves_out_the_gcm_ab_baseline(registry):
    """A bitsliced layout's GCM finishes a batch with one core call a warp (P_gcm_finish_lanes); the former
    one-call-a-message kernel (P_gcm_finish) is only the device A/B's baseline (CIPHERSPEC_GCM_AB=v1): under
    CS_AB, which `cipherspec build` sets to 0 (issue 25: AES-128's cicc and ptxas compile one GCM kernel fewer,
    the other 22 kernels' SASS the same); so is the former records kernel (CIPHERSPEC_GCM_AB=t0).  LEA-128 at 1 round in the bitsliced layout: the same kernels as AES-128's
    default, half a second of codegen."""
    module = registry.module("lea128", 1)
    cu = generate(module, schedule_for(module, "bs_rk-const_t128"), 1).cu
    assert "#define CS_AB 1" in cu  # a plain nvcc of the .cu (the runtime, the benchmarks) keeps the A/B
    for src, kept in ((cu, True), (_without_ab(cu), False)):
        assert "_gcm_finish_lanes(const" in src  # the default finish, always there
        assert ("_gcm_finish(const" in src) == kept  # the baseline's kernel ...
        assert ("_gcm_finish;" in src) == kept  # ... and the host's only reference to it
        assert ("_gcm_ab_v1()" in src) == kept  # (the A/B switch of the finish)
        assert "_tgb_records;" in src  # the records' hashing kernel, always there
        assert ("_tgb_records_v1;" in src) == kept  # the records' A/B baseline (CIPHERSPEC_GCM_AB=t0)


@pytest.mark.slow
def test_one_flavour_library(tmp_path):
    """The library `cipherspec build` ships holds the default flavour's kernels only (the smallest conformance
    cipher: a few seconds of nvcc)."""
    require_nvcc()
    if shutil.which("cuobjdump") is None:
        pytest.skip("cuobjdump not found")
    reg = Registry(extra=[ROOT / "tests" / "conformance" / "arith.cs"])
    module = reg.module("arith_u32")
    sched = schedule_for(module, None)
    src = generate(module, sched)
    cu = tmp_path / f"{src.name}.cu"
    cu.write_text(src.cu)
    (tmp_path / f"{src.name}.h").write_text(src.h)
    so = nvcc.build_library(cu, tmp_path / "lib.so", flavours=1 << FLAVOURS.index(sched.flavour))
    names = subprocess.run(["cuobjdump", "-sass", str(so)], capture_output=True, text=True, check=True).stdout
    kernels = [ln for ln in names.splitlines() if "Function :" in ln]
    other = FLAVOURS[1 - FLAVOURS.index(sched.flavour)]
    assert any(f"ecb_enc_{sched.flavour}" in k for k in kernels)
    assert not any(f"ecb_enc_{other}E" in k or f"ctr_{other}I" in k for k in kernels), kernels
