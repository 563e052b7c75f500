"""NEON arrangement suffixes: the lane width of a value -> the ``.<arr>`` of its 128-bit register.

ARR[32] -> "4s"   (v3.4s: four 32-bit lanes);   ARR[8] -> "16b"
"""

from __future__ import annotations

ARR = {8: "16b", 16: "8h", 32: "4s", 64: "2d"}
