"""What a target is: one ``Backend`` object per target, in ``generator/<target>/__init__.py``.

A backend owns the whole route from the shared pipeline's IR to something that runs:

    b = BACKENDS["c"]                                    (generator/backends.py)
    sched = b.parse_schedule(module, "sliced_v32")      # None: the target's default schedule
    b.schedules(module)                                 # every schedule the tests enumerate
    b.passes(module, sched)                             # its own passes, after PIPELINE (named, visible)
    b.prepare(module, sched)                            # module after those passes
    files = b.generate(module, sched)                   # {relative path: text}, deterministic
    notes = b.build(registry, names, text, out_dir, progress)   # `cipherspec build`
    cipher = b.load(registry, name, rounds, text)       # a cipher object (cipherspec.blockcipher's interface)

``module`` is always the cipher after the shared pipeline (``Registry.module``); a backend runs its
own passes itself, through ``prepare``, so that ``cipherspec dump --target T --after PASS`` and the
property tests see exactly what it compiles.  Adding a target: a new ``generator/<target>/`` with a
Backend subclass, a thin loader in ``runtime/`` if it runs in-process, and one line in backends.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cipherspec.ir import Module
from cipherspec.pipeline import Pass, run_passes
from cipherspec.registry import Registry


class Backend:
    name: str = ""
    summary: str = ""

    def parse_schedule(self, module: Module, text: str | None, rounds: int | None = None) -> Any:
        """A schedule from its name or parameter part; ``None`` gives the target's default."""
        raise NotImplementedError

    def schedule_name(self, module: Module, schedule: Any, rounds: int | None = None) -> str:
        return schedule.name

    def schedules(self, module: Module, rounds: int | None = None) -> list[Any]:
        """Every schedule of this target that the tests and benchmarks enumerate."""
        raise NotImplementedError

    def passes(self, module: Module, schedule: Any) -> tuple[Pass, ...]:
        """The target's own passes, run after the shared PIPELINE (may depend on module and schedule)."""
        return ()

    def prepare(self, module: Module, schedule: Any) -> Module:
        return run_passes(module, self.passes(module, schedule))

    def generate(self, module: Module, schedule: Any) -> dict[str, str]:
        """The generated text files of one cipher under one schedule (deterministic)."""
        raise NotImplementedError

    def build(
        self, registry: Registry, names: list[str], schedule: str | None, out_dir: Path, progress=None
    ) -> list[str]:
        """``cipherspec build``: files (and libraries where the toolchain exists) into out_dir; notes."""
        raise NotImplementedError

    def load(self, registry: Registry, name: str, rounds: int | None, schedule: str | None):
        """A cipher object that runs this target's code (compiled and cached as needed)."""
        raise NotImplementedError
