"""Do two PTX files (nvcc -ptx of two sources) hold the same kernels?  Per entry and called function: equal text,
or its line counts, with nvcc's per-file anonymous-namespace hashes normalised (sass_same.py does the same on SASS,
where cuobjdump is at hand).

    nvcc -ptx -arch=sm_90 -O3 -std=c++17 -DCS_FLAVOURS=1 -DCS_AB=0 -o before.ptx before/X.cu   (and after)
    python3 bench/cuda/ptx_same.py before.ptx after.ptx
    -> DIFF  ..._gcm_batchE...         44022 -> 20984 lines
       only after  ...cs_gh_mulp_vE...        765 lines
       same 25, different 2                    (exit 0 when every common function is the same)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

_ANON = re.compile(r"_GLOBAL__N__[0-9a-f]+_\d+_\w*?_cu_[0-9a-f]+|_INTERNAL_[0-9a-f]+_\d+_\w*?_cu_[0-9a-f]+")
_HEAD = re.compile(r"^(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")
_CALLSEQ = re.compile(r"callseq \d+")  # (nvcc numbers call sequences across the file: not code)


def ptx_of(cu: str, header: tuple[str, str], d: Path) -> Path:
    """The PTX of a generated source (as ``nvcc -ptx`` of what `cipherspec build` ships: sm_90, -O3, no A/B
    baselines), compiled in a new directory d beside its header (name, text); d/x.ptx."""
    d.mkdir()
    (d / "x.cu").write_text(cu)
    (d / header[0]).write_text(header[1])
    cmd = ["nvcc", "-ptx", "-arch=sm_90", "-O3", "-std=c++17", "-DCS_AB=0", "-I", str(d), "-o", str(d / "x.ptx")]
    subprocess.run([*cmd, str(d / "x.cu")], check=True, capture_output=True)
    return d / "x.ptx"


def functions(path: str) -> dict[str, list[str]]:
    """Entry or function name (hash-free) -> its definition's lines, from its header to its closing brace (a
    declaration -- the header, its parameters and a lone ";" -- is skipped)."""
    out: dict[str, list[str]] = {}
    name, cur = "", None
    with open(path) as f:
        for line in f:
            m = _HEAD.match(line)
            if m:
                name, cur = _ANON.sub("anon", m.group(1)), []
            if cur is None:
                continue
            if line.strip() == ";":  # a declaration: nothing to compare
                cur = None
                continue
            cur.append(_CALLSEQ.sub("callseq", _ANON.sub("anon", line.rstrip("\n"))))
            if line.startswith("}"):
                out[name], cur = cur, None
    return out


def main(argv: list[str]) -> int:
    a, b = functions(argv[0]), functions(argv[1])
    same = diff = 0
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            print(f"only {'after ' if k in b else 'before'} {k}  {len((b if k in b else a)[k])} lines")
        elif a[k] == b[k]:
            same += 1
        else:
            diff += 1
            print(f"DIFF  {k}  {len(a[k])} -> {len(b[k])} lines")
    print(f"same {same}, different {diff}")
    return 0 if not diff else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
