"""This machine's x86-64 ISA levels, read from /proc/cpuinfo independently of the libraries' CPUID code
(the tests compare the two), and a record of the variants the tests found absent (conftest reports it).

    has_level("avx2") -> True on an AVX2 machine;  ABSENT: {(library, variant)} seen absent this session
"""

from __future__ import annotations

import platform
from pathlib import Path

# /proc/cpuinfo flag names each level needs (x86-64 psABI levels, AES-NI, VAES)
LEVEL_FLAGS = {
    "sse2": ("sse2",),
    "aesni": ("sse2", "pni", "ssse3", "sse4_1", "sse4_2", "popcnt", "cx16", "lahf_lm", "aes", "pclmulqdq"),
    "avx2": (
        "sse2",
        "pni",
        "ssse3",
        "sse4_1",
        "sse4_2",
        "popcnt",
        "cx16",
        "lahf_lm",
        "avx",
        "avx2",
        "bmi1",
        "bmi2",
        "fma",
        "f16c",
        "movbe",
        "abm",
    ),
    "avx512": ("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"),
}
LEVEL_FLAGS["vaes_avx2"] = LEVEL_FLAGS["avx2"] + ("aes", "pclmulqdq", "vaes")
LEVEL_FLAGS["avx512"] = LEVEL_FLAGS["avx2"] + LEVEL_FLAGS["avx512"]
LEVEL_FLAGS["vaes_avx512"] = LEVEL_FLAGS["avx512"] + ("aes", "pclmulqdq", "vaes")
LEVEL_FLAGS["gfni_avx2"] = LEVEL_FLAGS["vaes_avx2"] + ("gfni",)
LEVEL_FLAGS["gfni_avx512"] = LEVEL_FLAGS["vaes_avx512"] + ("gfni",)

ABSENT: set[tuple[str, str]] = set()


def cpu_flags() -> set[str]:
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def is_x86_64() -> bool:
    return platform.machine() in ("x86_64", "AMD64")


def has_level(name: str) -> bool:
    """Whether this CPU runs the variant ``name`` ("portable": always)."""
    if name == "portable":
        return True
    return is_x86_64() and set(LEVEL_FLAGS[name]) <= cpu_flags()
