"""Where a streaming command's bytes go, and in what chunks: -o FILE (appears only complete) or stdout, hex
with --hex, a progress line, SIGTERM unwinding like Ctrl-C; the chunk size per target.  Shared by
streaming.py (encrypt, decrypt, drbg) and aeadcmd.py (GCM, CCM, XTS, CMAC), apart from both.

    _stream_to_output(args, "encrypt lea128", total, lambda writer, progress: ...)
    _chunk_bytes(cipher)   ->  4 MiB on the C target, a multiple of the block and of every lane group
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

from cipherspec.errors import UsageError

CHUNK_BYTES = {"ref": 64 << 10, "cuda": 16 << 20}  # the interpreter's memory grows with its batch
DEFAULT_CHUNK_BYTES = 4 << 20
MAX_LANES = 256  # every schedule's lane count divides it (bitsliced v32: 256 blocks)


def _chunk_bytes(cipher) -> int:
    """Bytes per chunk: a few MiB, a multiple of the block and of any schedule's lane group, so every
    chunk but the last runs whole lane groups.  $CIPHERSPEC_CHUNK_BYTES (tests) sets it, in whole blocks."""
    block = cipher.block_bytes
    text = os.environ.get("CIPHERSPEC_CHUNK_BYTES")
    if text:
        if not text.isdigit() or int(text) < 1:
            raise UsageError(f"$CIPHERSPEC_CHUNK_BYTES must be a positive integer, got {text!r}")
        return max(int(text) // block, 1) * block
    unit = block * MAX_LANES
    return max(CHUNK_BYTES.get(cipher.target, DEFAULT_CHUNK_BYTES) // unit, 1) * unit


def _stream_to_output(args, label: str, total: int | None, work, hold: bool = False) -> None:
    """Opens the output (-o FILE or stdout, hex with --hex), runs ``work(writer, progress)`` and commits;
    on any failure the output is aborted: -o FILE is left as it was.  ``hold``: stdout too gets nothing
    before the commit (fileio.HeldOutput)."""
    from .fileio import HexWriter, open_output
    from .progress import TransferProgress

    sink = open_output(args.output, hold=hold)
    writer = HexWriter(sink) if args.hex else sink
    progress = TransferProgress(label, total)
    try:
        with _terminate_as_interrupt():
            work(writer, progress)
            if args.hex:
                writer.end()
            progress.close()
            sink.commit()
    except BaseException:
        progress.close()
        sink.abort()
        raise


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (kill, a timeout) unwinds like Ctrl-C, so the temporary output file is removed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
