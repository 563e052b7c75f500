"""The CUDA lane layouts (generator/ptx/lanes.py) without a GPU: byte-packed (swar) and bitsliced (bs).

Whole route, on the interpreter: key schedule -> derived key words (set_key's part) -> G blocks' memory
words -> lanes_in -> the lowered core -> lanes_out -> bytes, equal to the reference cipher for every
block, both directions.  Then the same route through the generated inline-PTX text (the CPU emulator),
and the schedules' names, refusals and constant-time notes.
"""

from __future__ import annotations

import numpy as np
import pytest
from lane_route import blocks_of, derived, inline_ptx_encrypt, memory_words
from wordshape_specs import REG as WORDSHAPES

from cipherspec.blockcipher import RefCipher
from cipherspec.errors import UsageError
from cipherspec.interp import Interpreter
from generator.ptx.lanes import lanes_for, mask_bits
from generator.ptx.placement import CudaSchedule
from generator.ptx.source import generate, prepared

CASES = [
    ("hight", "swar"),
    ("pipo64_128", "swar"),
    ("pipo64_128", "bs"),
    ("aes128", "bs"),
    ("hight", "bs"),
    ("cham64_128", "bs"),
    ("lea128", "bs"),
]  # bs: u8, u16 big-endian and u32 little-endian words, adders


def _prepared(registry, name, layout):
    return prepared(registry.module(name), CudaSchedule(layout=layout))


@pytest.mark.parametrize("name,layout", CASES + [("sm4like8", "bs")])  # u32 big, byte S-box: trunc/zext renaming
def test_lane_route_equals_the_reference(registry, name, layout):
    reg = WORDSHAPES if name == "sm4like8" else registry
    module = _prepared(reg, name, layout)
    lay = lanes_for(module, layout)
    ref = RefCipher(reg.module(name))
    rng = np.random.default_rng(5)
    key = rng.integers(0, 256, ref.key_bytes, dtype=np.uint8).tobytes()
    rkd = ref.expand_key(key)
    keys = derived(lay, module, rkd)
    G, B = lay.group, ref.block_bytes
    blocks = rng.integers(0, 256, (3 * G, B), dtype=np.uint8)
    it = Interpreter(module.tables)
    for fname, want in (("encrypt", ref.encrypt_blocks(rkd, blocks)), ("decrypt", ref.decrypt_blocks(rkd, blocks))):
        lw = it.run(lay.lanes_in, memory_words(blocks, G))
        x = {n: lw[m] for n, (m, _) in zip(lay.state[fname], lay.lanes_in.outputs)}
        y = it.run(lay.cores[fname], x | keys)
        back = it.run(lay.lanes_out, {n: y[o] for n, (o, _) in zip(lay.state["encrypt"], lay.cores[fname].outputs)})
        assert (blocks_of(back, G, B) == want).all(), fname


def test_swar_inline_ptx_route_on_the_emulator(registry):
    """The generated inline-PTX text of lanes_in, the core and lanes_out (hight, swar), run by the emulator."""
    got, want = inline_ptx_encrypt(registry, "hight", "swar", 16, 9)
    assert (got == want).all()


def test_transpose_masks():
    assert [mask_bits(s) for s in (16, 8, 4, 2, 1)] == [0x0000FFFF, 0x00FF00FF, 0x0F0F0F0F, 0x33333333, 0x55555555]


def test_names_notes_and_refusals(registry):
    src = generate(registry.module("pipo64_128"), CudaSchedule.parse("bs_t64", prepared(registry.module("pipo64_128"))))
    assert src.name == "pipo64_128_cuda_ctr_bs_rk-const_t64"
    assert "constant-time: yes (no table is read)" in src.cu
    aes = prepared(registry.module("aes128"), CudaSchedule(layout="bs"))
    assert CudaSchedule.parse("bs", aes).name(aes) == "aes128_cuda_ctr_bs_rk-const_t256"  # no tab- part: no table read
    assert "tab-" in CudaSchedule.parse("swar", aes).name(aes)
    with pytest.raises(UsageError, match="needs u8 block words"):
        CudaSchedule.parse("swar", prepared(registry.module("lea128")))
    speck = prepared(WORDSHAPES.module("speck128le"), CudaSchedule(layout="bs"))  # u64 words: split_u64 halves them
    assert CudaSchedule.parse("bs", speck).name(speck) == "speck128le_cuda_ctr_bs_rk-const_t256"
    with pytest.raises(UsageError, match="rk-const or rk-shared"):
        CudaSchedule.parse("swar_rk-reg", prepared(registry.module("hight")))


@pytest.mark.parametrize("name,layout", [("aes128", "bs"), ("pipo64_128", "bs"), ("hight", "swar")])
def test_ctr_lanes_in_equals_lanes_in_on_counter_blocks(registry, name, layout):
    """lanes_in_ctr (the words every counter block shares broadcast, the last one transposed) gives the
    lane words lanes_in gives for G blocks that differ only in their last memory word."""
    module = _prepared(registry, name, layout)
    lay = lanes_for(module, layout)
    G, B = lay.group, module.block.nbytes
    rng = np.random.default_rng(3)
    blocks = np.repeat(rng.integers(0, 256, (2, 1, B), dtype=np.uint8), G, axis=1).reshape(2 * G, B)
    blocks[:, -4:] = rng.integers(0, 256, (2 * G, 4), dtype=np.uint8)  # the last word varies per block
    mem = memory_words(blocks, G)
    shared = {f"U[{k}]": mem[f"M[{k}]"] for k in range(B // 4 - 1)}
    it = Interpreter(module.tables)
    want, got = it.run(lay.lanes_in, mem), it.run(lay.lanes_in_ctr, mem | shared)
    assert [n for n, _ in lay.lanes_in.outputs] == [n for n, _ in lay.lanes_in_ctr.outputs]
    for n, _ in lay.lanes_in.outputs:
        assert (np.asarray(got[n]) == np.asarray(want[n])).all(), n
    if layout == "bs":  # cheaper than the transpose
        assert len(lay.lanes_in_ctr.ops) < len(lay.lanes_in.ops)


def test_sync_trip_only_changes_the_ctr_kernels_loop(registry):
    """sync-trip (lockstep.py, an A/B of bench/gpu/ariaroof.sh): the lane layouts' CTR kernel (both flavours) runs
    the CTA's trips in every thread and opens each with a barrier; without it the source has neither."""
    module = registry.module("hight")
    barrier = "__syncthreads();  // the CTA's warps start each trip together"
    own, cta = "if (base >= (nblocks + z + 3) / 4) break;", "if (cta >= (nblocks + z + 3) / 4) break;"
    off = generate(module, CudaSchedule(layout="swar", threads=64), with_gcm=False).cu
    assert barrier not in off and cta not in off
    on = generate(module, CudaSchedule(layout="swar", threads=64, sync="trip"), with_gcm=False).cu
    assert on.count(barrier) == 2 and on.count(cta) == 2
    assert on.count(own) == off.count(own) - 2  # the other kernels' loops are as before
    assert "SYNC" not in on  # no round barrier: the swar cores have no round loop


def test_sync_round_barriers_only_in_the_ctr_kernels_core(registry):
    """sync-pair / sync-round (lockstep.py): the CTR kernel (both flavours) calls its looped core with the round
    barrier on; the tail kernel calls the same template with it off; pair meets T / 4 threads per scheduler."""
    module = registry.module("pipo64_128")
    pair = generate(module, CudaSchedule.parse("bs_t256_rk-shared_sync-pair", module), with_gcm=False).cu
    assert pair.count('asm volatile("bar.sync %0, 64;" :: "r"(1u + ((threadIdx.x >> 5) & 3u)));') == 2
    assert pair.count("cs_main_ptx<true>(") == 1 and pair.count("cs_main_c<true>(") == 1
    assert pair.count("cs_main_ptx(x, y") == 1 and pair.count("cs_main_c(x, y") == 1  # the tail kernel's
    assert pair.count("if (SYNC) {") == 2 and pair.count("template <bool SYNC = false>") == 2
    cta = generate(module, CudaSchedule.parse("bs_t256_rk-shared_sync-round", module), with_gcm=False).cu
    assert "bar.sync" not in cta and cta.count("            __syncthreads();\n") == 2
    off = generate(module, CudaSchedule.parse("bs_t256_rk-shared", module), with_gcm=False).cu
    assert (
        "if (SYNC)" not in off
        and "_main_ptx<true>" not in off
        and off.count("__syncthreads();") < cta.count("__syncthreads();")
    )


@pytest.mark.parametrize(
    "text,err",
    [
        ("bs_sync-lane", "sync-lane: the CTR kernel's lockstep is one of trip, round, pair"),
        ("rk-const_sync-trip", "sync-trip: only the lane layouts' CTR kernel"),
        ("swar_sync-round", "sync-round: needs the bs layout's round loop"),
        ("bs_unroll_sync-pair", "sync-pair: needs the bs layout's round loop"),
        ("bs_t96_sync-pair", "sync-pair: t96 is not a multiple of 128"),
    ],
)
def test_sync_schedule_errors(registry, text, err):
    with pytest.raises(UsageError, match=err):
        CudaSchedule.parse(text, registry.module("pipo64_128"))


def test_sync_schedule_names_round_trip(registry):
    module = registry.module("aria128")
    for text in ("bs_rk-const_t256_sync-pair", "bs_rk-const_t256_sync-trip"):
        s = CudaSchedule.parse(text, module)
        assert CudaSchedule.parse(s.name(module), module) == s and f"_sync-{s.sync}_" in s.name(module)


def test_sync_auto_follows_the_code_between_barriers(registry, monkeypatch):
    """sync-auto (lockstep.resolve, the bitsliced default): a pair barrier at each round-loop iteration where the
    CTR core's loop body exceeds lockstep.BODY_OPS plane ops, none below; an unrolled core none at any size (a trip
    barrier measured slower: bench/results/nearinv.md)."""
    from generator.ptx import lockstep

    module = registry.module("pipo64_128")
    pair = 'asm volatile("bar.sync %0, 64;"'
    trip = "__syncthreads();  // the CTA's warps start each trip together"
    gen = lambda text: generate(module, CudaSchedule.parse(text, module), with_gcm=False).cu  # noqa: E731
    monkeypatch.setattr(lockstep, "BODY_OPS", 0)
    big = gen("bs_t256_rk-shared_sync-auto")
    assert pair in big and "cs_main_ptx<true>(" in big and trip in big
    unrolled = gen("bs_t256_rk-shared_unroll_sync-auto")
    assert trip not in unrolled and "if (SYNC)" not in unrolled
    monkeypatch.setattr(lockstep, "BODY_OPS", 10**9)
    small = gen("bs_t256_rk-shared_sync-auto")
    assert "if (SYNC)" not in small and trip not in small


def test_lazy_cores_make_a_value_only_when_read():
    """lanes_for's unshared cores (_Lazy): the function runs for a core on its first read, once."""
    from generator.ptx.lanes import _Lazy

    runs = []
    cores = _Lazy({"encrypt": 1, "decrypt": 2}, lambda v: runs.append(v) or v * 10)
    assert list(cores) == ["encrypt", "decrypt"] and len(cores) == 2 and runs == []
    assert cores["decrypt"] == 20 and cores["decrypt"] == 20 and runs == [2]
    with pytest.raises(KeyError):
        cores["ctr_main"]
