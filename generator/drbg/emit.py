"""Render the CTR_DRBG C files for one cipher library.  The template is the skeleton; sizes come from the IR.

emit_drbg(module, prefix="lea128") -> {"include/lea128_drbg.h": "...", "src/lea128_drbg.c": "..."}
"""

from __future__ import annotations

from cipherspec.ir import Module
from runtime.c_abi import DRBG_CODES, define_lines

from ..common.templates import render


def emit_drbg(module: Module, prefix: str) -> dict[str, str]:
    key_bytes, block_bytes = module.key.nbytes, module.block.nbytes
    data = dict(
        P=prefix,
        P_UP=prefix.upper(),
        cipher=module.cipher,
        key_bytes=key_bytes,
        block_bytes=block_bytes,
        seed_bytes=key_bytes + block_bytes,
        security_bytes=min(key_bytes, 32),
        error_defines="\n".join(define_lines(DRBG_CODES, comments=True)),
    )
    return {
        f"include/{prefix}_drbg.h": render("drbg/drbg.h.j2", **data),
        f"src/{prefix}_drbg.c": render("drbg/drbg.c.j2", **data),
    }


def drbg_sources(prefix: str) -> list[str]:
    """The C sources emit_drbg adds to a library (for the compile step)."""
    return [f"src/{prefix}_drbg.c"]
