"""The one Jinja2 environment every generator renders with: StrictUndefined, no autoescape, stable
whitespace, and one loader over every backend's templates/ folder, named by its package.

Templates hold only skeletons (prologue, loops, ABI); generators decide in Python and pass plain
precomputed data.

    text = render("c/header.h.j2", **data)          # generator/c/templates/header.h.j2
    text = render("ptx/kernel.cu.j2", **ctx)        # generator/ptx/templates/kernel.cu.j2
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

GENERATOR = Path(__file__).resolve().parents[1]
PACKAGES = ("c", "drbg", "neon", "openssl", "ptx")


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """Built once per process: an immutable cache of parsed templates, not program state."""
    loader = jinja2.PrefixLoader({p: jinja2.FileSystemLoader(str(GENERATOR / p / "templates")) for p in PACKAGES})
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, /, **data) -> str:
    return environment().get_template(template).render(**data)
