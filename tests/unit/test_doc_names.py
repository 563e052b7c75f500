"""The schedule names that README, CONTRIBUTING, bench docs, docstrings and comments quote are real:
each parses under its target and prints back as itself (a renamed schedule leaves no stale name).

bench/results/ is left out: its tables record what ran, under the names of the day (and parsing its
~80 CUDA schedule names would take half a minute)."""

from __future__ import annotations

import re
from pathlib import Path

from paths import ROOT

from generator.backends import backend

SUFFIXES = {".md", ".py", ".sh", ".j2", ".lark", ".c", ".h"}
SOURCES = (
    "README.md",
    "CONTRIBUTING.md",
    "docs",
    "cipherspec",
    "generator",
    "runtime",
    "driver",
    "toolchain",
    "bench",
    "scripts",
    "tests",
)
SKIP = ("bench/results", "tests/golden/data")
# what follows a schedule name in a file or symbol name: <schedule>.S, <schedule>_ctr, ...
FILE_EXT = re.compile(r"\.(S|h|c|cu|so|a|o)$")
SYMBOL = re.compile(
    r"_(ecb_encrypt|ecb_decrypt|cbc_encrypt|cbc_decrypt|ctr|variant|key_schedule|key|prepare_keys"
    r"|(ecb_encrypt|ecb_decrypt|ctr)_keymap|modes|set_key|set_key_isa|gcm_encrypt|gcm_decrypt|gmac"
    r"|ccm_encrypt|ccm_decrypt|xts_encrypt|xts_decrypt|cmac|key_variant|key_ghash)$"
)


def _text_files() -> list[Path]:
    out = []
    for top in SOURCES:
        path = ROOT / top
        for f in [path] if path.is_file() else sorted(path.rglob("*")):
            rel = f.relative_to(ROOT).as_posix()
            if f.suffix in SUFFIXES and f.is_file() and not rel.startswith(SKIP) and "__pycache__" not in rel:
                out.append(f)
    return out


def quoted_schedules(names: list[str]) -> dict[str, list[str]]:
    """schedule name -> the places (file:line) that quote it."""
    cipher = "|".join(sorted(names, key=len, reverse=True))
    pat = re.compile(rf"\b(?:{cipher})(?:r\d+)?_(?:c|neon|cuda)_[A-Za-z0-9_.-]*[A-Za-z0-9]")
    found: dict[str, list[str]] = {}
    for f in _text_files():
        rel = f.relative_to(ROOT).as_posix()
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            for m in pat.finditer(line):
                name = SYMBOL.sub("", FILE_EXT.sub("", m.group(0)))
                found.setdefault(name, []).append(f"{rel}:{n}")
    return found


def test_quoted_schedule_names_are_real(registry):
    found = quoted_schedules(registry.names())
    assert "lea128_c_sliced_v32" in found and "aria128_neon_b16_crypto_il1" in found  # the scan sees the manual
    stale = []
    for name, where in sorted(found.items()):
        m = re.match(r"(.+?)(?:r(\d+))?_(c|neon|cuda)(?:_(.*))?$", name)
        cipher, rounds, target, rest = m.groups()
        if not rest:  # "<cipher>_neon": the dispatching library's prefix, not a schedule
            continue
        rounds = int(rounds) if rounds else None
        try:
            b = backend(target)
            module = registry.module(cipher, rounds)
            back = b.schedule_name(module, b.parse_schedule(module, name, rounds), rounds)
        except Exception as e:  # noqa: BLE001 - any failure is a stale name; say which
            back = f"error: {e}"
        if back != name:
            stale.append(f"{name} ({back}) at {', '.join(where[:3])}")
    assert not stale, "stale schedule names:\n  " + "\n  ".join(stale)
