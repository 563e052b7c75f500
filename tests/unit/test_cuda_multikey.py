"""The multi-key CTR kernel (generator/ptx/multikey.py) without a GPU.

1. Its C helpers (request plan, CTA span, counter with full carry) are plain C: a harness compiled with
   the host compiler walks every CTA x thread x ILP slot exactly as the kernel's loop does, and prints
   which output block gets which counter.  Checked: every output block is written once, block j of
   request r holds V_r + 1 + j (mod 2^(8B)) -- across 2^32, 2^64 and the whole-block wrap -- and only the
   output's last block may be partial.
2. The kernel's core (round keys read from shared memory) is emulated on those counters and equals
   the reference cipher's CTR_DRBG output for each request's key.
3. The generated source has the kernel in both flavours and the host entry, and nvcc-free checks of the
   schedule's flavour token.
"""

from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest

from cipherspec.blockcipher import RefCipher, bytes_to_words, words_to_bytes
from cipherspec.drbg import BulkRequest
from cipherspec.errors import UsageError
from generator.ptx import cores, emulate, multikey
from generator.ptx.build import schedule_for
from generator.ptx.ctchoice import default_for
from generator.ptx.ctr import state_names
from generator.ptx.lanes import GROUP
from generator.ptx.placement import CudaSchedule, rk_index
from generator.ptx.source import generate, prepared
from toolchain.cc import Toolchain, compile_cached

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CS_HD
%(helpers)s
/* stdin: T ILP ch nreq flat, then per request: V (hex bytes) len.  stdout: "i counter" per full block,
   "p i rem" for a partial one -- the kernel's loop, run CTA by CTA, thread by thread, request by request (flat: a
   CTA makes the call's blocks [cta * ch, (cta + 1) * ch), its first request from the map, "d" when division by
   the first request's blocks, where all but the last are as long, would give another). */
int main(void)
{
    unsigned T, ILP, ch, flat; unsigned long long nreq;
    if (scanf("%%u %%u %%u %%llu %%u", &T, &ILP, &ch, &nreq, &flat) != 5) return 2;
    uint8_t *vs = malloc(nreq * %(B)d + 1); uint64_t *lens = malloc(nreq * 8 + 8);
    uint64_t total = 0;
    for (uint64_t r = 0; r < nreq; ++r) {
        char hex[%(B)d * 2 + 1]; unsigned long long len;
        if (scanf("%%s %%llu", hex, &len) != 2) return 2;
        for (int b = 0; b < %(B)d; ++b) { unsigned x; sscanf(hex + 2 * b, "%%2x", &x); vs[r * %(B)d + b] = (uint8_t)x; }
        lens[r] = len; total += len;
    }
    uint64_t nctas = t_mk_ctas(lens, nreq, ch), blocks = 0;
    if (!nctas) { printf("ELEN\n"); return 0; }
    int equal = 1;
    for (uint64_t r = 0; r < nreq; ++r) {
        blocks += (lens[r] + %(B)d - 1) / %(B)d;
        equal &= r + 1 == nreq || lens[r] == lens[0];
    }
    if (flat) nctas = (blocks + ch - 1) / ch;
    t_mreq *q = malloc(nreq * sizeof(t_mreq)); uint32_t *cta_req = malloc(nctas * 4);
    t_mk_plan(vs, lens, nreq, ch, q, flat ? NULL : cta_req);
    if (flat) t_mk_flat_map(q, nreq, ch, nctas, cta_req);
    for (uint64_t cta = 0; cta < nctas; ++cta) {
        const uint64_t u = q[0].nblocks ? (uint64_t)cta * ch / q[0].nblocks : 0;
        if (flat && equal && (u < nreq - 1 ? u : nreq - 1) != cta_req[cta]) printf("d %%llu\n", (unsigned long long)cta);
        for (uint32_t tid = 0; tid < T; ++tid)
          for (uint32_t r = cta_req[cta];; ++r) {
            /* flat over equal requests: the CTA works out the descriptor from V ("v" when it differs from the plan's) */
            const t_mreq qq = flat && equal && q[0].nblocks ? t_mk_req_v((const uint32_t *)(vs + r * %(B)d), r, q[0].nblocks,
                                                                        (uint32_t)(nreq - 1), blocks) : q[r];
            if (memcmp(qq.ctr, q[r].ctr, sizeof qq.ctr) || qq.first != q[r].first || qq.nblocks != q[r].nblocks)
                printf("v %%u\n", r);
            uint32_t lo, hi;
            if (flat) t_mk_flat_span(&qq, (uint32_t)cta, ch, &lo, &hi);
            else t_mk_span(&qq, (uint32_t)cta, ch, &lo, &hi);
            for (uint32_t b0 = lo; b0 < hi; b0 += T * ILP) {
                const uint32_t step = hi - b0 < T * ILP ? (hi - b0 + ILP - 1) / ILP : T;  /* a partial trip: fewest threads */
                if (tid >= step) continue;
                for (uint32_t s = 0; s < ILP; ++s) {
                    const uint32_t j = b0 + tid + s * step;
                    uint32_t m[%(MW)d];
                    t_mk_counter(qq.ctr, j, m);
                    if (j >= hi) continue;
                    const uint64_t i = qq.first + j;
                    if ((i + 1) * %(B)d <= total) {
                        printf("%%llu ", (unsigned long long)i);
                        for (int k = 0; k < %(MW)d; ++k) for (int b = 0; b < 4; ++b) printf("%%02x", (m[k] >> (8 * b)) & 0xff);
                        printf("\n");
                    } else printf("p %%llu %%llu\n", (unsigned long long)i, (unsigned long long)(total - i * %(B)d));
                }
            }
            if (!flat || r + 1 >= nreq || !t_mk_flat_span(&qq, (uint32_t)cta, ch, &lo, &hi)) break;
          }
    }
    return 0;
}
"""


def harness(B: int):
    src = HARNESS % {"helpers": multikey.helpers_c("t", B), "B": B, "MW": B // 4}
    return compile_cached({"h.c": src}, ["h.c"], "exe", Toolchain.host(("-std=c99", "-O1", "-Wall", "-Werror")))


def run_plan(B: int, T: int, ilp: int, ch: int, vs: list[bytes], lens: list[int], flat: bool = False) -> str:
    text = f"{T} {ilp} {ch} {len(vs)} {int(flat)}\n" + "".join(f"{v.hex()} {n}\n" for v, n in zip(vs, lens))
    return subprocess.run([str(harness(B))], input=text, capture_output=True, text=True, check=True).stdout


def near(B: int, bits: int, k: int, rng) -> bytes:
    hi = int.from_bytes(rng.integers(0, 256, B, dtype=np.uint8).tobytes(), "big") >> bits << bits
    return ((hi | ((1 << bits) - k)) % (1 << (8 * B))).to_bytes(B, "big")


def check_plan(out: str, B: int, vs: list[bytes], lens: list[int]) -> None:
    """Every output block once, block j of request r = V_r + 1 + j, only the last block partial."""
    seen: dict[int, str] = {}
    partial = []
    for line in out.split("\n"):
        if not line:
            continue
        assert not line.startswith("d "), "division by the first request's blocks gives another request: " + line
        assert not line.startswith("v "), "the descriptor worked out from V differs from the plan's: " + line
        if line.startswith("p "):
            partial.append(tuple(int(x) for x in line.split()[1:]))
            continue
        i, ctr = line.split()
        assert int(i) not in seen, f"block {i} written twice"
        seen[int(i)] = ctr
    want, first = {}, 0
    for v, n in zip(vs, lens):
        for j in range(-(-n // B)):
            want[first + j] = ((int.from_bytes(v, "big") + 1 + j) % (1 << (8 * B))).to_bytes(B, "big").hex()
        first += -(-n // B)
    last = first - 1
    assert partial == ([(last, lens[-1] % B)] if lens[-1] % B else [])
    if lens[-1] % B:
        del want[last]
    assert seen == want


def drbg_vs(B: int, rng) -> list[bytes]:
    return [
        rng.integers(0, 256, B, dtype=np.uint8).tobytes(),
        near(B, 32, 3, rng),
        near(B, 64, 1, rng),
        near(B, 8 * B, 7, rng),
        b"\xff" * B,
        near(B, 32, 1, rng),
    ]


@pytest.mark.parametrize("B", [8, 16])
@pytest.mark.parametrize("T,ilp,ch", [(32, 1, 32), (64, 2, 256), (32, 3, 96 * 4)])
def test_plan_counters_cover_every_block_once(B, T, ilp, ch):
    rng = np.random.default_rng(B * 1000 + ch)
    vs = drbg_vs(B, rng)
    lens = [B * n for n in (1, 500, 77, 300, 20)] + [B * 33 + 5]  # the last one partial
    check_plan(run_plan(B, T, ilp, ch, vs, lens), B, vs, lens)


@pytest.mark.parametrize("B", [8, 16])
@pytest.mark.parametrize("T,ilp,ch", [(32, 1, 32), (64, 2, 96), (32, 3, 1000), (32, 2, 5000)])
def test_flat_plan_counters_cover_every_block_once(B, T, ilp, ch):
    """Whole waves: CTAs of ch blocks of the call whatever requests they cross (starting mid-request, spanning
    several, or within one), mixed lengths with an empty request (the map) and equal ones (division)."""
    rng = np.random.default_rng(B * 1000 + ch + 1)
    vs = drbg_vs(B, rng)
    for lens in (
        [B * n for n in (1, 500, 0, 300, 20)] + [B * 33 + 5],
        [B * 300] * 5 + [B * 33 + 5],
        [B * 300] * 5 + [B * 300],
        [B * 64] * 6,
    ):
        check_plan(run_plan(B, T, ilp, ch, vs, lens, flat=True), B, vs, lens)


def test_plan_refuses_bad_lengths():
    assert run_plan(16, 32, 1, 32, [bytes(16)] * 2, [17, 32]).strip() == "ELEN"  # not whole blocks before the last
    assert run_plan(16, 32, 1, 32, [bytes(16)], [16 << 31]).strip() == "ELEN"  # 2^31 blocks: too long
    assert run_plan(16, 32, 1, 32, [bytes(16)] * 2, [32, 17]).strip() != "ELEN"


@pytest.mark.parametrize("name", ["aes128", "lea128", "hight", "cham128_128", "aria128", "pipo64_128"])
@pytest.mark.parametrize("flavour", ["ptx", "c"])
def test_multikey_core_gives_drbg_output(registry, name, flavour):
    """Counters from the harness -> the kernel's core (round keys from shared memory, per request) ->
    the reference cipher's E(K_r, V_r + 1 + j)."""
    module = prepared(registry.module(name))
    ref = RefCipher(registry.module(name))
    B = ref.block_bytes
    rng = np.random.default_rng(7)
    sched = default_for(module)
    staged = CudaSchedule(rk="shared", tab=sched.tab)  # (the core below is the one-block layout's, tables copied)
    acc = cores.access(module, staged, "RK")
    text = cores.core("cs_menc", module.functions["encrypt"], module, acc, flavour, state_names(module, "encrypt"))
    tables = {t.name: np.array(t.values) for t in module.tables.values()}
    reqs = [
        BulkRequest(rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes(), v, 0, n)
        for v, n in ((near(B, 32, 2, rng), 5 * B), (b"\xff" * B, 3 * B), (near(B, 64, 1, rng), 2 * B + 3))
    ]
    out = run_plan(B, 32, 1, 32, [r.v for r in reqs], [r.nbytes for r in reqs])
    ctrs = {
        int(i): bytes.fromhex(c) for i, c in (ln.split() for ln in out.split("\n") if ln and not ln.startswith("p"))
    }
    idx = rk_index(module)
    first = 0
    for r in reqs:
        nb = -(-r.nbytes // B)
        blocks = np.frombuffer(b"".join(ctrs[first + j] for j in range(nb) if first + j in ctrs), np.uint8).reshape(
            -1, B
        )
        rkd = ref.expand_key(r.key)
        rk = np.zeros(len(idx), np.uint64)
        for n_, i in idx.items():
            rk[i] = int(np.asarray(rkd[n_]).reshape(-1)[0])
        x = [w.astype(np.uint64) for w in bytes_to_words(module.block, blocks)]
        got = emulate.run_core(text, x, rk, tables, copies=staged.copies or 1)
        got_bytes = words_to_bytes(module.block, [np.asarray(w, np.uint64) for w in got], len(blocks))
        want = ref.encrypt_blocks(rkd, blocks)
        assert np.array_equal(np.asarray(got_bytes, np.uint8).reshape(-1, B), want)
        first += nb


def test_source_has_multikey_kernels_and_flavour(registry):
    module = prepared(registry.module("aes128"))
    s = CudaSchedule.parse("rk-const_t512_tab-shared_fl-c", module)
    assert s.flavour == "c" and "_fl-c_" in s.name(module)
    assert CudaSchedule.parse(s.name(module), module) == s
    src = generate(registry.module("aes128"), s)
    for k in ("_ctr_multi_ptx(", "_ctr_multi_c(", "_ctr_multi_dev(", "_mk_plan(", "__syncthreads"):
        assert k in src.cu
    assert "stream, 1);" in src.cu  # the host API runs the plain-C flavour by default
    assert "_ctr_multi_dev(" in src.h
    with pytest.raises(UsageError, match="flavour"):
        CudaSchedule.parse("fl-sass", module)


def test_key_schedule_launch_shape_fits_shared_memory():
    """The key-schedule launch (host.cu.j2's P_key_schedule_multi) stages each CTA's keys and expanded tables in
    shared memory: requests per CTA a power of two, at most 32, within the 48 KiB a launch gets without opting in,
    an odd stride (no bank conflicts); a table too big for one key per CTA falls back to direct stores (0)."""
    for nrk in (4, 32, 144, 176, 1000, 2736, 5000, 12000):
        for kb in (8, 16, 24, 32):
            t, stride = multikey.key_schedule_shape(nrk, kb)
            assert t in (1, 2, 4, 8, 16, 32) and stride == nrk | 1 and stride % 2 == 1
            assert multikey.key_schedule_smem(t, stride, kb) <= multikey.DEFAULT_SHARED
            assert t == 32 or multikey.key_schedule_smem(2 * t, stride, kb) > multikey.DEFAULT_SHARED
    assert multikey.key_schedule_shape(144, 16) == (32, 145)
    assert multikey.key_schedule_shape(20000, 16) == (multikey.KEY_SCHEDULE_THREADS, 0)
    assert multikey.key_schedule_smem(32, 0, 16) == 0


def test_key_schedule_kernel_stages_and_stores_coalesced(registry):
    """LEA-128's key-schedule kernel: keys read as words into shared memory, the schedule run there, the tables
    stored by the CTA together, shared memory cleared after; no thread stores its own table to global memory.
    (ARIA's encrypt-only schedule, which leaves words unwritten, zeroes the tables first: test_cuda_cpu.py runs it.)"""
    module = registry.module("lea128")
    src = generate(module, default_for(prepared(module))).cu
    body = src[src.index("_key_schedule_multi(const uint8_t") :]
    body = body[: body.index("\n}\n")]
    nrk = len(rk_index(prepared(module)))
    t, stride = multikey.key_schedule_shape(nrk, 16)
    T = multikey.KEY_SCHEDULE_THREADS
    assert f"__launch_bounds__({T})" in src[src.index("_key_schedule_multi(const uint8_t") - 200 :]
    assert "kst[j] = src[j];" in body and f"kst + threadIdx.x * 16u, cs_smem + threadIdx.x * {stride}u);" in body
    assert body.count("((uint4 *)cs_smem)[j] = make_uint4(0, 0, 0, 0);") == 1  # every word written: no zeroing first
    assert f"dst[j] = cs_smem[j / {nrk}u * {stride}u + j % {nrk}u];" in body
    assert "make_uint4(0, 0, 0, 0);" in body.split("shared memory cleared", 1)[1]
    assert "rks + r * " not in body
    launch = re.search(r"CS_LAUNCH\(\w+_key_schedule_multi, (.*)", src).group(1)  # (grid, block, smem, stream)(...
    assert launch.endswith(f", {T}, {multikey.key_schedule_smem(t, stride, 16)}, stream)(")
    assert f"blockIdx.x * {t}u, p = (uint64_t)blockIdx.x * {T}u + threadIdx.x;" in body


def test_key_schedule_fuses_into_the_keystream_kernel_where_it_is_cheap(registry):
    """multikey.fused_key_schedule: by the key schedule's cost (IR ops, a lookup counted as its table's entries),
    never by name.  LEA-128 (292) and CHAM-128/128 (28) fuse: their multi-key kernel has a second form whose thread 0
    runs the device key schedule into shared memory, the CTA zeroing the round keys and the key after its
    keystream; AES-128 (40 S-box lookups) does not, and a lane layout (derived key words) never does."""
    cost = {n: multikey.key_schedule_cost(prepared(registry.module(n))) for n in ("lea128", "cham128_128", "aes128")}
    assert cost["lea128"] < multikey.FUSE_MAX_OPS and cost["cham128_128"] < multikey.FUSE_MAX_OPS
    assert cost["aes128"] > multikey.FUSE_MAX_OPS > 40 * 256 // 8  # the lookups' circuits dominate
    lea = registry.module("lea128")
    src = generate(lea, default_for(prepared(lea))).cu
    body = src[src.index("_ctr_multi_ks_ptx(const uint32_t") :]
    body = body[: body.index("\n}\n")]
    nrk = len(rk_index(prepared(lea)))
    key = f"if (threadIdx.x < 4u) (cs_smem + {nrk})[threadIdx.x] = pf ? pv[4 + threadIdx.x] : keys[(uint64_t)r * 4 + threadIdx.x];"
    assert key in body  # (pv: the request's V and key fetched ahead into shared memory, the default; see below)
    assert f"uint32_t *pv = cs_smem + {nrk + 4};" in body and "cs_mk_fetch4(pv + threadIdx.x, keys + " in body
    assert (
        "if (threadIdx.x == 0) cs_lea128_" in body
        and f"_key_schedule((const uint8_t *)(cs_smem + {nrk}), cs_smem + 0);" in body
    )
    # the round keys, the key, the fetched V and key zeroed last
    assert body.rstrip().endswith(f"for (uint32_t i = threadIdx.x; i < {nrk + 12}u; i += 256u) cs_smem[0 + i] = 0;")
    assert "const void *kk = fused ? cs_fn(kf) : cs_fn(k);" in src  # the context's call picks it
    assert "if (!rc && fused) {" in src and ", cpr,\n" in src  # (CIPHERSPEC_MG_FUSED=0: the two launches)
    # the two launches' keystream reads the plan where the key-schedule launch moved it (device scratch), never the
    # page-locked staging, which the next call on the scratch rewrites once `staged` has fired (a race the first
    # device run showed: AES-128, 1 GiB, pipelined)
    assert src.count("_mk_launch_stream(k, s->d, s->d + rk_bytes, q_bytes, smem,") == 1
    for name, sched in (("aes128", "tt_t64_tab-shared4"), ("hight", "swar_t64_ilp2")):
        m = registry.module(name)
        assert "_ctr_multi_ks_" not in generate(m, schedule_for(m, sched)).cu, name


GEOMETRY = r"""
#include <stdint.h>
#include <stdio.h>
enum { CS_OK = 0, CS_ELEN = 3 };
%(geometry)s
/* stdin: sms per max_trips flat nreq, then the lengths.  stdout: rc ch nctas total cpr flat */
int main(void)
{
    int sms, per, flat; unsigned max_trips; unsigned long long nreq;
    if (scanf("%%d %%d %%u %%d %%llu", &sms, &per, &max_trips, &flat, &nreq) != 5) return 2;
    static uint64_t lens[4096];
    for (unsigned long long r = 0; r < nreq; ++r) { unsigned long long l; if (scanf("%%llu", &l) != 1) return 2; lens[r] = l; }
    uint32_t ch = 0, cpr = 0; uint64_t nctas = 0, total = 0;
    const int rc = %(P)s_mk_geometry(lens, nreq, sms, per, &ch, &nctas, &total, &cpr, max_trips, &flat);
    printf("%%d %%u %%llu %%llu %%u %%d\n", rc, ch, (unsigned long long)nctas, (unsigned long long)total, cpr, flat);
    return 0;
}
"""


def geometry_mirror(lens, B, tile, unit, sms, per, max_trips, flat):
    """host.cu.j2's P_mk_geometry, its general loop, in Python: (rc, ch, nctas, total, cpr, flat)."""
    nreq = len(lens)
    nbs = [-(-n // B) for n in lens]
    if any((r + 1 < nreq and n % B) or nb >= multikey.MAX_REQ_BLOCKS for r, (n, nb) in enumerate(zip(lens, nbs))):
        return (3, 0, 0, 0, 0, flat)
    n = [sum(-(-nb // (tile << t)) for nb in nbs) for t in range(3)]
    mixed = any(nbs[r] != nbs[0] for r in range(1, nreq - 1))
    if not n[0]:
        return (3, 0, 0, 0, 0, flat)
    blocks, total = sum(nbs), sum(lens)
    if flat:
        wave = sms * per
        per_cta = -(-blocks // wave)
        share = -(-per_cta // unit) * unit
        if blocks >= nreq * tile and share < 1 << 31:
            return (0, share, -(-blocks // share), total, 0 if mixed else nbs[0], 1)
    t = next((k for k in (2, 1) if (1 << k) <= max_trips and n[k] >= 2 * sms * per), 0)
    return (0, tile << t, n[t], total, 0 if mixed else -(-nbs[0] // (tile << t)), 0)


def test_geometry_fast_path_equals_the_loop(registry):
    """P_mk_geometry's path for equal requests but the last (counts worked out, no loop) and its loop agree with a
    Python mirror of the loop: equal requests with the last shorter, longer, partial or alone; mixed lengths (the
    loop); lengths that are not whole blocks before the last (ELEN either way); whole waves on and off."""
    module = registry.module("lea128")
    cu = generate(module, default_for(prepared(module))).cu
    a = cu.rindex("static int ", 0, cu.index("_mk_geometry("))
    geo = cu[a : cu.index("\n}\n", a) + 3]
    P = geo.split("static int ", 1)[1].split("_mk_geometry(", 1)[0]
    tc = Toolchain(cc=os.environ.get("CXX", "c++"), flags=("-O1", "-Wall", "-Werror"))
    exe = compile_cached({"g.cpp": GEOMETRY % {"geometry": geo, "P": P}}, ["g.cpp"], "exe", tc)
    tile, unit = 512, 32  # LEA-128's default: 256 threads x ILP 2 a loop trip; a warp's slot
    assert f"const uint64_t cap = {tile}ull << t;" in geo
    rng = np.random.default_rng(41)
    cases = [
        [65536] * 2048,
        [65536] * 37 + [4000],
        [65536] * 37 + [70000],
        [65536] * 37 + [65541],
        [16],
        [4096, 8192],
        [65536] * 5 + [1000] + [65536] * 5,
        [16 * int(x) for x in rng.integers(1, 9000, 300)],
        [65535] * 10,
        [0] * 6,
    ]
    for lens in cases:
        for sms, per, max_trips, flat in ((132, 5, 4, 1), (132, 5, 4, 0), (2, 1, 2, 1), (132, 5, 1, 0)):
            text = f"{sms} {per} {max_trips} {flat} {len(lens)}\n" + " ".join(map(str, lens)) + "\n"
            out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout.split()
            got = tuple(int(x) for x in out)
            want = geometry_mirror(lens, 16, tile, unit, sms, per, max_trips, flat)
            assert (got if got[0] == 0 else got[:1]) == (want if want[0] == 0 else want[:1]), (lens[:3], len(lens), sms)


@pytest.mark.parametrize(
    "name, text, want",
    [
        ("aes128", None, 128),  # the bitsliced default (t256): one 2^16-byte request is 4,096 blocks = 128 x 32
        ("pipo64_128", "bs_t256", 256),  # 8-byte blocks: 8,192 blocks a request
        ("lea128", None, 256),  # one block a thread: the schedule's threads, at most MAX_THREADS
    ],
)
def test_multikey_cta_at_most_one_request_wide(registry, name, text, want):
    """A lane layout keeps a CTA per request: more threads than a largest DRBG request's blocks / group would idle
    (measured: AES-128's 1 GiB DRBG bulk 277 -> 173 GB/s when the CTA followed the CTR default to 256 threads)."""
    m = registry.module(name)
    sched = schedule_for(m, text)
    group = GROUP.get(sched.layout, 1)
    got = multikey.threads(sched, multikey.request_slots(m.block.nbytes, group) if group > 1 else 0)
    assert got == want, (sched, got)
    src = generate(m, sched)
    assert f"__launch_bounds__({want}, 1)" in src.cu.split("_ctr_multi_ptx")[0].rsplit("__global__", 1)[-1]
    if "_gcm_batch(" in src.cu:  # GCM's batch kernels (a CTA a slice, not a request) keep the schedule's threads
        bounds = src.cu.split("_gcm_batch(")[0].rsplit("__global__", 1)[-1]
        assert f"__launch_bounds__({min(sched.threads, multikey.MAX_THREADS)}, 1)" in bounds
