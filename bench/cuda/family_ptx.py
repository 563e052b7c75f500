"""How close two members of a spec family are to one device compile, measured where it matters: the PTX nvcc makes
of each member's shipped source (issue 25's family lever: cicc once for the family, each member's numbers put into
the PTX, ptxas per member).  family_diff.py compares the sources; this compares what cicc made of them.

    python3 bench/cuda/family_ptx.py aes128 aes256
    -> {"a": "aes128_...", "b": "aes256_...", "cicc_s": [14.1, 14.3],
        "kernels": {"same": [..], "immediates": [..], "param sizes": [..], "numbers": [..], "structure": [..]},
        "counts": {"same": 2, "immediates": 4, ...}}

Each function of the two PTX files (entries and .func; names without nvcc's per-file hash, the second member's
library prefix made the first's) falls in the first class that describes every line it differs in:
  - same:        the same text;
  - immediates:  only `mov.b32 %rN, <literal>` lines (device.cu.j2's cs_lit: a count the member has of its own);
  - param sizes: those, and parameter declarations' byte sizes (a struct passed by value, e.g. the round keys);
  - numbers:     lines that differ only in numbers elsewhere (offsets, strides, loop bounds: what a member's round
                 key count leaks into the code) -- not patchable as they stand;
  - structure:   lines that differ in more than numbers, or a different line count (the members' own code: key
                 schedules, derived words; or cicc unrolled something by a member's count).
A family's device code compiles once when every kernel but the members' own is in the first three classes.
"""

from __future__ import annotations

import re
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from family_diff import pair_main  # noqa: E402
from ptx_same import functions, ptx_of  # noqa: E402

from cipherspec.registry import Registry  # noqa: E402
from generator.ptx.build import family_rk_words, schedule_for  # noqa: E402
from generator.ptx.source import generate  # noqa: E402

_LIT = re.compile(r"^\s*mov\.b32\s+%r\d+,\s*-?\d+;$")
_PARAM = re.compile(r"^\s*\.param\s+\.align\s+\d+\s+\.b8\s+\S+\[\d+\],?$")
_NUM = re.compile(r"(?<![\w%$.])-?(?:0x[0-9a-fA-F]+|\d+)\b")
CLASSES = ("same", "immediates", "param sizes", "numbers", "structure")


def classify(a: list[str], b: list[str]) -> str:
    """The class of a function's two texts (see the module's docstring)."""
    if a == b:
        return "same"
    if len(a) != len(b):
        return "structure"
    worst = 1
    for x, y in zip(a, b):
        if x == y:
            continue
        if _NUM.sub("#", x) != _NUM.sub("#", y):
            return "structure"
        worst = max(worst, 1 if _LIT.match(x) and _LIT.match(y) else 2 if _PARAM.match(x) and _PARAM.match(y) else 3)
    return CLASSES[worst]


def member_ptx(reg: Registry, name: str, tmp: Path) -> tuple[str, str, Path, float]:
    """(source name, library prefix, the PTX of the shipped source, cicc's CPU seconds) for one cipher."""
    m = reg.module(name)
    sched = schedule_for(m, None)
    src = generate(m, sched, flavours=(sched.flavour,), rk_pad=family_rk_words(reg, name, None))  # (as build does)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    ptx = ptx_of(src.cu, (f"{src.name}.h", src.h), tmp / name)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return src.name, src.symbol, ptx, round(cpu, 1)


def compare(reg: Registry, a: str, b: str) -> dict:
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        na, pa, fa, ca = member_ptx(reg, a, tmp)
        nb, pb, fb, cb = member_ptx(reg, b, tmp)
        same_len = len(pa) == len(pb)  # (a prefix of another length changes the mangled names' length fields)
        if not same_len:
            raise SystemExit(f"{a} and {b}: library prefixes of different lengths ({pa}, {pb}): not compared")
        fb.write_text(fb.read_text().replace(pb, pa))
        fa_, fb_ = functions(str(fa)), functions(str(fb))
    kernels: dict[str, list[str]] = {c: [] for c in CLASSES}
    for k in sorted(set(fa_) & set(fb_)):
        # (the name without the library prefix -- nvcc's hash normalised, its digits may take the prefix's "c")
        kernels[classify(fa_[k], fb_[k])].append(re.sub(r"^_ZN\d+(?:anon)+c?", "", k).replace(pa[1:], "P")[:72])
    only = sorted(set(fa_) ^ set(fb_))
    return {
        "a": na,
        "b": nb,
        "cicc_s": [ca, cb],
        "kernels": kernels,
        "counts": {c: len(v) for c, v in kernels.items()},
        "only in one": len(only),
    }


def main(argv: list[str]) -> int:
    return pair_main(argv, compare, __doc__)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
