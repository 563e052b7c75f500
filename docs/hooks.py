"""MkDocs hook: a link from a page to a repository file outside docs/ (``../bench/results/c-host.md``)
must name a file that exists (the build fails otherwise, as mkdocs fails on a broken link inside
docs/); on the site it becomes the file's path in code, since the site holds only docs/.

    [c-host.md](../bench/results/c-host.md)   ->   [c-host.md](`bench/results/c-host.md`)  (text only)
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

_LINK = re.compile(r"\[([^\]]+)\]\((\.\./[^)#\s]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown, page, config, files):
    docs = Path(config["docs_dir"]).resolve()
    here = (docs / page.file.src_path).parent

    def outside(m: re.Match) -> str:
        target = (here / m.group(2)).resolve()
        if not target.exists():
            raise PluginError(f"{page.file.src_path}: link to {m.group(2)}: no such file in the repository")
        rel = target.relative_to(docs.parent).as_posix()
        return m.group(1) if rel in m.group(1) else f"{m.group(1)} (`{rel}`)"

    return _LINK.sub(outside, markdown)
