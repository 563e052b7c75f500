"""``cipherspec build --target neon``: for each cipher, the .S + C header of every variant and the
dispatching <cipher>_neon.h/.c (dispatch.py); with the cross toolchain present, also the objects and
one aarch64 static library per cipher.

    notes = build(registry, ["aria128"], None, Path("out"), progress)
      -> out/aria128_neon_b16_crypto_il1.S/.h  (AESE/AESD, used where HWCAP_AES)
         out/aria128_neon_b16_il1.S/.h         (portable)
         out/aria128_neon.h, aria128_neon.c    (aria128_neon_ecb_encrypt ... pick a variant at run time)
         + out/libaria128_neon.a when aarch64-linux-gnu-gcc is installed
A --schedule names one cipher's single schedule: then only that variant, its library lib<schedule>.a.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from cipherspec.errors import UsageError

from . import dispatch
from .emit import emit
from .schedules import parse


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
        if schedule:
            e = emit(module, parse(schedule, name, None))
            files = {f"{e.schedule.name}.S": e.asm, f"{e.schedule.name}.h": e.header}
            lib = e.schedule.name
        else:
            vs = dispatch.variants(module)
            emitted = [emit(module, v.schedule) for v in vs]
            files = {}
            for e in emitted:
                files[f"{e.schedule.name}.S"] = e.asm
                files[f"{e.schedule.name}.h"] = e.header
            files.update(dispatch.render(module, emitted, vs))
            lib = f"{name}_neon"
        for fname, text in files.items():
            (out_dir / fname).write_text(text)
        if cc:
            _library(cc, out_dir, [f for f in files if f.endswith((".S", ".c"))], lib)
        if task is not None:
            progress.advance(task)
    if library and not cc:
        notes.append("aarch64-linux-gnu-gcc not found: wrote .S, .c and .h only (no aarch64 library)")
    return notes


def _library(cc: str, out_dir: Path, sources: list[str], lib: str) -> None:
    objs = []
    for src in sources:
        obj = out_dir / (Path(src).stem + ".o")
        r = subprocess.run([cc, "-O2", "-c", "-o", str(obj), str(out_dir / src)], capture_output=True, text=True)
        if r.returncode:
            raise UsageError(f"compiling {src} failed:\n{r.stderr[-3000:]}")
        objs.append(str(obj))
    ar = shutil.which("aarch64-linux-gnu-ar") or shutil.which("llvm-ar")
    if ar:
        path = out_dir / f"lib{lib}.a"
        path.unlink(missing_ok=True)
        subprocess.run([ar, "rcsD", str(path)] + objs, check=True, capture_output=True)
