"""``cipherspec build --target neon``: for each cipher, the .S + C header of every variant and the
dispatching <cipher>_neon.h/.c (dispatch.py); with the cross toolchain present, also the objects and
one aarch64 static library per cipher.

    notes = build(registry, ["aria128"], None, Path("out"), progress)
      -> out/aria128_neon_b16_crypto_il1.S/.h  (AESE/AESD, used where HWCAP_AES)
         out/aria128_neon_b16_il1.S/.h         (portable)
         out/aria128_neon.h, aria128_neon.c    (aria128_neon_ecb_encrypt ... pick a variant at run time)
         out/aria128_neon_key.c                (aria128_neon_key_schedule: constant-time, keysched.py)
         out/aria128_neon_modes.h/.c           (GCM, CCM, XTS, CMAC over the kernels: modes.py)
         + out/libaria128_neon.a when aarch64-linux-gnu-gcc is installed
A --schedule names one cipher's single schedule: then only that variant, its library lib<schedule>.a.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cipherspec.errors import UsageError
from toolchain.aarch64 import static_library

from . import dispatch, techniques
from .emit import emit
from .keysched import ct_note, key_files
from .modes import mode_files
from .schedules import parse


def build(
    registry, names: list[str], schedule: str | None, out_dir: Path, progress=None, library: bool = True
) -> list[str]:
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
            files, lib, emitted = single_files(module, e), e.schedule.name, [e]
        else:
            files, lib, _, emitted = dispatched_files(module)
        for fname, text in files.items():
            (out_dir / fname).write_text(text)
        if cc:
            static_library(cc, out_dir, [f for f in files if f.endswith((".S", ".c"))], f"lib{lib}.a")
        notes.append(f"{lib}: {ct_note(module)}")
        notes += techniques.notes(module, emitted)
        if task is not None:
            progress.advance(task)
    if library and not cc:
        notes.append("aarch64-linux-gnu-gcc not found: wrote .S, .c and .h only (no aarch64 library)")
    return notes


def kernel_files(e) -> dict[str, str]:
    """One schedule's kernels: <schedule>.S and its header."""
    return {f"{e.schedule.name}.S": e.asm, f"{e.schedule.name}.h": e.header}


def single_files(module, e) -> dict[str, str]:
    """A one-schedule library: its kernels and the cipher's key schedule (<cipher>_neon_key.c)."""
    return kernel_files(e) | key_files(module, e.schedule.rounds)


def dispatched_files(module, rounds: int | None = None):
    """The built library's files (every variant's kernels, the dispatcher, one key schedule and the modes),
    its prefix, the variants, their kernels."""
    vs = dispatch.variants(module, rounds)
    emitted = [emit(module, v.schedule) for v in vs]
    files: dict[str, str] = {}
    for e in emitted:
        files.update(kernel_files(e))
    rendered = dispatch.render(module, emitted, vs)
    files.update(rendered)
    prefix = next(f for f in rendered if f.endswith(".h"))[:-2]
    files.update(key_files(module, rounds))
    variants = [(e.schedule.name, v.features) for v, e in zip(vs, emitted)]
    files.update(mode_files(module, emitted[-1], variants, prefix, f"{prefix}.h", prefix))
    return files, prefix, vs, emitted
