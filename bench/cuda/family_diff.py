"""How far two ciphers' CUDA sources are from sharing one compile (issue 25's family lever): the sources
`cipherspec build --target cuda` writes for two members of one spec template, their library prefixes made one,
compared line by line, each differing line classed by what differs.

    python3 bench/cuda/family_diff.py aes128 aes256
    -> {"a": "aes128_cuda_...", "b": "aes256_cuda_...",
        "device": {"lines": [..], "same": .., "numbers": {"round-key offset": .., "loop count": .., "other": ..},
                   "only in a": .., "only in b": ..},
        "all": {... the same over the whole source}}

The device code is every function compiled for the GPU: from a line opening with ``__global__``, ``__device__``,
``CS_HD`` or ``template`` to the ``}`` that closes it at the start of a line (the generator's layout).
A line that differs only in its numbers is classed by where they are: a round-key word's index (``rk.w[176]``,
``rk.w[o + 439]``, ``rk[...]``) -> "round-key offset"; a loop bound (``for (... < 9; ...)``) -> "loop count"; anything
else -> "other".  Every other differing line is counted as "only in a" / "only in b" (text that is not a renaming).
A family compiles once when all of these are 0 in its device code; the host's parts (set_key, the key schedule)
stay the members' own.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.registry import Registry  # noqa: E402
from generator.ptx.build import family_rk_words, schedule_for  # noqa: E402
from generator.ptx.source import generate  # noqa: E402

_NUM = re.compile(r"(?<![\w.])(?:0x[0-9a-fA-F]+|\d+)(?:ull|ll|u)?\b")
_RK = re.compile(r"\brk(?:p|b|g)?(?:\.w|->w)?\[[^\]]*\d[^\]]*\]")
_LOOP = re.compile(r"\bfor \([^;]*;[^;]*<\s*\d+")


def source_lines(reg: Registry, name: str) -> tuple[str, list[str]]:
    """The shipped .cu of ``name``'s default schedule, its library prefix replaced by ``P`` (and its name by ``N``)."""
    m = reg.module(name)
    sched = schedule_for(m, None)
    src = generate(m, sched, flavours=(sched.flavour,), rk_pad=family_rk_words(reg, name, None))  # (as build does)
    text = src.cu.replace(src.symbol, "P").replace(src.name, "N")
    return src.name, text.splitlines()


def classify(a: str, b: str) -> str | None:
    """The class of a pair of lines that differ only in their numbers, else None."""
    if _NUM.sub("#", a) != _NUM.sub("#", b):
        return None
    if _RK.sub("RK", a) == _RK.sub("RK", b):
        return "round-key offset"
    if _LOOP.sub("LOOP", a) == _LOOP.sub("LOOP", b):
        return "loop count"
    return "other"


def device_lines(lines: list[str]) -> list[str]:
    """The lines of the functions compiled for the GPU (see the module's docstring)."""
    out, inside = [], False
    for line in lines:
        if not inside and line.startswith(("__global__", "__device__", "CS_HD", "template")):
            inside = True
        if inside:
            out.append(line)
            inside = line != "}"
    return out


def diff(la: list[str], lb: list[str]) -> dict:
    """Line counts of two texts: equal, differing only in numbers (by class), the rest."""
    out: dict = {"lines": [len(la), len(lb)], "same": 0, "numbers": {}, "only in a": 0, "only in b": 0}
    sm = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            out["same"] += i2 - i1
            continue
        pairs = list(zip(la[i1:i2], lb[j1:j2])) if op == "replace" else []
        for x, y in pairs:
            kind = classify(x, y)
            if kind is None:
                out["only in a"] += 1
                out["only in b"] += 1
            else:
                out["numbers"][kind] = out["numbers"].get(kind, 0) + 1
        out["only in a"] += (i2 - i1) - len(pairs)
        out["only in b"] += (j2 - j1) - len(pairs)
    return out


def compare(reg: Registry, a: str, b: str) -> dict:
    na, la = source_lines(reg, a)
    nb, lb = source_lines(reg, b)
    return {"a": na, "b": nb, "device": diff(device_lines(la), device_lines(lb)), "all": diff(la, lb)}


def pair_main(argv: list[str], compare, doc: str) -> int:
    """The command line of a comparison of two members (this tool's, family_ptx.py's): `TOOL A B` prints
    compare(Registry(), A, B) as JSON; anything else prints the usage (doc's second paragraph), status 2."""
    if len(argv) != 2:
        print(doc.split("\n\n")[1], file=sys.stderr)
        return 2
    print(json.dumps(compare(Registry(), argv[0], argv[1]), indent=1))
    return 0


def main(argv: list[str]) -> int:
    return pair_main(argv, compare, __doc__)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
