"""Cipher cores: one ``__device__ __forceinline__`` function per IR function and flavour.

    core(name="cs_enc_ptx", fn=encrypt, ...) ->
        __device__ __forceinline__ void cs_enc_ptx(const uint32_t (&x)[4], uint32_t (&y)[4], const lea128_rk &rk)
        {
            uint32_t v5; asm("xor.b32 %0, %1, %2;" : "=r"(v5) : "r"(x[0]), "r"(rk.w[0]));   // %5 xor.u32 @ lea.cs:29:...
            ...
            y[0] = v431; ...
        }

The state arrives as ``x`` (block words; in the CTR main part also the hoisted values ``h``) and
leaves as ``y``; round keys and tables are read where the placement puts them (placement.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cipherspec.errors import UsageError
from cipherspec.ir import Function, Module
from cipherspec.passes.hoist_uniform import Hoisted

from . import asmblock, balance, isel
from .placement import FLAVOURS, CudaSchedule, rk_index
from .roundloop import RoundLoop


@dataclass(frozen=True)
class Access:
    """How a core reads round keys and tables under one schedule (NO_ACCESS: neither)."""

    rk_param: str  # the core's round-key parameter declaration
    rk_expr: str  # format string with {i}
    tab_params: tuple[str, ...]
    tab_expr: dict[str, str]  # table -> format string with {i}


NO_ACCESS = Access("", "", (), {})


@dataclass(frozen=True)
class Bound:
    """Inputs a core reads from one more parameter, as memory operands (no register): the bitsliced CTR core's
    host-computed segment planes (bs_ctr.py) -- param "const P_seg &hs", exprs {"H[0]": "hs.h[0]", ...}."""

    param: str  # the parameter's declaration
    arg: str  # its name, as a caller passes it on
    exprs: dict[str, str]  # input name -> expression


def access(module: Module, sched: CudaSchedule, rk_type: str, reload_rk: bool = False) -> Access:
    """``reload_rk`` (rk-shared): read every round-key word from shared memory at its use (volatile), so
    that nvcc does not hoist hundreds of them into registers (the bitsliced multi-key kernel)."""
    nrk = len(rk_index(module))
    if sched.rk == "const":
        rk_param, rk_expr = f"const {rk_type} &rk", "rk.w[{i}]"
    elif sched.rk == "shared":
        rk_param, rk_expr = f"const {'volatile ' if reload_rk else ''}uint32_t *__restrict__ rk", "rk[{i}]"
    else:
        rk_param, rk_expr = f"const uint32_t (&rk)[{nrk}]", "rk[{i}]"
    params, exprs = [], {}
    n = sched.copies
    for t in module.tables:
        if n:
            params.append(f"const uint32_t *__restrict__ s_{t}")
            exprs[t] = f"s_{t}[{{i}}]" if n == 1 else f"s_{t}[({{i}}) << {n.bit_length() - 1}]"
        elif sched.tab == "const":
            exprs[t] = f"c_{t}[{{i}}]"
        else:
            exprs[t] = f"__ldg(&g_{t}[{{i}}])"
    return Access(rk_param, rk_expr, tuple(params), exprs)


def core(
    name: str,
    fn: Function,
    module: Module,
    acc: Access,
    flavour: str,
    x_names: list[str],
    h_names: list[str] | None = None,
    balanced: bool = False,
    rk_idx: dict[str, int | str] | None = None,
    offset: str | None = None,
    pressure: bool = False,
    bound: Bound | None = None,
    fuse: bool = True,
) -> str:
    """The device function; ``x_names[j]`` is the input bound to x[j], ``h_names[k]`` to h[k];
    ``balanced``: move rotations to the FMA pipe where that evens the pipes (balance.py);
    ``rk_idx``: round-key input name -> word in the struct (default: the key schedule's words), or an
    index expression over ``offset``, a parameter the function then takes (a round loop's key words);
    ``pressure``: emit in register-pressure order (generator/mir/schedule.py; the bitsliced cores, ~128 live planes);
    ``bound``: inputs read from one more parameter (after the round keys);
    ``fuse``: print the inline-PTX statements' straight-line runs as asm blocks (asmblock.py: far less for
    nvcc's optimizer to walk; with ``bound`` only as asmblock.wide("main") says, below); off for the lane transforms
    in, whose callers pass one value to many inputs (the CTR counter's shared words), so that nvcc merges and drops
    their statements, which a block would keep."""
    idx: dict[str, int | str] = dict(rk_index(module)) if rk_idx is None else rk_idx
    imad: frozenset[int] = frozenset()
    if balanced:
        fn, imad = balance.balance(fn)
    inputs: dict[str, isel.Val] = {}
    for j, n in enumerate(x_names):
        inputs[n] = isel.Val(f"x[{j}]", True)
    for k, n in enumerate(h_names or []):
        inputs[n] = isel.Val(f"h[{k}]", True)
    for n, _, _ in fn.inputs():
        if n in idx:
            inputs[n] = isel.Val(acc.rk_expr.format(i=idx[n]), True, register=False)
        elif bound is not None and n in bound.exprs:
            inputs[n] = isel.Val(bound.exprs[n], True, register=False)
    env = isel.Env(inputs, lambda t, i: acc.tab_expr[t].format(i=i), imad=imad, pressure=pressure)
    body = isel.select(fn, env, flavour)
    params = [f"const uint32_t (&x)[{max(len(x_names), 1)}]"]
    if h_names is not None:
        params.append(f"const uint32_t (&h)[{max(len(h_names), 1)}]")
    params.append(f"uint32_t (&y)[{max(len(body.outputs), 1)}]")
    if acc.rk_param:  # (the lane transforms read no key)
        params.append(acc.rk_param)
    if bound is not None:
        params.append(bound.param)
    if offset:
        params.append(f"const int {offset}")
    params += list(acc.tab_params)
    lines = [f"__device__ __forceinline__ void {name}({', '.join(params)})", "{"]
    # (a core with bound inputs -- the bitsliced CTR core -- prints blocks only with CIPHERSPEC_PTX_CORE's "main"
    # part, off by default: fused, nvcc places the CTR kernels' loop values otherwise, AES-128's two CTR kernels 2
    # and 12 SASS instructions a trip longer)
    fuse = fuse and flavour == "ptx" and (bound is None or asmblock.wide("main"))
    printed = asmblock.fuse(body.lines, [e for _, e in body.outputs]) if fuse else body.lines
    lines += ["    " + ln for ln in printed]
    lines += [f"    y[{k}] = {expr};  // out {n}" for k, (n, expr) in enumerate(body.outputs)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def rt_name(name: str) -> str:
    """The run-time-count wrapper of the looped core ``name`` (looped_core's ``rows``): cs_enc_ptx -> cs_enc_rt_ptx."""
    head, _, flavour = name.rpartition("_")
    return f"{head}_rt_{flavour}"


def looped_core(
    name: str,
    loop: RoundLoop,
    module: Module,
    acc: Access,
    flavour: str,
    x_names: list[str],
    rk_idx: dict[str, int],
    bound: Bound | None = None,
    sync: list[str] | None = None,
    fuse: bool = True,
    rows: int = 0,
) -> tuple[str, str]:
    """A core whose repeated rounds run in a loop (roundloop.py): <name>_pre, <name>_body (one iteration;
    its key words at one stride per iteration from the first's) and <name>_post, and <name> calling them.
    ``sync``: lines run at the top of each iteration where the caller says <name><true> (lockstep.py); ``fuse``:
    core's, for the three parts; ``rows`` > 0: the struct's word 0 holds the rows of round keys (keyorder.py), and a
    second wrapper, rt_name(<name>), runs the same parts rk[0] - (rows - count) trips, read at run time (its code
    holds no round count: one text for every member of a spec template -- the GCM kernels' cores; the others keep
    the literal count, which measured faster for them).  Returns the core's text and the part of it a family's GCM
    object holds (the parts and the run-time-count wrapper: no literal count, source.py's gcm_part).

        __device__ __forceinline__ void cs_enc_ptx(const uint32_t (&x)[128], uint32_t (&y)[128], const P_rk &rk)
        {
            uint32_t s[128];  cs_enc_ptx_pre(x, s, rk);
            #pragma unroll 1
            for (int i = 0; i < 9; ++i) { uint32_t t[128]; cs_enc_ptx_body(s, t, rk, i * 128); s[..] = t[..]; }
            cs_enc_ptx_post(s, y, rk);
        }
    """
    found = loop.stride(rk_idx)
    if found is None:
        raise UsageError(f"{name}: the round loop's key words are not at one stride per iteration (internal)")
    first, step = found
    L, n = loop.carried, len(loop.pre.outputs)
    se = [nm for nm, _ in loop.pre.outputs]  # S[0..L), then E[..]
    body_idx: dict[str, int | str] = {f"K[{j}]": f"o + {w}" for j, w in enumerate(first)}
    parts = [
        core(
            f"{name}_pre",
            loop.pre,
            module,
            acc,
            flavour,
            x_names,
            rk_idx=dict(rk_idx),
            pressure=True,
            bound=bound,
            fuse=fuse,
        ),
        core(
            f"{name}_body",
            loop.body,
            module,
            acc,
            flavour,
            se,
            rk_idx=body_idx,
            offset="o",
            pressure=True,
            bound=bound,
            fuse=fuse,
        ),
        core(
            f"{name}_post",
            loop.post,
            module,
            acc,
            flavour,
            se,
            rk_idx=dict(rk_idx),
            pressure=True,
            bound=bound,
            fuse=fuse,
        ),
    ]
    rk_arg = ["rk"] * bool(acc.rk_param) + ([bound.arg] if bound is not None else [])
    tab_args = [p.rsplit(" ", 1)[-1] for p in acc.tab_params]
    args = ", ".join(rk_arg + tab_args)
    ny = max(len(loop.post.outputs), 1)
    params = [f"const uint32_t (&x)[{max(len(x_names), 1)}]", f"uint32_t (&y)[{ny}]"]
    params += [acc.rk_param] * bool(acc.rk_param) + ([bound.param] if bound is not None else []) + list(acc.tab_params)

    def wrapper(wname: str, run_rows: int) -> list[str]:  # the loop over the parts: a literal or a run-time count
        body_args = ", ".join(rk_arg + [f"i * {step} + z" if run_rows else f"i * {step}"] + tab_args)
        trips: int | str = loop.count
        if run_rows:
            spare = run_rows - loop.count  # (rows the loop does not run: those its first or last part reads)
            trips = f"(int){acc.rk_expr.format(i=0)}" + (f" - {spare}" if spare else "")
        return [
            *["template <bool SYNC = false>  // (true: the warps meet at each iteration, lockstep.py)"] * bool(sync),
            f"__device__ __forceinline__ void {wname}({', '.join(params)})",
            "{",
            f"    uint32_t s[{n}];  // the {L} carried values S, then {n - L} more that the last part reads (E)",
            f"    {name}_pre(x, s, {args});",
            *(
                [
                    f"    const int trips = {trips};  // (at least 1)",
                    "    int i = 0;",
                    f"    const int z = (int)({acc.rk_expr.format(i=1)} * threadIdx.x) << 1;  // 0 (head word 1): per thread, even",
                ]
                if run_rows
                else []
            ),
            "#pragma unroll 1",
            ("    do {" if run_rows else f"    for (int i = 0; i < {trips}; ++i) {{")
            + f"  // {loop.period} round(s) an iteration; round keys at {step:+d} words per iteration",
            *_sync_lines(sync),
            f"        uint32_t t[{L}];",
            f"        {name}_body(s, t, {body_args});",
            "#pragma unroll",
            f"        for (int p = 0; p < {L}; ++p) s[p] = t[p];",
            "    } while (++i < trips);" if run_rows else "    }",
            f"    {name}_post(s, y, {args});",
            "}",
        ]

    pieces = "".join(parts)
    literal = "\n".join(wrapper(name, 0)) + "\n"
    run_time = "\n".join(wrapper(rt_name(name), rows)) + "\n" if rows else ""
    return pieces + literal + run_time, pieces + run_time


def _sync_lines(sync: list[str] | None) -> list[str]:
    """The round loop's barrier, inside ``if (SYNC)`` (preprocessor lines kept at column 0)."""
    if not sync:
        return []
    return ["        if (SYNC) {", *(ln if ln.startswith("#") else f"            {ln}" for ln in sync), "        }"]


def kernel_cores(
    module: Module,
    sched: CudaSchedule,
    rk_type: str,
    split: Hoisted,
    xs_enc: list[str],
    xs_dec: list[str],
    flavours: tuple[str, ...] = FLAVOURS,
) -> list[str]:
    """Every core the kernels call, per flavour of ``flavours``: cs_enc, cs_dec, cs_menc (multi-key: round keys
    staged in shared memory) and, with CTR hoisting, cs_pre (uniform part, once per thread) and cs_main (per block)."""
    acc = access(module, sched, rk_type)
    acc_multi = access(module, replace(sched, rk="shared"), rk_type)
    enc, dec, bal = module.functions["encrypt"], module.functions["decrypt"], sched.bal
    out = []
    for f in flavours:
        out.append(core(f"cs_enc_{f}", enc, module, acc, f, xs_enc, balanced=bal))
        out.append(core(f"cs_dec_{f}", dec, module, acc, f, xs_dec, balanced=bal))
        out.append(core(f"cs_menc_{f}", enc, module, acc_multi, f, xs_enc, balanced=bal))
        if sched.hoist:
            out.append(core(f"cs_pre_{f}", split.pre, module, acc, f, xs_enc))
            out.append(
                core(
                    f"cs_main_{f}", split.main, module, acc, f, xs_enc, [n for n, _ in split.pre.outputs], balanced=bal
                )
            )
    return out
