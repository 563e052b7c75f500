"""Do two CUDA builds carry the same machine code?  Per kernel: SASS instruction count and whether the
instruction text is identical (or identical up to a one-to-one renaming of registers), for the kernels both hold (cuobjdump -sass on each .so or .cubin).

    python3 bench/cuda/sass_same.py before/libX.so after/libX.so
    -> kernel                    before  after  same
       X_ctr_ptx<true>             1234   1234   yes
       ...
       3 kernels only in before (X_ecb_enc_c, ...)        exit 0 when every common kernel is the same

Names are compared without the anonymous namespace's per-file hash (nvcc's _GLOBAL__N__<hash>_<len>_<file>_<hash>),
instructions without their addresses and encodings.  Before/after, e.g.:
    kernel ..._ctr_ptxILb1E...: 18204 instructions, text hash 3f1c... in both  -> same
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys

_FUNC = re.compile(r"^\s*Function : (\S+)")
_INS = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")
_ANON = re.compile(r"_GLOBAL__N__[0-9a-f]+_\d+_\w*?_cu_[0-9a-f]+")


def kernels(path: str) -> dict[str, list[str]]:
    """Kernel name (hash-free) -> its SASS instructions (text, no address or encoding)."""
    text = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True, check=True).stdout
    out: dict[str, list[str]] = {}
    cur: list[str] | None = None
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m:
            cur = out.setdefault(_ANON.sub("anon", m.group(1)), [])
            continue
        m = _INS.match(line)
        if m and cur is not None:
            cur.append(_ANON.sub("anon", m.group(1)))
    return out


_REG = re.compile(r"\b(U?R|U?P)(\d+)\b")


def renamed(a: list[str], b: list[str]) -> bool:
    """The same instructions with registers consistently renamed (a one-to-one map per register file): the same
    work, the same count, the same register pressure."""
    if len(a) != len(b):
        return False
    fwd: dict[tuple[str, str], str] = {}
    back: dict[tuple[str, str], str] = {}
    for x, y in zip(a, b):
        if _REG.sub("#", x) != _REG.sub("#", y):
            return False
        for (fa, na), (fb, nb) in zip(_REG.findall(x), _REG.findall(y)):
            if fa != fb or fwd.setdefault((fa, na), nb) != nb or back.setdefault((fb, nb), na) != na:
                return False
    return True


def compare(before: str, after: str) -> tuple[list[tuple[str, int, int, str]], list[str], list[str]]:
    """Rows (kernel, count before, count after, "yes" | "renamed" | "NO"), kernels only before, only after."""
    a, b = kernels(before), kernels(after)
    rows = [
        (k, len(a[k]), len(b[k]), "yes" if a[k] == b[k] else "renamed" if renamed(a[k], b[k]) else "NO")
        for k in sorted(set(a) & set(b))
    ]
    return rows, sorted(set(a) - set(b)), sorted(set(b) - set(a))


def short(name: str) -> str:
    m = re.search(r"anon(?:s_|\d+)(\w+?)E", name)
    return (m.group(1) if m else name)[:60]


def main(argv: list[str]) -> int:
    rows, only_a, only_b = compare(argv[0], argv[1])
    digest = hashlib.sha256("".join(str(r) for r in rows).encode()).hexdigest()[:12]
    print(f"{'kernel':60} {'before':>7} {'after':>7}  same")
    for k, n, m, same in rows:
        print(f"{short(k):60} {n:7} {m:7}  {same}")
    if only_a:
        print(f"{len(only_a)} kernels only in before: {', '.join(short(k) for k in only_a)}")
    if only_b:
        print(f"{len(only_b)} kernels only in after: {', '.join(short(k) for k in only_b)}")
    bad = [k for k, _, _, same in rows if same == "NO"]
    ren = sum(1 for *_, same in rows if same == "renamed")
    print(
        f"{len(rows) - len(bad) - ren}/{len(rows)} common kernels identical, {ren} the same up to register names, "
        f"{len(bad)} different (table digest {digest})"
    )
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
