"""Render the CTR_DRBG C files for one cipher library.  The template is the skeleton; sizes come from the IR.

    emit_drbg(module, prefix="lea128") -> {"include/lea128_drbg.h": "...", "src/lea128_drbg.c": "..."}
"""
from __future__ import annotations

from pathlib import Path

import jinja2

from cipherspec.ir import Module

_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).with_name("templates"))),
                          undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)


def emit_drbg(module: Module, prefix: str) -> dict[str, str]:
    key_bytes, block_bytes = module.key.nbytes, module.block.nbytes
    data = dict(P=prefix, P_UP=prefix.upper(), cipher=module.cipher, key_bytes=key_bytes,
                block_bytes=block_bytes, seed_bytes=key_bytes + block_bytes, security_bytes=min(key_bytes, 32))
    return {f"include/{prefix}_drbg.h": _ENV.get_template("drbg.h.j2").render(**data),
            f"src/{prefix}_drbg.c": _ENV.get_template("drbg.c.j2").render(**data)}


def drbg_sources(prefix: str) -> list[str]:
    """The C sources emit_drbg adds to a library (for the compile step)."""
    return [f"src/{prefix}_drbg.c"]
