"""``cipherspec build --target neon``: for each cipher, the .S (every kernel) and its C header; with the
cross toolchain present, also an aarch64 object and static library.

    notes = build(registry, ["aria128"], None, Path("out"), progress)
      -> out/aria128_neon_b16_il1.S, .h (+ .o, lib....a when aarch64-linux-gnu-gcc is installed)
A schedule name applies to a single cipher; without one each cipher gets its default schedule.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from cipherspec.errors import UsageError

from .emit import emit
from .schedules import default, parse


def build(registry, names: list[str], schedule: str | None, out_dir: Path, progress=None,
          library: bool = True) -> list[str]:
    if schedule and len(names) != 1:
        raise UsageError("a --schedule names one cipher's schedule: build one cipher with it")
    notes: list[str] = []
    out_dir.mkdir(parents=True, exist_ok=True)
    cc = shutil.which("aarch64-linux-gnu-gcc") if library else None
    task = progress.add_task("neon", total=len(names)) if progress is not None else None
    for name in names:
        module = registry.module(name)
        sched = parse(schedule, name, None) if schedule else default(module)
        e = emit(module, sched)
        stem = sched.name
        (out_dir / f"{stem}.S").write_text(e.asm)
        (out_dir / f"{stem}.h").write_text(e.header)
        if cc:
            obj = out_dir / f"{stem}.o"
            r = subprocess.run([cc, "-c", "-o", str(obj), str(out_dir / f"{stem}.S")], capture_output=True, text=True)
            if r.returncode:
                raise UsageError(f"assembling {stem}.S failed:\n{r.stderr[-3000:]}")
            ar = shutil.which("aarch64-linux-gnu-ar") or shutil.which("llvm-ar")
            if ar:
                lib = out_dir / f"lib{stem}.a"
                lib.unlink(missing_ok=True)
                subprocess.run([ar, "rcsD", str(lib), str(obj)], check=True, capture_output=True)
        if task is not None:
            progress.advance(task)
    if library and not cc:
        notes.append("aarch64-linux-gnu-gcc not found: wrote .S and .h only (no aarch64 library)")
    return notes
