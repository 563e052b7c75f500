"""Moves an input through a chunk transform into an output, with reading, transforming and writing
overlapped: a reader thread fills buffers, the calling thread transforms them in place, a writer thread
writes the pieces.  Memory is ``nbuffers`` fixed buffers whatever the input size.

    pump(src, transform, out, chunk=4 << 20, slack=16)      # transform: update(buf, n) / final(buf, n)

The buffers circulate free -> reader -> transform -> writer -> free, so at most ``nbuffers`` chunks
are in flight.  They are anonymous mappings: the kernel hands out zeroed pages as they are first
written, where a bytearray would zero all of them first (3 x 4 MiB: ~6 ms of every start, on empty
input too).  Every chunk but the last is exactly ``chunk`` bytes (the reader fills it completely,
however short the reads of a pipe are); the last is shorter, possibly empty, and goes to ``final``.
The C library, readinto and write all release the GIL, so on two cores the cipher runs while the
previous chunk is written and the next one read.  An error in any stage stops the others and is raised
here; queued pieces behind it are dropped (the caller aborts its output).
"""

from __future__ import annotations

import mmap
import queue
import threading

from .fileio import fill


def pump(src, transform, out, chunk: int, slack: int, nbuffers: int = 3, advance=None) -> None:
    free: queue.Queue = queue.Queue()
    for _ in range(nbuffers):
        free.put(mmap.mmap(-1, chunk + slack))
    filled: queue.Queue = queue.Queue()
    written: queue.Queue = queue.Queue()
    stop = threading.Event()
    failed: list[BaseException] = []

    def reader() -> None:
        try:
            while not stop.is_set():
                buf = free.get()
                if buf is None:
                    return
                n = fill(src, memoryview(buf)[:chunk])
                filled.put((buf, n, n < chunk))
                if n < chunk:
                    return
        except BaseException as e:  # handed to the main thread, which raises it
            filled.put(e)

    def writer() -> None:
        while True:
            item = written.get()
            if item is None:
                return
            pieces, buf = item
            if not stop.is_set():
                try:
                    for piece in pieces:
                        out.write(piece)
                except BaseException as e:  # the main thread raises it at its next chunk
                    failed.append(e)
                    stop.set()
            free.put(buf)

    threads = [
        threading.Thread(target=reader, name="cipherspec-read", daemon=True),
        threading.Thread(target=writer, name="cipherspec-write", daemon=True),
    ]
    for t in threads:
        t.start()
    try:
        while True:
            item = filled.get()
            if isinstance(item, BaseException):
                raise item
            if failed:
                raise failed[0]
            buf, n, last = item
            pieces = transform.final(buf, n) if last else transform.update(buf, n)
            written.put((pieces, buf))
            if advance is not None:
                advance(n)
            if last:
                break
        written.put(None)
        threads[1].join()
        if failed:
            raise failed[0]
    except BaseException:
        stop.set()
        free.put(None)  # a reader waiting for a buffer stops; one blocked in read() is a daemon
        written.put(None)
        threads[1].join(timeout=10)  # the writer finishes at most the piece it is writing
        raise
