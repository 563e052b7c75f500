"""How a portable kernel's entry points walk the n whole blocks of one call, per layout: the one place
that decides it.

    scalar      block by block through the one-block core cs_<kind>_1
    sliced      runs of CS_LANES blocks through cs_<kind>_n, then the rest block by block; CTR on 64-bit block
                words: runs through cs_ctr_run (fragments/ctr_run.c): cs_ctr_n, which builds the counter blocks
                in its lanes (no counter bytes in memory, no transposition), where the low 64 bits do not carry
    bitsliced   runs of CS_LANES blocks, then the rest as one zero-padded run (cs_<kind>_part); CTR on blocks
                of whole 64-bit words: runs through cs_ctr_n(ks, ctr, in, out), which splats the counter's
                constant words into planes, transposes only its low word and XORs the keystream into in
                on the way out, where the low 64 bits do not carry

    walk(lanes=8, padded=False)["ecb_encrypt"]
      -> "    for (; i + CS_LANES <= n; i += CS_LANES) cs_encrypt_n(ks, in + i * CS_BLOCK, out + i * CS_BLOCK);\\n"
         "    for (; i < n; i++) cs_encrypt_1(ks, in + i * CS_BLOCK, out + i * CS_BLOCK);"

The entry points themselves are the fragments templates/fragments/kernel_ecb.c and kernel_ctr.c; the
strings returned here fill their loop slots (entry_points renders them).  Argument checks, CBC chaining and partial CTR blocks are the library's
(fragments/api.c), the same for every kernel.
"""

from __future__ import annotations

from .text import fragment

_ECB_RUNS = "    for (; i + CS_LANES <= n; i += CS_LANES) cs_{kind}_n(ks, in + i * CS_BLOCK, out + i * CS_BLOCK);"
_ECB_PADDED = "    if (i < n) cs_{kind}_part(ks, in + i * CS_BLOCK, out + i * CS_BLOCK, n - i);"
_ECB_SINGLE = "    for (; i < n; i++) cs_{kind}_1(ks, in + i * CS_BLOCK, out + i * CS_BLOCK);"

_CTR_RUNS = """\
    for (; i + CS_LANES <= n; i += CS_LANES) {
        cs_ctr_fill(stream, ctr, CS_LANES);
        cs_encrypt_n(ks, stream, stream);
        cs_xor_bytes(out + i * CS_BLOCK, in + i * CS_BLOCK, stream, sizeof stream);
    }"""
_CTR_COUNTER_RUNS = """\
    for (; i + CS_LANES <= n; i += CS_LANES) {
        cs_ctr_run(ks, ctr, stream);  /* fragments/ctr_run.c */
        cs_xor_bytes(out + i * CS_BLOCK, in + i * CS_BLOCK, stream, sizeof stream);
    }"""
_CTR_PLANE_RUNS = """\
    for (; i + CS_LANES <= n; i += CS_LANES) {
        const uint64_t lo = cs_load64be(ctr + CS_BLOCK - 8);
        if (lo <= UINT64_MAX - CS_LANES) {  /* no carry out of the low 64 bits: the core makes the planes */
            cs_ctr_n(ks, ctr, in + i * CS_BLOCK, out + i * CS_BLOCK);
            cs_store64be(ctr + CS_BLOCK - 8, lo + CS_LANES);
            continue;
        }
        cs_ctr_fill(stream, ctr, CS_LANES);
        cs_encrypt_n(ks, stream, stream);
        cs_xor_bytes(out + i * CS_BLOCK, in + i * CS_BLOCK, stream, sizeof stream);
    }"""
_CTR_PADDED = """\
    if (i < n) {  /* the rest: its counter blocks in one padded run of the core */
        cs_ctr_fill(stream, ctr, n - i);
        cs_encrypt_part(ks, stream, stream, n - i);
        cs_xor_bytes(out + i * CS_BLOCK, in + i * CS_BLOCK, stream, (n - i) * CS_BLOCK);
    }"""
_CTR_SINGLE = """\
    for (; i < n; i++) {
        cs_encrypt_1(ks, ctr, stream);
        cs_ctr_increment(ctr);
        cs_xor_bytes(out + i * CS_BLOCK, in + i * CS_BLOCK, stream, CS_BLOCK);
    }"""


def walk(lanes: int, padded: bool, counter_core: bool = False, counter_planes: bool = False) -> dict[str, str]:
    """The loop slots of the entry points: ``lanes`` blocks per run of the core (0: no runs, a scalar
    core), ``padded``: the tail as one zero-padded run (a bitsliced core has no one-block form),
    ``counter_core``: CTR runs through cs_ctr_n (portable.counter_load); ``counter_planes``: through the
    bitsliced cs_ctr_n(ks, ctr, in, out) (bitsliced.counter_core: planes from the counter, keystream
    XORed in on the way out)."""

    def pick(runs: str, tail_padded: str, tail_single: str) -> str:
        return "\n".join(([runs] if lanes else []) + [tail_padded if padded else tail_single])

    return {
        "ecb_encrypt": pick(_ECB_RUNS, _ECB_PADDED, _ECB_SINGLE).format(kind="encrypt"),
        "ecb_decrypt": pick(_ECB_RUNS, _ECB_PADDED, _ECB_SINGLE).format(kind="decrypt"),
        "ctr": pick(
            _CTR_PLANE_RUNS if counter_planes else _CTR_COUNTER_RUNS if counter_core else _CTR_RUNS,
            _CTR_PADDED,
            _CTR_SINGLE,
        ),
        "buffer": "CS_LANES * CS_BLOCK" if lanes else "CS_BLOCK",
    }


def entry_points(
    P: str,
    lanes: int,
    padded: bool,
    kinds=("encrypt", "decrypt"),
    ctr: bool = True,
    counter_core: bool = False,
    counter_planes: bool = False,
) -> list[str]:
    """The kernel's entry points (ECB of each kind, CTR) over its cores, as C sections; with
    ``counter_core`` (not ``counter_planes``) cs_ctr_run (fragments/ctr_run.c) before them, which the CTR loop
    and the kernel's other counter loops (byte_slices_gcm.c, placed after) share."""
    w = walk(lanes, padded, counter_core, counter_planes)
    run = [fragment("ctr_run.c", P=P)] if counter_core and not counter_planes and ctr else []
    out = run + [fragment("kernel_ecb.c", P=P, kind=kind, loops=w[f"ecb_{kind}"]) for kind in kinds]
    return out + ([fragment("kernel_ctr.c", P=P, buffer=w["buffer"], loops=w["ctr"])] if ctr else [])
