"""A transfer display on stderr for long runs of encrypt, decrypt and drbg: quiet unless it helps.

It appears only when stderr is a terminal, and only for a large input: one of known size at least
``threshold`` bytes (a file), or, of unknown size (a pipe), once that many bytes have passed.  It is
transient (erased when done), so a terminal keeps only the command's real output and errors; rich is
imported only when the display actually starts.

    p = TransferProgress("encrypt lea128", total=None)    # total: bytes, or None when unknown
    p.advance(4 << 20) ...                                # from the one thread that drives the work
    p.close()

    with working("preparing lea128 ..."):                 # a transient status line while a library is built
        ...
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn, TaskID

THRESHOLD = 64 << 20


class TransferProgress:
    def __init__(self, label: str, total: int | None, stream=None, threshold: int = THRESHOLD):
        self.stream = stream if stream is not None else sys.stderr
        self.label, self.total, self.threshold = label, total, threshold
        self.enabled = _isatty(self.stream) and (total is None or total >= threshold)
        self.done = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def advance(self, nbytes: int) -> None:
        self.done += nbytes
        if not self.enabled:
            return
        if self._progress is None:
            if self.total is None and self.done < self.threshold:
                return
            self._start()
        assert self._progress is not None and self._task is not None  # _start made them
        self._progress.update(self._task, completed=self.done)

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        columns: list[ProgressColumn] = [TextColumn("{task.description}")]
        if self.total is not None:
            columns += [BarColumn(), TimeRemainingColumn()]
        columns += [DownloadColumn(binary_units=True), TransferSpeedColumn()]
        progress = Progress(*columns, console=Console(file=self.stream), transient=True)
        progress.start()
        self._task = progress.add_task(self.label, total=self.total)
        self._progress = progress

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


@contextlib.contextmanager
def working(label: str | None, stream=None):
    """A transient spinner with ``label`` on stderr while the block runs, when stderr is a terminal; else
    (or with no label) nothing."""
    stream = stream if stream is not None else sys.stderr
    if label is None or not _isatty(stream):
        yield
        return
    from rich.console import Console

    with Console(file=stream).status(label):
        yield


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
