"""One cipher under one C schedule -> the text of its library (deterministic).

    files = generate(module, schedule)
      -> {"include/aes128.h":            the API (header.h.j2)
          "src/aes128.c":                set_key, the modes, run-time dispatch (library.py), compiled once
          "src/aes128_aesni.c":          kernels (aesni/), compiled once per AES-NI/VAES ISA level
          "src/aes128_bitsliced_v32.c":  kernels (portable.py), compiled once per portable ISA level
          "include/aes128_drbg.h", "src/aes128_drbg.c": CTR_DRBG over the API}

Which kernels and ISA levels a library carries is variants.py's decision; build.py compiles the objects.
"""

from __future__ import annotations

import os

from cipherspec.ir import KeyArray, Module
from cipherspec.schedule import Schedule
from cipherspec.version import __version__
from runtime.c_abi import CIPHER_CODES, define_lines

from ..common.templates import render
from ..drbg.emit import drbg_sources, emit_drbg
from . import bitsliced as bs
from .body import injected
from .library import CMAC_RB, library_source
from .portable import kernel_source
from .prepare import prepare
from .schedules import CONSTANT_TIME, secret_lookups
from .text import kernel_tag
from .variants import LEVELS, compiled_kernels, variants


def has_gfni_sboxes(module: Module) -> bool:
    from .aesni import has_gfni_sboxes as gfni

    return gfni(module)


def ct_note(module: Module, schedule: Schedule) -> str:
    """One line on timing side channels, for the source banners and `cipherspec build`'s notes."""
    if schedule.layout == "aesni" and has_gfni_sboxes(module):
        return (
            "Constant-time: GFNI or AES-NI/VAES kernels (affine maps and inversion on bytes, byte shuffles, no "
            "table lookups) where the CPU has them, bitsliced kernels elsewhere; set_key evaluates S-boxes as "
            "Boolean circuits."
        )
    if schedule.layout == "aesni":
        return (
            "Constant-time: AES-NI/VAES kernels (AES instructions, byte shuffles, no table lookups) where "
            "the CPU has AES-NI, bitsliced kernels elsewhere; set_key evaluates S-boxes as Boolean circuits."
        )
    if schedule.layout == "bitsliced":
        return (
            "Constant-time: bitsliced, S-boxes as Boolean circuits, no table lookups and no "
            "data- or key-dependent branches or addresses, in set_key and in every mode."
        )
    secret = prepare(module, schedule).secret_tables()
    if secret:
        return (
            f"NOT constant-time: secret-indexed tables {', '.join(secret)} "
            "(timing may leak key and data through the cache)."
        )
    return "Constant-time: no secret-indexed table lookups, no secret-dependent branches."


def is_constant_time(module: Module, schedule: Schedule) -> bool:
    return schedule.layout in CONSTANT_TIME or not secret_lookups(module)


def _key_array_doc(arr: KeyArray) -> str:
    return f"{arr.name}: u{arr.width}" + "".join(f"[{n}]" for n in arr.shape) + ", flattened"


def _kernel_source(module: Module, kernel: Schedule) -> str:
    if kernel.layout == "aesni":
        from .aesni import kernel_source as aesni_source

        return aesni_source(module, kernel, ct_note(module, kernel))
    return kernel_source(module, kernel, ct_note(module, kernel))


def generate(module: Module, schedule: Schedule) -> dict[str, str]:
    """The files of one library; remembered on the module (a lowered module is never changed), since the
    targets of one run (the host library, cross builds, the provider, harnesses) ask for the same text."""
    memo = module.__dict__.setdefault("_c_sources", {})
    key = (schedule, injected())
    if key not in memo:
        memo[key] = _generate(module, schedule)
    return dict(memo[key])


def _generate(module: Module, schedule: Schedule) -> dict[str, str]:
    P = module.cipher
    note = ct_note(module, schedule)
    ks = compiled_kernels(module, schedule)
    header = {
        "P": P,
        "P_UP": P.upper(),
        "cipher": P,
        "version": __version__,
        "spec_file": os.path.basename(module.source) if module.source else "?",
        "schedule": schedule.name,
        "rounds": module.rounds,
        "ct_note": note,
        "block_bytes": module.block.nbytes,
        "key_bytes": module.key.nbytes,
        "key_planes": bs.key_planes(module) if any(k.layout == "bitsliced" for k in ks) else 0,
        "key_arrays": [
            {"name": a.name, "ctype": f"uint{a.width}_t", "count": len(a.flat_names()), "doc": _key_array_doc(a)}
            for a in module.key_arrays
        ],
        "error_defines": "\n".join(define_lines(CIPHER_CODES)),
        "levels": ", ".join(lv.name for lv in LEVELS),
        "example": variants(module, schedule)[0].name,
        "cmac": module.block.nbytes in CMAC_RB,
    }
    files = {f"include/{P}.h": render("c/header.h.j2", **header), f"src/{P}.c": library_source(module, schedule, note)}
    for k in ks:
        files[f"src/{P}_{kernel_tag(k)}.c"] = _kernel_source(module, k)
    files.update(emit_drbg(module, P))  # CTR_DRBG over this library's own API
    return files


def library_sources(module: Module, schedule: Schedule) -> list[str]:
    """The C sources compiled once (no ISA flags): the library and its CTR_DRBG."""
    return [f"src/{module.cipher}.c"] + drbg_sources(module.cipher)
