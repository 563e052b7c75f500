"""Constant-time, checked, for the CUDA libraries' GHASH (templates/gcm.cu.j2): the carry-less multiply, its
operand preparation, the reduction and H^(2^e) by squaring, exactly as they stand in a generated .cu (the
`CS_HD` functions nvcc compiles for host and device alike), compiled with g++ -O3 and run under valgrind
memcheck with H and the data marked undefined: memcheck reports any branch or memory address computed from
them.  The products are then compared with the oracle's GF(2^128) multiply (cipherspec.ghash), so the checked
code really ran.

What this proves: the host path (set_key's powers, a non-96-bit IV's J0) has no secret-dependent branch or
address under g++; the device path is the same C with `mul.wide.u32` for the product (a multiply: no
branch, no address), which memcheck cannot run.  What it does not: timing of the GPU's multiplier itself."""

from __future__ import annotations

import subprocess

import pytest
from cuda_support import host_cxx
from memcheck import memcheck, require_memcheck
from shipped import shipped_registry

from cipherspec.ghash import gf128_mul
from generator.ptx.build import schedule_for
from generator.ptx.source import generate

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>
#define CS_HD
struct uint4 { uint32_t x, y, z, w; };
static inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) { uint4 r = {x, y, z, w}; return r; }
SECTION
uint32_t h[64][4], x[4];  /* external linkage: the stores cannot be dropped */
int main(void)
{
    const uint32_t h0[4] = {H0}, x0[4] = {X0};
    memcpy(h[0], h0, 16);
    memcpy(x, x0, 16);
    VALGRIND_MAKE_MEM_UNDEFINED(h[0], 16);
    VALGRIND_MAKE_MEM_UNDEFINED(x, 16);
    for (int e = 1; e < 64; ++e) {  /* as set_key: H^(2^e) */
        memcpy(h[e], h[e - 1], 16);
        cs_gh_mul(h[e], h[e - 1]);
    }
    uint32_t p[36];
    cs_gh_prep(h[0], p);
    MULP(x, p);            /* x * H, the hashing loop's multiply (inline, or out of line: GcmParts.row_mulp) */
    cs_gh_mul(x, h[5]);    /* x * H * H^32 */
    LEAK
    VALGRIND_MAKE_MEM_DEFINED(h, sizeof h);
    VALGRIND_MAKE_MEM_DEFINED(x, sizeof x);
    printf("%08x%08x%08x%08x %08x%08x%08x%08x\n", x[0], x[1], x[2], x[3], h[63][0], h[63][1], h[63][2], h[63][3]);
    return 0;
}
"""
H = 0x66E94BD4EF8A2C3B884CFA59CA342B2E  # (AES-128's E(0^128, 0^128): any 128-bit value would do)
X = 0x0388DACE60B6A392F328C2B971B2FE78


# The GHASH section of a schedule with one block a unit (LEA-128: the hashing rows' multiply inline) and of one with
# 32 (bitsliced AES at 2 rounds, the same layout: the multiply out of line, cs_gh_mulp_o); the functions as nvcc
# compiles them for the host
LAYOUTS = {"one-block-units": ("lea128", None), "lane-units": ("aes128", 2)}


def _section(name: str, rounds: int | None) -> str:
    reg = shipped_registry()
    m = reg.module(name, rounds)
    g = generate(m, schedule_for(m, None), rounds)
    cu = g.cu
    a, b = cu.index("CS_HD static inline uint64_t cs_gh_wide"), cu.index("// r = H^n from pw")
    return cu[a:b]


def _words(v: int) -> str:
    return ", ".join(f"{(v >> (96 - 32 * k)) & 0xFFFFFFFF:#010x}u" for k in range(4))


def _run(tmp_path, leak: str = "", layout: str = "one-block-units"):
    section = _section(*LAYOUTS[layout])
    mulp = "cs_gh_mulp_o" if "cs_gh_mulp_o" in section else "cs_gh_mulp"
    assert (mulp == "cs_gh_mulp_o") == (layout == "lane-units")  # (the section holds the multiply it is here for)
    src = HARNESS.replace("SECTION", section).replace("MULP", mulp).replace("{H0}", "{" + _words(H) + "}")
    src = src.replace("{X0}", "{" + _words(X) + "}").replace("LEAK", leak)
    (tmp_path / "gh.cpp").write_text(src)
    exe = tmp_path / "gh"
    subprocess.run([host_cxx(), "-std=c++17", "-O3", "-o", str(exe), str(tmp_path / "gh.cpp")], check=True)
    return memcheck(exe)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_ghash_multiply_is_constant_time(tmp_path, layout):
    require_memcheck()
    p = _run(tmp_path, layout=layout)
    assert p.returncode == 0, "memcheck found H- or data-dependent branches or addresses:\n" + p.stderr[-4000:]
    got_x, got_h = (int(w, 16) for w in p.stdout.split())
    h32 = H
    for _ in range(5):
        h32 = gf128_mul(h32, h32)
    assert got_x == gf128_mul(gf128_mul(X, H), h32)
    h63 = H
    for _ in range(63):
        h63 = gf128_mul(h63, h63)
    assert got_h == h63


def test_the_check_catches_a_table(tmp_path):
    """A lookup indexed by a byte of H (as a table-driven GHASH makes) is reported: the check can fail."""
    require_memcheck()
    p = _run(tmp_path, "static volatile uint32_t t[256]; x[0] ^= t[h[0][0] & 0xff];")
    assert p.returncode == 99, p.stderr[-2000:]
