"""The Jinja2 environment every generator uses: StrictUndefined, no autoescape, stable whitespace.

Templates hold only skeletons (prologue, loops, ABI); generators pass them plain precomputed data.

    env = template_env(Path(__file__).with_name("templates"))
    text = env.get_template("header.h.j2").render(**data)
"""
from __future__ import annotations

from pathlib import Path

import jinja2


def template_env(directory: Path) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(directory)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
