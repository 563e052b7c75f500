"""Every GPU of the host: what the multi-GPU and host-streaming API (templates/multigpu.cu.j2) needs.

    ctx["mg"] = hostapi.context(module, P)      # one line in source.py; the template reads mg.*

Work over N devices is split exactly, so the output is the single-device output byte for byte:

    CTR/ECB, nbytes over N GPUs:  part d = bytes [first[d], first[d+1]), boundaries on `grain` bytes
                                  (a whole number of blocks); part d's counter = IV + first[d] / B
    CTR_DRBG bulk, requests:      part d = requests [first[d], first[d+1]), balanced by output bytes;
                                  one multi-key launch per device (its requests' keys and counters)

    before: P_ctr_dev(rk, iv, d_in, d_out, n, stream)               one GPU
    after:  P_mg_ctr_dev(mg, rk, iv, d_in[], d_out[], n, fl, wait)   part d on GPU devs[d], its own stream

The split helpers are plain C (``split_c``), so CI compiles them with the host compiler and checks them
against their Python mirrors (runtime/cuda_multi.py) without a GPU.  Host buffers stream in pieces over
``STREAMS`` CUDA streams per device (H2D -> kernel -> D2H on each; the streams overlap each other), the
caller's memory used as it is (page-locked), registered for the call, or copied through pinned staging
buffers (runtime/cuda_multi.py holds the constants and names the modes: one list for the library and
the loader).
"""

from __future__ import annotations

from cipherspec.ir import Module
from runtime.cuda_multi import (
    CHUNK,
    ERRORS,
    MAX_DEVICES,
    MAX_STREAMS,
    MEMORY,
    MIN_PART,
    MIN_PIECE,
    PAGEABLE_DEFAULT,
    SPIN_US,
    SPLIT_MIN,
    STREAMS,
    grain,
)


def split_c(P: str) -> str:
    """The split arithmetic, plain C99 (static; no CUDA): parts of a byte range and of a request list."""
    return f"""\
/* items [0, n) in `parts` ranges: range d = [first[d], first[d + 1]); boundaries on multiples of `grain`
 * (the last is n), balanced in grains: the first (grains % parts) ranges have one grain more */
static void {P}_mg_split(uint64_t n, uint64_t grain, int parts, uint64_t *first)
{{
    const uint64_t g = (n + grain - 1) / grain, q = g / (uint64_t)parts, r = g % (uint64_t)parts;
    for (int d = 0; d <= parts; ++d) {{
        const uint64_t k = q * (uint64_t)d + ((uint64_t)d < r ? (uint64_t)d : r);
        first[d] = k * grain < n ? k * grain : n;
    }}
}}

/* how many of `ndev` devices a call over n bytes uses: each gets at least min_part bytes; at least one */
static int {P}_mg_used(uint64_t n, int ndev, uint64_t min_part)
{{
    const uint64_t k = min_part ? n / min_part : (uint64_t)ndev;
    return k < 1 ? 1 : (k < (uint64_t)ndev ? (int)k : ndev);
}}

/* bytes per piece of a part of n bytes over `streams` streams: n / streams rounded up to the grain, kept
 * within [min_piece, chunk] (both multiples of the grain) */
static uint64_t {P}_mg_piece(uint64_t n, int streams, uint64_t grain, uint64_t min_piece, uint64_t chunk)
{{
    uint64_t p = (n + (uint64_t)streams - 1) / (uint64_t)streams;
    p = (p + grain - 1) / grain * grain;
    return p < min_piece ? min_piece : (p > chunk ? chunk : p);
}}

/* requests [0, nreq) in `parts` ranges balanced by output bytes: range d = [first[d], first[d + 1]) starts
 * at the first request whose output starts at or after ceil(total * d / parts) (empty with few requests);
 * the boundary byte is computed when d advances, not per request (a 64-bit division per request was ~10 ns):
 *   before: while (acc >= q * d + (rem * d + parts - 1) / parts) ...     (for every request)
 *   after:  while (acc >= at) {{ first[d++] = r; at = q * d + ...; }}     (once per part) */
/* (total: the lengths' sum where the caller has it -- P_mg_check_lens made it -- so no pass sums them again; one
 * part: no pass at all) */
static void {P}_mg_split_requests_total(const uint64_t *lens, uint64_t nreq, int parts, uint64_t total, uint64_t *first)
{{
    uint64_t acc = 0;
    const uint64_t q = total / (uint64_t)parts, rem = total % (uint64_t)parts, P = (uint64_t)parts;
    int d = 1;
    uint64_t at = q + (rem + P - 1) / P;  /* where part d starts, in output bytes */
    first[0] = 0;
    for (uint64_t r = 0; r < nreq && d < parts; ++r) {{
        while (d < parts && acc >= at) {{
            first[d++] = r;
            at = q * (uint64_t)d + (rem * (uint64_t)d + P - 1) / P;
        }}
        acc += lens[r];
    }}
    while (d <= parts) first[d++] = nreq;
}}

static void {P}_mg_split_requests(const uint64_t *lens, uint64_t nreq, int parts, uint64_t *first)
{{
    uint64_t total = 0;
    for (uint64_t r = 0; r < nreq; ++r) total += lens[r];
    {P}_mg_split_requests_total(lens, nreq, parts, total, first);
}}

/* the end of the group of requests [r0, end) from r0 (< r1) whose outputs fit in cap bytes; at least one */
static uint64_t {P}_mg_group_end(const uint64_t *lens, uint64_t r0, uint64_t r1, uint64_t cap)
{{
    uint64_t r = r0 + 1, acc = lens[r0];
    while (r < r1 && acc + lens[r] <= cap) acc += lens[r++];
    return r;
}}
"""


def context(module: Module, P: str) -> dict:
    """The template's ``mg``: sizes (runtime/cuda_multi.py's constants), memory modes, error codes, the split."""
    g = grain(module.block.nbytes)

    def up(n: int) -> int:
        return -(-n // g) * g

    return {
        "grain": g,
        "streams": STREAMS,
        "max_streams": MAX_STREAMS,
        "max_devices": MAX_DEVICES,
        "chunk": up(CHUNK),
        "min_piece": up(MIN_PIECE),
        "min_part": up(MIN_PART),
        "chunk_mib": up(CHUNK) >> 20,
        "min_part_mib": up(MIN_PART) >> 20,
        "split_min": SPLIT_MIN,
        "split_min_mib": SPLIT_MIN >> 20,
        "spin_us": SPIN_US,
        "memory": [(f"CS_MEM_{name.upper()}", value) for name, value in MEMORY.items()],
        "pageable_default": f"CS_MEM_{PAGEABLE_DEFAULT.upper()}",
        "errors": [(name, value, text) for name, value, text in ERRORS],
        "strerror": "\n".join(f'    case {name}: return "{text}";' for name, _, text in ERRORS),
        "split": split_c(P),
    }
