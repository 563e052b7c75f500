"""Every kernel launch of a generated CUDA source goes through CS_LAUNCH, and every runtime call that names a kernel
through cs_fn (device.cu.j2): one place decides what the runtime launches for a kernel -- the step a device image
compiled apart from the host code needs (a kernel's handle in that image instead of its own stub).

    before: k<<<grid, 256, 0, stream>>>(*rk, seg, in, out);    after: CS_LAUNCH(k, grid, 256, 0, stream)(*rk, seg, in, out);
"""

from __future__ import annotations

import re

import pytest

from generator.ptx.build import schedule_for
from generator.ptx.source import generate

# a bitsliced layout with GCM and the tensor-core GHASH, a lane layout, a word layout, a table layout
CASES = [("aes128", None), ("lea128", None), ("hight", None), ("aria128", "rk-const_t256_tab-shared32")]


def _code(text: str) -> str:
    """The source without its comments."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


@pytest.mark.parametrize("name,sched", CASES)
def test_every_launch_is_cs_launch(registry, name, sched):
    m = registry.module(name)
    code = _code(generate(m, schedule_for(m, sched)).cu)
    code = re.sub(r"#ifndef CS_LAUNCH.*?\n}\n", "", code, count=1, flags=re.S)  # (CS_LAUNCH and cs_fn themselves)
    assert "<<<" not in code, "a launch that bypasses CS_LAUNCH"
    launches = re.findall(r"\bCS_LAUNCH\((\w+)[^;]*?, stream\)\(", code, flags=re.S)
    assert len(launches) >= 5 and len(launches) == code.count("CS_LAUNCH(")
    # the runtime calls that take a kernel take cs_fn(k), never a cast of the kernel
    assert not re.search(r"\(const void \*\)\s*(?:cs_|k\b|kern\b|fin\b|tail\b)", code)
    # (their kernel argument: cs_fn(...), or a `const void *` parameter named kernel / k that callers fill with it)
    named = re.findall(r"cudaFuncSetAttribute\(([^,]+),", code)
    named += re.findall(r"cudaOccupancyMaxActiveBlocksPerMultiprocessor\([^,]+,([^,]+),", code)
    assert named
    for arg in named:
        assert arg.strip() in ("kernel", "k") or arg.strip().startswith("cs_fn("), arg


def test_cs_launch_is_the_triple_chevron_here(registry):
    """In a library CS_LAUNCH(k, grid, block, smem, stream) is k<<<grid, block, smem, stream>>> itself (the code nvcc
    compiled before, at no compile cost: a cudaLaunchKernel wrapper built from a std::tuple cost ~0.7 s of host g++ a
    library), defined only where the includer has none (tests/support/cuda_cpu.h runs the grid on the CPU)."""
    m = registry.module("lea128")
    cu = generate(m, schedule_for(m, None)).cu
    assert "#ifndef CS_LAUNCH" in cu
    assert "#define CS_LAUNCH(k, grid, block, smem, stream) k<<<grid, block, smem, stream>>>" in cu
    assert "static inline const void *cs_fn(void (*k)(P...))" in cu and "#include <tuple>" not in cu
