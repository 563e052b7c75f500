"""Where the command line reads and writes bytes: files or stdin/stdout, binary or hex text, and an
output file that appears only once it is complete.

    src = open_input("in.bin")          # None or "-": stdin.  src.readinto(view), src.size (None: a pipe)
    n = fill(src, view)                 # readinto until ``view`` is full or the input ends
    out = open_output("out.bin")        # None or "-": stdout.  out.write(piece); out.commit() or out.abort()
    HexReader(src) / HexWriter(out)     # the same interfaces over hex text
    out = open_output(path, hold=True)  # nothing reaches stdout (or a FIFO) before commit: AEAD decryption
    src = spool(src)                    # an input of unknown length (a pipe, hex) copied to a temporary file

``-o FILE`` writes a temporary file beside FILE (same directory, so the rename cannot cross file
systems); ``commit`` fsyncs it, renames it over FILE and fsyncs the directory; ``abort`` deletes it, so
FILE is either untouched or complete.  A FILE that exists and is not a regular file (/dev/null, a FIFO)
is written directly: there is nothing to rename over.  On stdout what was written stays written.
Read and write errors become one-line UsageErrors that name the file.

A pipe on either side is widened to PIPE_BYTES (F_SETPIPE_SZ, Linux; 1 MiB is the default limit for
users): with the kernel's 64 KiB a writer such as ``head`` is woken for every 64 KiB and the reads
return 10-20 KiB each; at 1 MiB a 4 MiB chunk takes a handful of reads (bench/results/cli.md).
"""

from __future__ import annotations

import binascii
import fcntl
import os
import stat
import sys
import tempfile
from pathlib import Path

from cipherspec.errors import UsageError

WHITESPACE = b" \t\r\n\v\f"
PIPE_BYTES = 1 << 20


def widen_pipe(fd: int, mode: int) -> None:
    """Asks for a PIPE_BYTES pipe buffer when ``fd`` is a pipe; a refusal (limits, not Linux) changes nothing."""
    setter = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setter is None or not stat.S_ISFIFO(mode):
        return
    try:
        if fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) < PIPE_BYTES:
            fcntl.fcntl(fd, setter, PIPE_BYTES)
    except OSError:
        pass


def _is_std(path) -> bool:
    return path is None or str(path) == "-"


class Input:
    """A binary input read with readinto (a raw FileIO: no buffering layer, no copies)."""

    def __init__(self, path=None):
        self.name = "standard input" if _is_std(path) else str(path)
        try:
            self.raw = open(0, "rb", buffering=0, closefd=False) if _is_std(path) else open(path, "rb", buffering=0)
            st = os.fstat(self.raw.fileno())
        except OSError as e:
            raise UsageError(f"cannot read {self.name}: {e.strerror}") from None
        self.size = st.st_size if stat.S_ISREG(st.st_mode) else None
        widen_pipe(self.raw.fileno(), st.st_mode)

    def readinto(self, view) -> int:
        try:
            return self.raw.readinto(view) or 0
        except OSError as e:
            raise UsageError(f"cannot read {self.name}: {e.strerror}") from None

    def close(self) -> None:
        self.raw.close()


def open_input(path=None) -> Input:
    return Input(path)


def fill(src, view) -> int:
    """Reads into ``view`` until it is full or the input ends (a pipe returns what it has): the count."""
    view = memoryview(view).cast("B")
    got = 0
    while got < len(view):
        k = src.readinto(view[got:])
        if not k:
            break
        got += k
    return got


class HexReader:
    """Hex text in, bytes out (whitespace and newlines ignored anywhere): readinto like a binary input."""

    def __init__(self, src):
        self.src, self.name, self.size = src, src.name, None
        self._carry = b""  # an odd digit left from the previous read
        self._digits = 0  # hex digits consumed: where an error is
        self._text = bytearray()  # the text buffer, reused

    def readinto(self, view) -> int:
        view = memoryview(view).cast("B")
        if len(self._text) < 2 * len(view):
            self._text = bytearray(2 * len(view))
        text = self._text
        while True:
            k = self.src.readinto(memoryview(text)[: 2 * len(view)])
            if not k:
                if self._carry:
                    raise UsageError(f"hex input from {self.name}: odd number of hex digits ({self._digits + 1})")
                return 0
            digits = self._carry + bytes(text[:k]).translate(None, WHITESPACE)
            even = len(digits) & ~1
            if even:
                break
            self._carry = digits
        try:
            data = binascii.unhexlify(digits[:even])
        except binascii.Error:
            bad = next(i for i, ch in enumerate(digits) if chr(ch) not in "0123456789abcdefABCDEF")
            raise UsageError(f"hex input from {self.name}: not hex at digit {self._digits + bad + 1}") from None
        self._carry = digits[even:]
        self._digits += even
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.src.close()


# ---------------------------------------------------------------------------------------------- output
def _write_all(raw, piece, name: str) -> None:
    view = memoryview(piece).cast("B")
    try:
        while len(view):
            k = raw.write(view)
            view = view[k:]
    except BrokenPipeError:
        raise
    except OSError as e:
        raise UsageError(f"cannot write {name}: {e.strerror}") from None


class StdOutput:
    """Standard output, unbuffered: what is written stays written, even when a later step fails."""

    name = "standard output"

    def __init__(self):
        sys.stdout.flush()  # what Python buffered for fd 1 goes first
        self.raw = open(1, "wb", buffering=0, closefd=False)
        try:
            widen_pipe(1, os.fstat(1).st_mode)
        except OSError:
            pass

    def write(self, piece) -> None:
        _write_all(self.raw, piece, self.name)

    def commit(self) -> None:
        pass

    def abort(self) -> None:
        pass


class FileOutput:
    """``-o FILE``: a temporary file beside FILE until commit (see the module docstring)."""

    def __init__(self, path) -> None:
        self.path = Path(path)
        self.name = str(path)
        self.tmp: Path | None = None
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise UsageError(f"cannot write {self.name}: {e.strerror}") from None
        try:
            if st is not None and not stat.S_ISREG(st.st_mode):
                if stat.S_ISDIR(st.st_mode):
                    raise UsageError(f"cannot write {self.name}: it is a directory")
                self.raw = open(self.path, "wb", buffering=0)  # a device or FIFO: written in place
                widen_pipe(self.raw.fileno(), st.st_mode)
                return
            fd = self._create_temp()
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))  # replacing a file keeps its permissions
            self.raw = open(fd, "wb", buffering=0)
        except OSError as e:
            raise UsageError(f"cannot write {self.name}: {e.strerror}") from None

    def _create_temp(self) -> int:
        """A new file beside the destination, mode 0666 less the umask (as the destination would get)."""
        for _ in range(100):
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            except FileExistsError:
                continue
            self.tmp = tmp
            return fd
        raise UsageError(f"cannot write {self.name}: no free temporary name beside it")

    def write(self, piece) -> None:
        _write_all(self.raw, piece, self.name)

    def commit(self) -> None:
        try:
            if self.tmp is not None:
                os.fsync(self.raw.fileno())
            self.raw.close()
            if self.tmp is not None:
                os.replace(self.tmp, self.path)
                self.tmp = None
                _fsync_dir(self.path.parent)
        except OSError as e:
            self.abort()
            raise UsageError(f"cannot write {self.name}: {e.strerror}") from None

    def abort(self) -> None:
        try:
            self.raw.close()
        except OSError:
            pass
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            self.tmp = None


def _fsync_dir(path: Path) -> None:
    """The rename itself survives a crash only once the directory is synced (ext4, xfs)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the data itself is synced
    finally:
        os.close(fd)


class HeldOutput:
    """An output written only on commit: until then the bytes go to an anonymous temporary file (in
    $TMPDIR, unlinked from the start, so nothing is left behind whatever happens), copied to the real
    output by ``commit``; ``abort`` drops them.  Memory stays constant; the disk holds one copy."""

    def __init__(self, sink):
        self.sink, self.name = sink, sink.name
        try:
            self.tmp = tempfile.TemporaryFile(buffering=0)
        except OSError as e:
            raise UsageError(f"cannot create a temporary file in {tempfile.gettempdir()}: {e.strerror}") from None

    def write(self, piece) -> None:
        _write_all(self.tmp, piece, f"a temporary file in {tempfile.gettempdir()}")

    def commit(self) -> None:
        buf = bytearray(1 << 20)
        try:
            self.tmp.seek(0)
            while True:
                k = self.tmp.readinto(buf)
                if not k:
                    break
                self.sink.write(memoryview(buf)[:k])
            self.tmp.close()
        except OSError as e:
            self.abort()
            raise UsageError(f"cannot read back a temporary file: {e.strerror}") from None
        self.sink.commit()

    def abort(self) -> None:
        self.tmp.close()
        self.sink.abort()


def open_output(path=None, hold: bool = False):
    """stdout or ``-o FILE``; with ``hold``, nothing is written anywhere before ``commit`` (FILE's own
    temporary file does that already; stdout, a FIFO or a device get a HeldOutput)."""
    out = StdOutput() if _is_std(path) else FileOutput(path)
    if hold and not (isinstance(out, FileOutput) and out.tmp is not None):
        return HeldOutput(out)
    return out


class Spooled:
    """An input copied to an anonymous temporary file, so that its length is known (``size``)."""

    def __init__(self, src) -> None:
        self.name = src.name
        try:
            self.raw = tempfile.TemporaryFile(buffering=0)
        except OSError as e:
            raise UsageError(f"cannot create a temporary file in {tempfile.gettempdir()}: {e.strerror}") from None
        buf = bytearray(1 << 20)
        size = 0
        while True:
            k = src.readinto(buf)
            if not k:
                break
            _write_all(self.raw, memoryview(buf)[:k], f"a temporary file in {tempfile.gettempdir()}")
            size += k
        self.raw.seek(0)
        self.size = size

    def readinto(self, view) -> int:
        return self.raw.readinto(view) or 0

    def close(self) -> None:
        self.raw.close()


def spool(src):
    """``src`` itself when its length is known (a regular file, read as binary), else a Spooled copy."""
    return src if getattr(src, "size", None) is not None else Spooled(src)


class HexWriter:
    """Bytes in, one line of lowercase hex out (ended by ``end``)."""

    def __init__(self, out):
        self.out, self.name = out, out.name

    def write(self, piece) -> None:
        self.out.write(binascii.hexlify(memoryview(piece).cast("B")))

    def end(self) -> None:
        self.out.write(b"\n")

    def commit(self) -> None:
        self.out.commit()

    def abort(self) -> None:
        self.out.abort()
