"""Schedules: HOW a cipher runs on a target, as a frozen value with a deterministic name.

The spec says what is computed; a schedule says how (Halide's split).  A schedule
never changes results.  Its name encodes every parameter, in a fixed order, so it
serves as file name, cache key, benchmark row and filter pattern:

    Schedule("lea128", "c", "sliced", (("v", 32),)).name      == "lea128_c_sliced_v32"
    Schedule("aria128", "neon", "b16", (("il", 2),)).name     == "aria128_neon_b16_il2"
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .errors import UsageError

_PART = re.compile(r"^[a-z0-9][a-z0-9.-]*$")


@dataclass(frozen=True)
class Schedule:
    cipher: str
    target: str  # c / neon / cuda
    layout: str  # the target's main choice: scalar, sliced, b16, packed, ...
    params: tuple[tuple[str, object], ...] = ()  # sorted (name, value) pairs
    rounds: int | None = None  # a round-count override travels with the schedule

    def __post_init__(self):
        object.__setattr__(self, "params", tuple(sorted(self.params)))
        for part in (self.target, self.layout):
            if not _PART.match(part):
                raise UsageError(f"bad schedule part {part!r}")

    def get(self, key: str, default=None):
        return dict(self.params).get(key, default)

    @property
    def name(self) -> str:
        parts = [self.cipher + (f"r{self.rounds}" if self.rounds is not None else ""), self.target, self.layout]
        parts += [f"{k}{str(v).replace('_', '-')}" for k, v in self.params]
        return "_".join(parts)

    def to_json(self) -> str:
        return json.dumps(
            {
                "cipher": self.cipher,
                "target": self.target,
                "layout": self.layout,
                "params": dict(self.params),
                "rounds": self.rounds,
            },
            sort_keys=True,
        )

    @staticmethod
    def from_json(text: str) -> "Schedule":
        d = json.loads(text)
        return Schedule(d["cipher"], d["target"], d["layout"], tuple(d["params"].items()), d.get("rounds"))
