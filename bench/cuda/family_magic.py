"""Can one cicc run serve a spec family (issue 25)?  A member's PTX rebuilt from compiles of its source in which each
round loop's trip count is an unusual number (a "magic" count, one per distinct count), compared with the PTX of the
source as it ships, function by function.  Where they are equal, ptxas makes the same SASS from either.

    python3 bench/cuda/family_magic.py aes128 [aria128 ...]
    -> {"cipher": "aes128_...", "counts": {"9": 3001, "8": 4513}, "patched": {"3001+0x1": 6, ...}, "same": 30,
        "different": [], "left": [], "exact": {"moved": 12, "same": 30, "of": 30}}

Two ways of putting the member's counts back:
  - by value (patch): every immediate (M + a) * f, f a power of two and |a| <= 2 -- the forms cicc's induction-
    variable rewriting makes of a count M -- becomes (n + a) * f.  One compile, but a guess: it also rewrites real
    constants that happen to have such a value (ARIA-128's ECB decrypt reads round keys at 2,996 .. 3,008 bytes, near
    3,001: "different"), and it misses forms outside its table ("left" lists what it left).
  - by position (patch_exact, "exact"): a second compile with every magic count + DELTA; an immediate that moves
    between the two is a form of a count, v = alpha * M + beta, and becomes alpha * n + beta.  Exact where the two
    compiles have one shape (else None: the count changes the code's shape).
Measured (nvcc 13.0): AES-128 30/30 functions equal both ways; ARIA-128 28/29 by value, 29/29 by position; AES-256
30/30.  The by-position way costs two cicc runs where a family has one text, so it saves (members - 2) runs of
cicc; the asm-immediate way (branch trips-lit: cs_lit<N>(), which cicc cannot fold) changes the PTX's shape and cost
AES-128's CTR keystream 2.3% on an H200 (device-2026-11-27g call 3).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ptx_same import _ANON, functions, ptx_of  # noqa: E402

from cipherspec.registry import Registry  # noqa: E402
from generator.ptx.build import schedule_for  # noqa: E402
from generator.ptx.source import generate  # noqa: E402

_LOOP = re.compile(r"(for \(int i = 0; i < )(\d+)(; \+\+i\) \{  // \d+ round\(s\) an iteration)")
_IMM = re.compile(r"(?<![%\w.$])-?\d+(?![\w.])")
FACTORS = [1 << k for k in range(17)]
NEAR = range(-2, 3)


MAGIC = (3001, 4513, 5519, 6529, 7541)  # primes, far from each other and from powers of two
DELTA = 6  # the second compile's shift (patch_exact)


def with_magic(cu: str, delta: int = 0) -> tuple[str, dict[int, int]]:
    """The source with each round loop's count replaced by a magic count (one per distinct count), + ``delta``."""
    magic: dict[int, int] = {}

    def sub(m: re.Match) -> str:
        n = int(m.group(2))
        magic.setdefault(n, MAGIC[len(magic)] + delta)
        return f"{m.group(1)}{magic[n]}{m.group(3)}"

    return _LOOP.sub(sub, cu), magic


def patch(ptx: str, magic: dict[int, int]) -> tuple[str, dict[str, int]]:
    """The PTX with every (M + a) * f of a magic count M replaced by (n + a) * f, n the member's count."""
    table = {}
    for n, M in magic.items():
        for a in NEAR:
            for f in FACTORS:
                table[(M + a) * f] = ((n + a) * f, f"{M}{a:+d}x{f}")
    hits: dict[str, int] = {}

    def sub(m: re.Match) -> str:
        v = int(m.group(0))
        hit = table.get(abs(v))
        if hit is None:
            return m.group(0)
        hits[hit[1]] = hits.get(hit[1], 0) + 1
        return str(hit[0] if v > 0 else -hit[0])

    return _IMM.sub(sub, ptx), hits


def patch_exact(ptx1: str, ptx2: str, magic: dict[int, int], delta: int) -> tuple[str, int] | None:
    """The member's PTX from two compiles of the magic text, the second with every magic count + ``delta``: an
    immediate that differs between them is a form of a count, v = alpha * M + beta (alpha = (v2 - v1) / delta, M
    the magic count giving the smallest |beta|), and becomes alpha * n + beta; every other number stays.  None
    where the two texts differ in more than immediates (the shape depends on the count: no family compile).
    Returns the text and the number of immediates it changed."""
    l1, l2 = ptx1.split("\n"), ptx2.split("\n")
    if len(l1) != len(l2):
        return None
    out, moved = [], 0
    for a, b in zip(l1, l2):
        if a == b:
            out.append(a)
            continue
        if _IMM.sub("#", a) != _IMM.sub("#", b):
            return None
        va, vb = _IMM.findall(a), _IMM.findall(b)
        parts = _IMM.split(a)
        line = parts[0]
        for k, (x, y) in enumerate(zip(va, vb)):
            v1, v2 = int(x), int(y)
            if v1 != v2:
                if (v2 - v1) % delta:
                    return None
                alpha = (v2 - v1) // delta
                n, M = min(magic.items(), key=lambda nm: abs(v1 - alpha * nm[1]))
                x = str(alpha * n + (v1 - alpha * M))
                moved += 1
            line += x + parts[k + 1]
        out.append(line)
    return "\n".join(out), moved


def left(ptx: str, magic: dict[int, int]) -> list[str]:
    """Immediates of a patched text that are still (M + a) * f for |a| <= 8: a form of a magic count the patch missed."""
    near = {(M + a) * f for M in magic.values() for a in range(-8, 9) for f in FACTORS}
    return sorted({m.group(0) for m in _IMM.finditer(ptx) if abs(int(m.group(0))) in near})


def run(reg: Registry, name: str) -> dict:
    m = reg.module(name)
    sched = schedule_for(m, None)
    src = generate(m, sched, flavours=(sched.flavour,))
    magic_cu, magic = with_magic(src.cu)
    if not magic:
        return {"cipher": src.name, "counts": {}, "note": "no round loop: nothing member-specific to patch"}
    header = (f"{src.name}.h", src.h)
    with tempfile.TemporaryDirectory() as t:
        own = ptx_of(src.cu, header, Path(t) / "own")
        fam = ptx_of(magic_cu, header, Path(t) / "fam")
        fam2 = ptx_of(with_magic(src.cu, DELTA)[0], header, Path(t) / "fam2")
        # (nvcc's per-file hash in the names differs between the two directories: normalised first)
        exact = patch_exact(_ANON.sub("anon", fam.read_text()), _ANON.sub("anon", fam2.read_text()), magic, DELTA)
        patched, hits = patch(fam.read_text(), magic)
        fam.write_text(patched)
        a, b = functions(str(own)), functions(str(fam))
        rest = left(patched, magic)
        if exact is not None:
            fam2.write_text(exact[0])
            e = functions(str(fam2))
            exact_same = sum(1 for k in a if k in e and a[k] == e[k])
    same = [k for k in a if k in b and a[k] == b[k]]
    diff = [k for k in a if k in b and a[k] != b[k]]
    short = re.compile(r"_t(?:64|128|256|512)_(\w+?)(?:E[PNSK0-9]|I)")
    return {
        "cipher": src.name,
        "counts": {str(n): M for n, M in magic.items()},
        "patched": hits,
        "same": len(same),
        "different": [(short.search(k).group(1) if short.search(k) else k) for k in diff],
        "only in one": len(set(a) ^ set(b)),
        "left": rest,
        "exact": None if exact is None else {"moved": exact[1], "same": exact_same, "of": len(a)},
    }


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    reg = Registry()
    for name in argv:
        print(json.dumps(run(reg, name)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
