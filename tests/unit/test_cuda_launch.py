"""Every kernel launch of a generated CUDA source goes through cs_launch, and every runtime call that names a kernel
through cs_fn (device.cu.j2): one place decides what the runtime launches for a kernel -- the step a device image
compiled apart from the host code needs (a kernel's handle in that image instead of its own stub).

    before: k<<<grid, 256, 0, stream>>>(*rk, seg, in, out);    after: cs_launch(k, grid, 256, 0, stream, *rk, seg, in, out);
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
    code = re.sub(r"#ifndef CS_CPU_SHIM.*?#endif", "", code, count=1, flags=re.S)  # (cs_launch and cs_fn themselves)
    assert "<<<" not in code, "a launch that bypasses cs_launch"
    launches = re.findall(r"\bcs_launch\((\w+)", code)
    assert len(launches) >= 5
    # the runtime calls that take a kernel take cs_fn(k), never a cast of the kernel
    assert not re.search(r"\(const void \*\)\s*(?:cs_|k\b|kern\b|fin\b|tail\b)", code)
    # (their kernel argument: cs_fn(...), or a `const void *` parameter named kernel / k that callers fill with it)
    named = re.findall(r"cudaFuncSetAttribute\(([^,]+),", code)
    named += re.findall(r"cudaOccupancyMaxActiveBlocksPerMultiprocessor\([^,]+,([^,]+),", code)
    assert named
    for arg in named:
        assert arg.strip() in ("kernel", "k") or arg.strip().startswith("cs_fn("), arg


def test_cs_launch_converts_to_the_kernels_parameter_types(registry):
    """cs_launch builds cudaLaunchKernel's argument array from a tuple of the kernel's own parameter types (as
    k<<<>>>(...) would convert them), one argument per parameter, checked at compile time."""
    m = registry.module("lea128")
    cu = generate(m, schedule_for(m, None)).cu
    helper = cu[cu.index("static inline cudaError_t cs_launch_(") :].split("\n}\n", 1)[0]
    assert "std::tuple<std::decay_t<P>...> v(std::forward<A>(a)...);" in helper
    assert "cudaLaunchKernel(cs_fn(k), grid, block, args, smem, stream)" in helper
    assert 'static_assert(sizeof...(P) == sizeof...(A), "cs_launch: one argument per kernel parameter");' in cu
    assert cu.index("#ifndef CS_CPU_SHIM") < cu.index("cs_launch_(")  # (the CPU shim brings its own)
