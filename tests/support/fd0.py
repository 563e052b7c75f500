"""Puts a file or a pipe on file descriptor 0 for the length of a block: the streaming commands read fd 0
itself (not sys.stdin), so an in-process run of them gets its standard input this way.

    with on_fd0(tmp_path / "stdin"):        # a path (opened for reading) or an open descriptor
        rc = cli.run(["encrypt", ...])
"""

from __future__ import annotations

import contextlib
import os


@contextlib.contextmanager
def on_fd0(source):
    fd = source if isinstance(source, int) else os.open(source, os.O_RDONLY)
    saved = os.dup(0)
    os.dup2(fd, 0)
    if not isinstance(source, int):
        os.close(fd)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        os.close(saved)
