"""CUDA schedules: where tables and round keys live, threads per block, blocks per thread, hoisting.

    CudaSchedule.parse("rk-shared_t512_tab-shared8", module)  -> CudaSchedule(rk="shared", tab="shared8", threads=512)
    sched.schedule(module).name                                -> "aes128_cuda_ctr_rk-shared_t512_tab-shared8"

Parameters (a name's tokens after cipher_cuda_ctr, any order when parsing):
    rk-const | rk-shared | rk-reg    round keys: kernel-parameter (constant) bank, shared memory, registers
    tab-const | tab-global | tab-shared | tab-sharedN   tables (ciphers with tables only); N copies, N a
                                     power of two <= 32, bank-aware (entry e of copy c at word e*N + c)
    tN                               threads per block (32..1024, a multiple of 32)
    ilpN                             blocks per thread per loop iteration (1..8; shown when > 1)
    nohoist                          CTR without uniform-value hoisting (shown when set)
    bal                              pipe balancing: some rotations as FMA-pipe multiplies (balance.py)
    fl-c | fl-ptx                    the flavour the host API runs by default: plain CUDA C or inline PTX
                                     (both are always built; shown when fl-c; the autotuner picks it)
    tt | tt4                         32-bit T-tables (cipherspec/passes/ttable.py): byte lookups feeding a
                                     GF(2^8)-linear column map become one 32-bit table + byte rotations
                                     (tt4: one table per column coefficient, no rotation)
    swar | bs                        a lane layout (lanes.py): four blocks per register, one per byte
                                     (byte-packed), or 32 blocks as bit planes (bitsliced: constant-time,
                                     no table read, so no tab- part); default: one block per thread
    unroll                           bs: straight-line cores (default: the repeated rounds run in a loop,
                                     roundloop.py, which ptxas compiles in seconds; shown when set)
    ctasN                            the ECB/CTR kernels' __launch_bounds__ minimum of N resident blocks per SM
                                     (ptxas caps registers at 64K / (N x threads)); default 1, shown when > 1
    sync-trip | sync-round | sync-pair | sync-auto   lane layouts: the CTR kernel's warps kept in step
                                     (lockstep.py) -- every thread runs its CTA's trips, each opened at a CTA
                                     barrier; round: also a CTA barrier at each round-loop iteration; pair: a
                                     named barrier there of the warps that share a scheduler (bs); auto: pair
                                     where the round-loop body is large, else none (the bitsliced default);
                                     default: none, shown when set
Every schedule runs a grid-stride loop over a grid of (SMs x resident blocks per SM).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from cipherspec.errors import UsageError
from cipherspec.ir import Module
from cipherspec.schedule import Schedule

from .isel import FLAVOURS  # inline PTX, plain CUDA C (index = the host API's flavour number)
from .lane_support import why_not

RK_PLACES = ("const", "shared", "reg")
LAYOUTS = ("scalar", "swar", "bs")
TAB_BASES = ("const", "global", "shared")
SYNCS = ("trip", "round", "pair", "auto")  # the CTR kernel's lockstep (lockstep.py; auto: by the code size)
SHARED_LIMIT = 227 * 1024  # bytes of shared memory one block may use on sm_90 (opt-in above 48 KB)
DEFAULT_SHARED = 48 * 1024  # bytes of dynamic shared memory a launch gets without cudaFuncSetAttribute
PARAM_LIMIT = 4096  # bytes of kernel parameters we allow (the classic limit, all archs)
LANES_PARAM_LIMIT = 32764  # lane layouts' derived key words: the limit since CUDA 12.1 on sm_70 and newer
REG_RK_LIMIT = 96  # round-key words we let a schedule keep in registers
TUNED = Path(__file__).with_name("tuned.json")


@dataclass(frozen=True)
class CudaSchedule:
    rk: str = "const"
    tab: str = "shared"
    threads: int = 256
    ilp: int = 1
    hoist: bool = True
    bal: bool = False  # move rotations to the FMA pipe where it evens ALU/FMA (balance.py)
    flavour: str = "ptx"  # the host API's default flavour: "ptx" (inline PTX) or "c" (plain CUDA C)
    layout: str = "scalar"  # "scalar" (one block per thread), "swar" or "bs" (lanes.py)
    ttable: int = 0  # 32-bit T-tables (scalar layout): 0 off, 1 one table + rotations, 4 tables without
    unroll: bool = False  # bs: keep the cores straight-line (default: the repeated rounds in a loop, roundloop.py)
    ctas: int = 1  # __launch_bounds__ minimum resident blocks per SM of the ECB/CTR kernels (a register cap)
    sync: str = ""  # lane layouts' CTR kernel: "" free-running warps, "trip" | "round" | "pair" (lockstep.py)

    @property
    def lanes(self) -> bool:
        return self.layout != "scalar"

    @property
    def copies(self) -> int:
        if self.layout == "bs":  # reads no table
            return 0
        if self.tab.startswith("shared"):
            return int(self.tab[6:] or 1)
        return 0

    def schedule(self, module: Module, rounds: int | None = None) -> Schedule:
        params: list[tuple[str, object]] = [("rk-", self.rk), ("t", self.threads)]
        if self.lanes:
            params.append((self.layout, ""))
        if self.ttable:
            params.append(("tt", "4" if self.ttable == 4 else ""))
        if module.tables and self.layout != "bs":
            params.append(("tab-", self.tab))
        if self.ilp != 1:
            params.append(("ilp", self.ilp))
        if not self.hoist and (not self.lanes or self.layout == "bs"):  # (bs: the host-computed CTR planes, bs_ctr.py)
            params.append(("no", "hoist"))
        if self.bal:
            params.append(("bal", ""))
        if self.unroll:
            params.append(("unroll", ""))
        if self.ctas != 1:
            params.append(("ctas", self.ctas))
        if self.sync:
            params.append(("sync-", self.sync))
        if self.flavour != "ptx":
            params.append(("fl-", self.flavour))
        return Schedule(module.cipher, "cuda", "ctr", tuple(params), rounds)

    def name(self, module: Module, rounds: int | None = None) -> str:
        return self.schedule(module, rounds).name

    @staticmethod
    def parse(text: str, module: Module, base: "CudaSchedule | None" = None, validate: bool = True) -> "CudaSchedule":
        """Parameters override ``base`` (default: the built-in default, not the tuned one, so that a
        schedule string names the same kernel whatever tuned.json says); ``validate``: check it against
        ``module`` (False: the caller checks it against the module prepared for its layout)."""
        s = base or table_base(module)
        if "_cuda_" in text:  # a full name: cipher[rN]_cuda_layout_params
            head, _, rest = text.partition("_cuda_")
            if head != module.cipher and not (
                head.startswith(f"{module.cipher}r") and head[len(module.cipher) + 1 :].isdigit()
            ):
                raise UsageError(f"schedule {text} is for {head}, not {module.cipher}")
            text = rest.partition("_")[2]
        tokens = text.split("_")
        for t in tokens:
            if not t:
                continue
            if t.startswith("rk-"):
                s = replace(s, rk=t[3:])
            elif t.startswith("tab-"):
                s = replace(s, tab=t[4:])
            elif t.startswith("ctas") and t[4:].isdigit():
                s = replace(s, ctas=int(t[4:]))
            elif t.startswith("ilp") and t[3:].isdigit():
                s = replace(s, ilp=int(t[3:]))
            elif t.startswith("t") and t[1:].isdigit():
                s = replace(s, threads=int(t[1:]))
            elif t == "nohoist":
                s = replace(s, hoist=False)
            elif t == "hoist":
                s = replace(s, hoist=True)
            elif t == "bal":
                s = replace(s, bal=True)
            elif t == "unroll":
                s = replace(s, unroll=True)
            elif t.startswith("fl-"):
                s = replace(s, flavour=t[3:])
            elif t.startswith("sync-"):
                s = replace(s, sync=t[5:])
            elif t in LAYOUTS:
                s = replace(s, layout=t)
            elif t in ("tt", "tt4"):
                s = replace(s, ttable=int(t[2:] or 1))
            else:
                raise UsageError(
                    f"unknown cuda schedule part {t!r} (rk-const|rk-shared|rk-reg, "
                    "tab-const|tab-global|tab-shared|tab-sharedN, tN, ilpN, nohoist, bal, fl-c|fl-ptx, tt|tt4, swar|bs, unroll, ctasN, "
                    "sync-trip|sync-round|sync-pair|sync-auto)"
                )
        if validate:
            s.validate(module)
        return s

    def validate(self, module: Module) -> None:
        if self.flavour not in FLAVOURS:
            raise UsageError(f"fl-{self.flavour}: the flavour is one of {', '.join(FLAVOURS)}")
        if self.rk not in RK_PLACES:
            raise UsageError(f"round keys cannot be placed in {self.rk!r} (choose {', '.join(RK_PLACES)})")
        base = self.tab[:6] if self.tab.startswith("shared") else self.tab
        if base not in TAB_BASES or (self.tab.startswith("shared") and self.tab[6:] and not self.tab[6:].isdigit()):
            raise UsageError(f"tables cannot be placed in {self.tab!r} (const, global, shared, sharedN)")
        n = int(self.tab[6:] or 1) if self.tab.startswith("shared") else 0
        if self.tab.startswith("shared") and (n < 1 or n > 32 or n & (n - 1)):
            raise UsageError(f"tab-shared{n}: the copy count must be a power of two from 1 to 32")
        if self.threads < 32 or self.threads > 1024 or self.threads % 32:
            raise UsageError(f"t{self.threads}: threads per block must be a multiple of 32 from 32 to 1024")
        if not 1 <= self.ilp <= 8:
            raise UsageError(f"ilp{self.ilp}: blocks per thread must be 1..8")
        if not 1 <= self.ctas or self.ctas * self.threads > 2048:
            raise UsageError(f"ctas{self.ctas}: resident blocks per SM times threads must be at most 2048")
        if self.sync and self.sync not in SYNCS:
            raise UsageError(f"sync-{self.sync}: the CTR kernel's lockstep is one of {', '.join(SYNCS)}")
        if self.sync and not self.lanes:
            raise UsageError(f"sync-{self.sync}: only the lane layouts' CTR kernel (swar, bs) keeps its warps in step")
        if self.sync in ("round", "pair") and (self.layout != "bs" or self.unroll):
            raise UsageError(f"sync-{self.sync}: needs the bs layout's round loop (without unroll); sync-trip does not")
        if self.sync == "pair" and self.threads % 128:
            raise UsageError(
                f"sync-pair: t{self.threads} is not a multiple of 128 (the warps of a CTA pair up per scheduler)"
            )
        need = self.shared_bytes(module)
        if need > SHARED_LIMIT:
            raise UsageError(
                f"{self.name(module)} needs {need} bytes of shared memory per block; the limit is "
                f"{SHARED_LIMIT} bytes (227 KB on sm_90): use fewer table copies"
            )
        if self.ttable and (self.lanes or not any(t.out_width == 32 for t in module.tables.values())):
            raise UsageError(
                f"tt: no byte lookup of {module.cipher} feeds a GF(2^8)-linear column map "
                "(T-tables need one, and the one-block-per-thread layout)"
            )
        if self.lanes:
            self._validate_lanes(module)
            return
        rk_bytes = 4 * rk_words(module)
        if rk_bytes + 256 > PARAM_LIMIT:
            raise UsageError(
                f"{module.cipher}: {rk_bytes} bytes of round keys exceed the {PARAM_LIMIT}-byte kernel parameter limit"
            )
        if self.rk == "reg":
            used = max(len(rk_inputs(module, f)) for f in ("encrypt", "decrypt"))
            if used > REG_RK_LIMIT:
                raise UsageError(
                    f"rk-reg: {module.cipher} reads {used} round-key words per block; the limit for "
                    f"registers is {REG_RK_LIMIT}: use rk-const or rk-shared"
                )

    def _validate_lanes(self, module: Module) -> None:
        why = why_not(module, self.layout)
        if why:
            raise UsageError(f"{self.layout}: {why}")
        if self.rk not in ("const", "shared"):
            raise UsageError(f"{self.layout}: round keys go in rk-const or rk-shared (its derived key words are many)")
        if self.bal:
            raise UsageError(f"{self.layout}: bal (pipe balancing of 32-bit rotations) does not apply to lane layouts")
        if self.unroll and self.layout != "bs":
            raise UsageError(
                f"unroll: only the bs layout runs its rounds in a loop (the {self.layout} cores are unrolled)"
            )
        per = (lambda w: w + 1) if self.layout == "bs" else (lambda w: 4)  # an upper bound on the derived words
        words = sum(per(ka.width) * len(ka.flat_names()) for ka in module.key_arrays)
        if 4 * words + 256 > LANES_PARAM_LIMIT:
            raise UsageError(
                f"{self.layout}: {module.cipher}'s derived round-key words exceed the "
                f"{LANES_PARAM_LIMIT}-byte kernel parameter limit"
            )

    def shared_bytes(self, module: Module, nrk: int | None = None) -> int:
        """``nrk``: round-key words staged by rk-shared (default: the key schedule's)."""
        n = 0
        if self.copies:
            n += sum(4 * len(t.values) * self.copies for t in module.tables.values())
        if self.rk == "shared":
            n += 4 * (rk_words(module) if nrk is None else nrk)
        return n


def rk_words(module: Module) -> int:
    total = 0
    for ka in module.key_arrays:
        total += len(ka.flat_names())
    return total


def rk_index(module: Module) -> dict[str, int]:
    out: dict[str, int] = {}
    for ka in module.key_arrays:
        for name in ka.flat_names():
            out[name] = len(out)
    return out


def rk_inputs(module: Module, fn_name: str) -> list[str]:
    idx = rk_index(module)
    return [n for n, _, _ in module.functions[fn_name].inputs() if n in idx]


def load_tuned(path: Path = TUNED) -> dict[str, str]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    return {k: v["schedule"] if isinstance(v, dict) else v for k, v in data.get("defaults", {}).items()}


def constant_time(module: Module, sched: CudaSchedule) -> bool:
    """No table is read with a secret index: the bitsliced layout, or a cipher without tables."""
    return sched.layout == "bs" or not module.tables


def table_base(module: Module) -> CudaSchedule:
    """The built-in one-block-per-thread schedule (what a schedule string's parameters override): rk-const,
    t256, tables in 32 bank-aware shared copies when they fit (else fewer).  Reads tables with secret
    indices: a build takes it only when named with --schedule (or when no constant-time layout applies)."""
    base = CudaSchedule()
    if module.tables:
        per_copy = sum(4 * len(t.values) for t in module.tables.values())
        n = 32
        while n > 1 and per_copy * n > 96 * 1024:
            n //= 2
        base = replace(base, tab=f"shared{n}")
    return base
