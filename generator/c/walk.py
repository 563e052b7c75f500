"""How the mode functions walk the blocks of one call, per layout: the one place that decides it.

    scalar      block by block through the one-block core cs_<kind>_1
    sliced      runs of CS_LANES blocks through cs_<kind>_n, then the rest block by block
    bitsliced   runs of CS_LANES blocks, then the rest as one zero-padded run (cs_<kind>_part)

    walk(lanes=8, padded=False)["ecb_encrypt"]
      -> "    for (; i + CS_LANES <= n; i += CS_LANES) cs_encrypt_n(ks, in + i * CS_BLOCK, out + i * CS_BLOCK);\\n"
         "    for (; i < n; i++) cs_encrypt_1(ks, in + i * CS_BLOCK, out + i * CS_BLOCK);"

The mode functions themselves (argument checks, CBC chaining, the CTR counter) are the fragment
templates/fragments/modes.c; the strings returned here fill its loop slots.
"""
from __future__ import annotations

_ECB_RUNS = "    for (; i + CS_LANES <= n; i += CS_LANES) cs_{kind}_n(ks, in + i * CS_BLOCK, out + i * CS_BLOCK);"
_ECB_PADDED = "    if (i < n) cs_{kind}_part(ks, in + i * CS_BLOCK, out + i * CS_BLOCK, n - i);"
_ECB_SINGLE = "    for (; i < n; i++) cs_{kind}_1(ks, in + i * CS_BLOCK, out + i * CS_BLOCK);"

_CBC_RUNS = """\
    for (; i + CS_LANES <= n; i += CS_LANES) {  /* ct: a copy, so that in == out works */
        memcpy(ct, in + i * CS_BLOCK, sizeof ct);
        cs_decrypt_n(ks, ct, out + i * CS_BLOCK);
        cs_xor_bytes(out + i * CS_BLOCK, out + i * CS_BLOCK, prev, CS_BLOCK);
        cs_xor_bytes(out + (i + 1) * CS_BLOCK, out + (i + 1) * CS_BLOCK, ct, (CS_LANES - 1) * CS_BLOCK);
        memcpy(prev, ct + (CS_LANES - 1) * CS_BLOCK, CS_BLOCK);
    }"""
_CBC_PADDED = """\
    if (i < n) {  /* the last n - i blocks: one padded run of the core */
        const size_t r = n - i;
        memcpy(ct, in + i * CS_BLOCK, r * CS_BLOCK);
        cs_decrypt_part(ks, ct, out + i * CS_BLOCK, r);
        cs_xor_bytes(out + i * CS_BLOCK, out + i * CS_BLOCK, prev, CS_BLOCK);
        cs_xor_bytes(out + (i + 1) * CS_BLOCK, out + (i + 1) * CS_BLOCK, ct, (r - 1) * CS_BLOCK);
    }"""
_CBC_SINGLE = """\
    for (; i < n; i++) {
        memcpy(ct, in + i * CS_BLOCK, CS_BLOCK);
        cs_decrypt_1(ks, ct, out + i * CS_BLOCK);
        cs_xor_bytes(out + i * CS_BLOCK, out + i * CS_BLOCK, prev, CS_BLOCK);
        memcpy(prev, ct, CS_BLOCK);
    }"""

_CTR_RUNS = """\
    for (; len - done >= sizeof stream; done += sizeof stream) {
        cs_ctr_fill(stream, ctr, CS_LANES);
        cs_encrypt_n(ks, stream, stream);
        cs_xor_bytes(out + done, in + done, stream, sizeof stream);
    }"""
_CTR_PADDED = """\
    if (done < len) {  /* the rest: its counter blocks in one padded run of the core */
        const size_t nb = (len - done + CS_BLOCK - 1) / CS_BLOCK;
        cs_ctr_fill(stream, ctr, nb);
        cs_encrypt_part(ks, stream, stream, nb);
        cs_xor_bytes(out + done, in + done, stream, len - done);
    }"""
_CTR_SINGLE = """\
    for (; done < len; done += CS_BLOCK) {
        size_t take = len - done < CS_BLOCK ? len - done : CS_BLOCK;
        cs_encrypt_1(ks, ctr, stream);
        cs_ctr_increment(ctr);
        cs_xor_bytes(out + done, in + done, stream, take);
    }"""


def walk(lanes: int, padded: bool) -> dict[str, str]:
    """The loop slots of modes.c: ``lanes`` blocks per run of the core (0: no runs, a scalar core),
    ``padded``: the tail as one zero-padded run (a bitsliced core has no one-block form)."""
    def pick(runs: str, tail_padded: str, tail_single: str) -> str:
        return "\n".join(([runs] if lanes else []) + [tail_padded if padded else tail_single])

    return {"ecb_encrypt": pick(_ECB_RUNS, _ECB_PADDED, _ECB_SINGLE).format(kind="encrypt"),
            "ecb_decrypt": pick(_ECB_RUNS, _ECB_PADDED, _ECB_SINGLE).format(kind="decrypt"),
            "cbc_decrypt": pick(_CBC_RUNS, _CBC_PADDED, _CBC_SINGLE),
            "ctr": pick(_CTR_RUNS, _CTR_PADDED, _CTR_SINGLE),
            "buffer": "CS_LANES * CS_BLOCK" if lanes else "CS_BLOCK"}
