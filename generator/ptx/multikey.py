"""The multi-key CTR kernel (round keys "rk-table"): one launch makes many requests' keystreams, each
with its own key and counter -- CTR_DRBG bulk output (cipherspec.drbg.plan_bulk, the C P_drbg_plan).

    host:   vs[r], lens[r]  ->  descriptors q[r] = {ctr = V_r + 1 (big-endian 32-bit limbs), nblocks, cta0,
            first}, cta_req[c] = the request CTA c works on; keys[r], q and cta_req in one copy (the
            multi-GPU context: read by the key-schedule launch from mapped page-locked memory instead)
    device: P_key_schedule_multi: thread r expands keys[r] into the round-key table rks[r][NRK] (the
            library's constant-time key schedule, keysched.py, compiled for the device too), the CTA's
            keys and tables staged in shared memory and stored coalesced (key_schedule_shape);
            CTA c -> request r = cta_req[c], blocks [(c - cta0) * ch, +ch) of it; the CTA stages
            rks[r] into shared memory (one barrier), then block j of r = E(rk_r, V_r + 1 + j) with full
            big-endian carry over the whole block, written at output block first_r + j.

    before: for r in requests: ctr_dev(rk_r, V_r + 1, lens[r])     (one launch per 64 KiB request)
    after:  P_ctr_multi_dev(keys, vs, lens, nreq, d_out)            (one launch for all of them)

Every request but the last must be a whole number of blocks (the outputs are concatenated); a request
is at most 2^31 blocks.  The C helpers below are plain C (``CS_HD`` marks them host+device), so CI
compiles them with the host compiler and checks the plan and the counters without a GPU.
"""

from __future__ import annotations

from cipherspec.ir import Module
from cipherspec.schedule import Schedule

from ..c.keysched import key_prep
from .abswitch import mk_timeline
from .placement import DEFAULT_SHARED, CudaSchedule, rk_index
from .prologue import table_fills

MAX_REQ_BLOCKS = 1 << 31
MAX_THREADS = 256
FUSE_MAX_OPS = 2048  # key_schedule_cost up to which the keystream CTAs derive their round keys (fused_key_schedule)
TIMELINE_CTAS = 8192  # the timeline build's CTAs kept per launch (a one-wave grid is ~1,000; CTAs per request more)
TIMELINE_WORDS = 9  # per CTA: %smid, 4 x %globaltimer, 4 x clock64 (kernel.cu.j2)
KEY_SCHEDULE_THREADS = 32  # threads per CTA of P_key_schedule_multi, and the most requests per CTA


def helpers_c(P: str, B: int) -> str:
    """The request descriptor, the counter, the CTA span and the host plan: plain C99."""
    MW = B // 4
    limbs = "\n".join(_plan_limbs(MW))
    return f"""\
typedef struct {{  /* one request of a multi-key launch */
    uint32_t ctr[{MW}];   /* its first counter V + 1 as big-endian 32-bit limbs (ctr[0] most significant) */
    uint32_t nblocks;   /* blocks it makes (< 2^31) */
    uint32_t cta0;      /* its first CTA */
    uint64_t first;     /* its first block's index in the output */
}} {P}_mreq;

/* a big-endian limb <-> the little-endian memory word holding the same 4 bytes */
CS_HD static inline uint32_t {P}_mk_bswap(uint32_t w)
{{
    return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
}}

/* memory words m[] of counter ctr + j (full big-endian carry over the whole block, wrapping) */
CS_HD static inline void {P}_mk_counter(const uint32_t *ctr, uint32_t j, uint32_t *m)
{{
    uint32_t carry = j;
    for (int k = {MW - 1}; k >= 0; --k) {{
        const uint32_t t = ctr[k] + carry;
        carry = t < carry;
        m[k] = {P}_mk_bswap(t);
    }}
}}

/* the blocks [lo, hi) of request q that CTA `cta` makes, `ch` blocks per CTA */
CS_HD static inline void {P}_mk_span(const {P}_mreq *q, uint32_t cta, uint32_t ch, uint32_t *lo, uint32_t *hi)
{{
    const uint64_t a = (uint64_t)(cta - q->cta0) * ch, b = a + ch;
    *lo = (uint32_t)a;
    *hi = (uint32_t)(b < q->nblocks ? b : q->nblocks);
}}

/* whole waves (the kernel's flat form): the blocks [lo, hi) of request q that CTA `cta` makes when every CTA makes
 * `ch` consecutive blocks of the call's output, whatever request they belong to; 1 when the CTA's share goes on
 * into the next request (a CTA may start mid-request and cross into the following ones) */
CS_HD static inline int {P}_mk_flat_span(const {P}_mreq *q, uint32_t cta, uint32_t ch, uint32_t *lo, uint32_t *hi)
{{
    const uint64_t g0 = (uint64_t)cta * ch, g1 = g0 + ch, end = q->first + q->nblocks;
    *lo = g0 > q->first ? (uint32_t)(g0 - q->first) : 0u;
    *hi = g1 < end ? (uint32_t)(g1 - q->first) : q->nblocks;
    return g1 > end;
}}

/* whole waves over equal requests (all but the last as long: nb blocks; `blocks` in all): request r's descriptor
 * from its V as staged (v: its {MW} memory words, the bytes big-endian), no host plan.  V + 1 with full carry:
 *   before: host P_mk_plan, ~3 ns a request (2,048 requests: 6.4 us on the dev VM); the CTA reads the descriptor
 *   after:  host memcpy of the V's (~0.4 ns a request); the CTA reads V and works out the descriptor here */
CS_HD static inline {P}_mreq {P}_mk_req_v(const uint32_t *v, uint32_t r, uint32_t nb, uint32_t last, uint64_t blocks)
{{
    {P}_mreq q;
    uint32_t carry = 1u;
    for (int k = {MW - 1}; k >= 0; --k) {{
        const uint32_t t = {P}_mk_bswap(v[k]) + carry;
        carry = t < carry;
        q.ctr[k] = t;
    }}
    q.first = (uint64_t)r * nb;
    q.nblocks = r < last ? nb : (uint32_t)(blocks - q.first);
    q.cta0 = 0u;
    return q;
}}

/* whole waves: cta_req[c] = the request holding CTA c's first block c * ch (requests without blocks skipped), from
 * the plan's descriptors q (one merge pass: nreq + nctas steps) -- for mixed lengths; equal ones divide instead */
static void {P}_mk_flat_map(const {P}_mreq *q, uint64_t nreq, uint32_t ch, uint64_t nctas, uint32_t *cta_req)
{{
    uint64_t c = 0;
    for (uint64_t r = 0; r < nreq && c < nctas; ++r)
        for (const uint64_t end = q[r].first + q[r].nblocks; c < nctas && c * ch < end; ++c) cta_req[c] = (uint32_t)r;
}}

/* CTAs a plan needs at `ch` blocks per CTA; 0 when a length is bad (not whole blocks before the last, too long) */
static uint64_t {P}_mk_ctas(const uint64_t *lens, uint64_t nreq, uint32_t ch)
{{
    uint64_t n = 0, len = ~0ull, ctas = 0;  /* the last length seen and its CTAs: no division per equal request */
    for (uint64_t r = 0; r < nreq; ++r) {{
        if (lens[r] != len) {{
            const uint64_t nb = (lens[r] + {B - 1}) / {B};
            if ((r + 1 < nreq && lens[r] % {B}) || nb >= {MAX_REQ_BLOCKS}ull) return 0;
            len = lens[r];
            ctas = (nb + ch - 1) / ch;
        }}
        n += ctas;
    }}
    return n;
}}

/* descriptors and the CTA -> request map of a plan (q: nreq entries, cta_req: {P}_mk_ctas entries).  V + 1 is
 * made in scalar limbs (registers), not in a byte array re-read as words (a store-forwarding stall per request):
 *   before: memcpy(c, v); ++c[15] (carry by bytes); q->ctr[k] = c[4k] << 24 | ...       ~8 ns a request
 *   after:  w3 = be32(v + 12) + 1; c = w3 == 0; w2 = be32(v + 8) + c; ...; q->ctr[k] = wk  ~3 ns */
static void {P}_mk_plan(const uint8_t *vs, const uint64_t *lens, uint64_t nreq, uint32_t ch, {P}_mreq *q,
                        uint32_t *cta_req)
{{
    uint64_t first = 0, cta = 0, len = ~0ull;
    uint32_t ctas = 0, nb = 0;  /* blocks and CTAs of a request of length len */
    for (uint64_t r = 0; r < nreq; ++r, ++q, vs += {B}) {{
{limbs}
        if (lens[r] != len) {{
            len = lens[r];
            nb = (uint32_t)((len + {B - 1}) / {B});
            ctas = (nb + ch - 1) / ch;
        }}
        q->nblocks = nb;
        q->cta0 = (uint32_t)cta;
        q->first = first;
        if (!cta_req) {{  /* no map: the kernel maps CTAs to requests by division (all requests but the last equal) */
            cta += ctas;
        }} else {{
            for (uint32_t k = 0; k < ctas; ++k) cta_req[cta++] = (uint32_t)r;
        }}
        first += nb;
    }}
}}
"""


def _plan_limbs(MW: int) -> list[str]:
    """V + 1 (big-endian over the block, wrapping) into q->ctr[] as scalar limbs, least significant first."""

    def be32(k: int) -> str:
        return " | ".join(
            f"((uint32_t)vs[{4 * k + b}] << {24 - 8 * b})" if b < 3 else f"vs[{4 * k + 3}]" for b in range(4)
        )

    lines = [f"        const uint32_t w{MW - 1} = ({be32(MW - 1)}) + 1u;"]
    for k in range(MW - 2, -1, -1):
        lines.append(f"        {'uint32_t c = ' if k == MW - 2 else 'c &= '}w{k + 1} == 0u;")
        lines.append(f"        const uint32_t w{k} = ({be32(k)}) + c;")
    return lines + [f"        q->ctr[{k}] = w{k};" for k in range(MW)]


def _v_load(B: int, dst: str, idx: str) -> str:
    """Request ``idx``'s V (flat form over equal requests: the plan holds the V's) into the words ``dst``[], one
    vector load where the block is 8 or 16 bytes (the staged V's are 16-byte aligned), else word by word."""
    MW = B // 4
    if MW in (2, 4):
        vec, parts = ("uint4", "xyzw") if MW == 4 else ("uint2", "xy")
        sets = " ".join(f"{dst}[{k}] = t.{c};" for k, c in enumerate(parts))
        return f"{{ const {vec} t = ((const {vec} *)reqs)[{idx}]; {sets} }}"
    return f"for (int k = 0; k < {MW}; ++k) {dst}[k] = ((const uint32_t *)reqs)[(uint64_t)({idx}) * {MW} + k];"


REQUEST_BYTES = 1 << 16  # a CTR_DRBG request's most bytes (SP 800-90A: 2^19 bits), the multi-key kernel's main use


def threads(sched: CudaSchedule, request_slots: int = 0) -> int:
    """Threads per CTA of the multi-key kernel: the schedule's, at most 256 (it reads round keys from shared
    memory, which nvcc may keep in registers: at 1024 threads the 64-register cap would spill), and at most
    ``request_slots`` where the kernel keeps a CTA per request: a thread per slot of one largest request
    (``request_slots(B, group)``), so that no thread idles on every such request (the t256 CTR default halved
    AES-128's 1 GiB DRBG bulk on the H200, 277 -> 173 GB/s: 4,096-block requests on 8,192-block CTAs).

        bs_rk-const_sync-auto_t256, a lane layout's multi-key kernel, 16-byte blocks: 256 -> 128 (65,536 / 16 / 32)
    """
    cap = min(MAX_THREADS, request_slots) if request_slots else MAX_THREADS
    return min(sched.threads, cap)


def request_slots(block_bytes: int, group: int) -> int:
    """Threads one largest CTR_DRBG request fills at ``group`` blocks a thread (at least a warp)."""
    return max(32, REQUEST_BYTES // block_bytes // group)


def key_schedule_shape(nrk: int, kb: int, budget: int = DEFAULT_SHARED) -> tuple[int, int]:
    """The key-schedule launch's requests per CTA (of KEY_SCHEDULE_THREADS threads: all of them load, copy and
    clear; one per request runs its schedule) and the shared-memory words per request (0: no staging).

    The CTA reads its requests' keys (``kb`` bytes each, contiguous) with coalesced loads into shared memory;
    each thread expands its key there (``stride`` words apart, odd: no bank conflicts); then the CTA copies
    its requests' tables, contiguous in the round-key table, with coalesced stores -- instead of every thread
    storing its ``nrk`` words ``4 * nrk`` bytes apart from its neighbours' (one 32-byte sector per word, all
    from the few SMs the grid covers) and reading its key a byte at a time (from mapped host memory: PCIe):

        key_schedule_shape(144, 16)   -> (32, 145)   LEA-128: 32 x (145 words + a key) = 18.6 KiB per CTA
        key_schedule_shape(2736, 16)  -> (4, 2737)   bitsliced AES-128 (10.7 KiB of round keys per key)
        key_schedule_shape(20000, 16) -> (32, 0)     a table over the budget: each thread stores its own words
    """
    stride = nrk | 1
    t = KEY_SCHEDULE_THREADS
    while t > 1 and key_schedule_smem(t, stride, kb) > budget:
        t //= 2
    return (t, stride) if key_schedule_smem(t, stride, kb) <= budget else (KEY_SCHEDULE_THREADS, 0)


def key_schedule_smem(keys: int, stride: int, kb: int) -> int:
    """Dynamic shared bytes of the key-schedule launch: ``keys`` staged tables, then the keys (whole words)."""
    return 4 * keys * stride + 4 * ((keys * kb + 3) // 4) if stride else 0


def key_schedule_cost(module: Module) -> int:
    """The key schedule's work as one device thread runs it: its IR ops (the scalar C key schedule's, keysched.py),
    a table lookup counted as its table's entries (constant time: a Boolean circuit over the table, not one load).

        LEA-128 292, HIGHT 271, CHAM-128/128 28;  AES-128 236 ops + 40 lookups x 256 = 10,476;  ARIA-128 13,845
    """
    prep = key_prep(module, Schedule(module.cipher, "c", "scalar", (), None))
    return sum(
        len(prep.tables[op.imm[0]].values) if op.code == "lut" else 1 for op in prep.functions["key_schedule"].ops
    )


def fused_key_schedule(module: Module, ks_entry: str | None) -> bool:
    """Whether the keystream kernel's CTAs derive their request's round keys themselves (one launch a call, no
    round-key table): where the caller has the device key-schedule entry (no derived words: the round keys are
    the schedule's words) and the schedule costs at most FUSE_MAX_OPS (every CTA of the grid pays it once, on one
    thread, against a separate launch whose latency no GPU count shortens)."""
    return ks_entry is not None and key_schedule_cost(module) <= FUSE_MAX_OPS


def kernel_parts(
    module: Module,
    sched: CudaSchedule,
    P: str,
    nrk: int | None = None,
    group: int = 1,
    ks_entry: str | None = None,
    per_request: bool = False,
) -> dict:
    """What the template's multi-key kernel needs: setup (table fills), the request pick, the per-request stage
    (its round keys into shared memory, one barrier), the core's arguments, shared bytes, the partial-block
    store.  Lane layouts: ``nrk`` round-key words per request (derived ones included), ``group`` blocks per slot.
    ``per_request``: the kernel keeps a CTA per request (lanes.cu.j2's), so its CTA is at most one largest request
    wide (``threads``).  ``ks_entry``: the device key schedule (key bytes -> the round-key words); where fused_key_schedule holds, a
    second kernel, P_ctr_multi_ks, whose CTA derives its request's round keys (stage ``ks_stage``):

        before: key_schedule_multi<<<>>>(keys -> rks table); ctr_multi<<<>>>(rks[r] -> shared); memset(rks)
        after:  ctr_multi_ks<<<>>>(thread 0: ks_entry(keys[r]) -> shared); shared round keys zeroed at the end

    Both kernels have a flat form (argument ``flat``, whole waves): one wave of CTAs, each making ``ch``
    consecutive blocks of the call whatever requests they belong to, staging each request's keys in turn; over
    equal requests (``flat`` 2) the plan is the V's as they are, each CTA working out its descriptors (mk_req_v):

        before: CTA c -> request cta_req[c], blocks [(c - cta0) * ch, +ch) of it   (6.2 waves: the last 0.2 costs 1)
        after:  CTA c -> blocks [c * ch, (c + 1) * ch) of the call, request by request (one wave, equal shares)
    """
    B = module.block.nbytes
    T = threads(sched, request_slots(B, group) if per_request else 0)
    fused = nrk is None and fused_key_schedule(module, ks_entry)
    nrk = len(rk_index(module)) if nrk is None else nrk
    word = "m[s][{k}]" if group == 1 else f"m[s][b * {B // 4} + {{k}}]"  # a lane layout stores block b of m[s]
    fills = table_fills(module, sched.copies, T)
    rk_off = fills.words
    setup = "\n".join(["    extern __shared__ uint32_t cs_smem[];"] + fills.lines)
    # the CTA's (first) request: by division where every request but the last (index `last`) is as long (cpr: its
    # CTAs, or in the flat form its blocks), else from the map
    pick = (
        "    const uint64_t u = flat ? (uint64_t)blockIdx.x * ch : blockIdx.x;  // flat: the CTA's first block\n"
        "    uint32_t r = cpr ? (u / cpr < last ? (uint32_t)(u / cpr) : last) : cta_req[blockIdx.x];"
    )
    # (at most one word a thread: not unrolled, or nvcc keeps registers for it across the request loop -- LEA-128's
    # table-reading kernel 60 registers against 45, 4 CTAs an SM against 5; more words: unrolled, the loads in flight)
    stage = "\n".join(
        (["#pragma unroll 1"] if nrk <= T else [])
        + [
            f"        for (uint32_t i = threadIdx.x; i < {nrk}u; i += {T}u) cs_smem[{rk_off} + i] = rks[(uint64_t)r * {nrk} + i];",
            "        __syncthreads();  // tables and this request's round keys are in place before any thread reads",
        ]
    )
    partial = [
        f"if ({b}u < rem) out8[i * {B} + {b}] = (uint8_t)({word.format(k=b // 4)} >> {8 * (b % 4)});" for b in range(B)
    ]
    MW = B // 4
    smem = 4 * (rk_off + nrk + MW)  # (+ MW: the prefetched V, flat 2)
    kb = module.key.nbytes
    kw = (kb + 3) // 4  # the key's words, after the round keys in shared memory (fused)
    key = f"cs_smem + {rk_off + nrk}"
    # (whole words: the key may come from the words fetched into pv: the prefetch, CIPHERSPEC_MG_PREFETCH=1)
    load = (
        f"        if (threadIdx.x < {kw}u) ({key})[threadIdx.x] = pf ? pv[{MW} + threadIdx.x] : keys[(uint64_t)r * {kw} + threadIdx.x];"
        if kb % 4 == 0
        else f"        for (uint32_t i = threadIdx.x; i < {kb}u; i += {T}u) ((uint8_t *)({key}))[i] = "
        f"((const uint8_t *)keys)[(uint64_t)r * {kb} + i];"
    )

    def fetch(idx: str, key: bool) -> str:  # request idx's V (threads 0 .. MW-1), key words (the next kw) into pv
        v = f"if (threadIdx.x < {MW}u) cs_mk_fetch4(pv + threadIdx.x, (const uint32_t *)reqs + (uint64_t)({idx}) * {MW}u + threadIdx.x);"
        if not key or kb % 4:
            return v
        k = f"if (threadIdx.x - {MW}u < {kw}u) cs_mk_fetch4(pv + threadIdx.x, keys + (uint64_t)({idx}) * {kw} + threadIdx.x - {MW}u);"
        return f"{v}\n            {k}"

    def fetch_pair(idx: str) -> str:
        # the pair kernel (CIPHERSPEC_MG_PAIR=1): the plan holds V_r and K_r side by side, so one fetch instruction
        # (one PCIe read) brings both: the CTAs' first fetch is ~650 reads a GPU at once instead of ~1,300
        return f"if (threadIdx.x < {MW + kw}u) cs_mk_fetch4(pv + threadIdx.x, (const uint32_t *)reqs + (uint64_t)({idx}) * {MW + kw}u + threadIdx.x);"

    ks_stage = "\n".join(
        [
            load,
            "        __syncthreads();",
            f"        if (threadIdx.x == 0) {ks_entry}((const uint8_t *)({key}), cs_smem + {rk_off});",
            "        __syncthreads();  // tables and this request's round keys are in place before any thread reads",
        ]
    )
    ks_epi = [
        "    __syncthreads();  // the round keys and the keys zeroed: nothing of them stays for a later kernel to read",
        f"    for (uint32_t i = threadIdx.x; i < {nrk + kw + MW + kw}u; i += {T}u) cs_smem[{rk_off} + i] = 0;",
    ]
    ks_keys, ks_stride = key_schedule_shape(nrk, kb)
    return {
        "fused": fused,
        "ks_stage": ks_stage if fused else "",
        "ks_epilogue": "\n".join(ks_epi) if fused else "",
        "ks_smem_fused": 4 * (rk_off + nrk + kw + MW + kw),  # round keys, the key, the prefetched V and key
        "ks_opt_in": 4 * (rk_off + nrk + kw + MW + kw) > DEFAULT_SHARED,
        "setup": setup,
        "pick": pick,
        "stage": stage,
        # whole waves (the flat form) where the kernel has it: not lane layouts (lanes.cu.j2 keeps a CTA per request)
        "flat": group == 1,
        "vload": _v_load(B, "vw", "r"),
        # the prefetch's fetches (flat 2): the CTA's first request's V (and, fused, key words), then the next one's
        "fetch_first": fetch("r", False),
        "fetch_next": fetch("r + 1u", False),
        "ks_fetch_first": fetch("r", True),
        "ks_fetch_next": fetch("r + 1u", True),
        "pair_fetch_first": fetch_pair("r"),
        "pair_fetch_next": fetch_pair("r + 1u"),
        "key_fetched": fused and kb % 4 == 0,  # whether the key words come fetched too
        "nx_off": rk_off + nrk,  # the prefetched V's words in shared memory, after the round keys
        "ks_nx_off": rk_off + nrk + kw,  # (fused: after the key; the V's words, then the key's)
        "unit": 32 * group,  # blocks a warp makes per loop trip and ILP slot: the flat form's shares are multiples
        "args": ", ".join([f"cs_smem + {rk_off}"] + fills.args),
        "smem": smem,
        "smem_opt_in": smem > DEFAULT_SHARED,
        "partial": "\n".join(partial),
        "helpers": helpers_c(P, B),
        "max_blocks": MAX_REQ_BLOCKS,
        "T": T,
        "tile": T * sched.ilp * group,  # blocks one CTA makes per loop trip
        "ks_threads": KEY_SCHEDULE_THREADS,  # threads per CTA of the key-schedule launch (plan words it moves)
        "ks_keys": ks_keys,  # requests per CTA (one thread each)
        "ks_stride": ks_stride,
        "ks_smem": key_schedule_smem(ks_keys, ks_stride, module.key.nbytes),
        # the bench-only timeline build (abswitch.mk_timeline): CTAs kept, words per CTA (see kernel.cu.j2)
        "timeline": mk_timeline() and group == 1 and not per_request,  # (kernel.cu.j2's kernels only)
        "tl_ctas": TIMELINE_CTAS,
        "tl_words": TIMELINE_WORDS,
    }
