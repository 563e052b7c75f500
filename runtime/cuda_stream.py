"""Streams through the GPUs in bounded memory: CTR or ECB over a byte stream, CTR_DRBG output of any length.

    s = cipher.ctr_stream(rk, iv)                   # runtime/cuda_target.CudaCipher (ecb_stream(rk, decrypt))
    s.pipe(sys.stdin.buffer, sys.stdout.buffer, progress=lambda done: ...)   # bytes through, returns the count
    out = s.update(chunk) ... + s.finish()          # or chunk by chunk; a partial block waits for more

    d = cipher.drbg_stream(drbg, nbytes)            # drbg: cipherspec.drbg.CtrDrbg or the C library's CDrbg
    d.pipe(sys.stdout.buffer)                       # == drbg.generate(request) repeated, no additional input

Both keep two page-locked input/output buffer pairs of ``chunk`` bytes (the host side of the pipeline)
plus the GPU set's per-GPU stream buffers, whatever the length.  ``pipe`` overlaps the host and the GPUs:

    read piece k+1 (or plan it: the DRBG's host chain)   |  GPUs: H2D -> kernels -> D2H of piece k
    wait for piece k; start piece k+1                    |
    write piece k                                        |  GPUs: piece k+1

The counter carries across pieces and calls (piece k's IV = IV + blocks before it), so the output equals
one CTR call over the whole stream.
"""

from __future__ import annotations

import numpy as np

from cipherspec.drbg import MAX_BITS_PER_REQUEST
from cipherspec.errors import UsageError
from cipherspec.modes import ctr_next_iv

CHUNK = 64 << 20  # bytes per host buffer (four of them)
REQUEST = MAX_BITS_PER_REQUEST // 8


def _no_progress(done: int) -> None:
    pass


class BlockStream:
    """A mode over a byte stream through the GPUs: two page-locked input/output buffer pairs of ``chunk``
    bytes; the subclass's ``_run`` puts one piece on the GPUs (asynchronously when ``wait`` is False)."""

    mode = ""

    def __init__(self, cipher, rk, devices=None, chunk: int = CHUNK):
        self.c, self.rk, self.B = cipher, rk, cipher.block_bytes
        self.gpus = cipher.gpus(devices)
        self.chunk = max(self.B, chunk // self.B * self.B)
        self.inb = [cipher.pinned_array(self.chunk) for _ in range(2)]
        self.outb = [cipher.pinned_array(self.chunk) for _ in range(2)]
        self.pending = b""  # update(): a partial block waiting for more input
        self.ended = False  # a partial block was processed: the stream is over

    def _run(self, src: np.ndarray, dst: np.ndarray, wait: bool) -> None:
        raise NotImplementedError

    def _start(self, slot: int, n: int, wait: bool) -> None:
        """Piece of n bytes in slot's buffers onto the GPUs (n not whole blocks only at the end)."""
        if self.ended:
            raise UsageError(f"{self.mode} stream: more data after the final partial block")
        self._run(self.inb[slot][:n], self.outb[slot][:n], wait)
        self.ended = n % self.B != 0

    # ------------------------------------------------------------------ chunk by chunk
    def update(self, data) -> bytes:
        """The output of ``data``, except a trailing partial block, which waits for more (or finish())."""
        data = self.pending + bytes(data)
        whole = len(data) - len(data) % self.B
        self.pending = data[whole:]
        return self._through(data[:whole])

    def finish(self) -> bytes:
        out, self.pending = self._through(self.pending), b""
        return out

    def _through(self, data: bytes) -> bytes:
        out = []
        for off in range(0, len(data), self.chunk):
            piece = np.frombuffer(data, np.uint8, min(self.chunk, len(data) - off), off)
            self.inb[0][: piece.size] = piece
            self._start(0, piece.size, True)
            out.append(self.outb[0][: piece.size].tobytes())
        return b"".join(out)

    # ------------------------------------------------------------------ reader -> writer
    def _fill(self, reader, slot: int) -> tuple[int, bool]:
        """Reads into slot's input buffer until it is full or the reader ends: (bytes, eof)."""
        buf, n = memoryview(self.inb[slot]), 0
        while n < self.chunk:
            if hasattr(reader, "readinto"):
                got = reader.readinto(buf[n:])
            else:
                data = reader.read(self.chunk - n)
                got = len(data)
                buf[n : n + got] = data
            if not got:
                return n, True
            n += got
        return n, False

    def pipe(self, reader, writer, progress=_no_progress) -> int:
        """Everything ``reader`` gives, through the mode, to ``writer``; returns the bytes written.  Every piece
        but the last fills its buffer (a whole number of blocks), so no partial block is carried."""
        if self.pending:
            raise UsageError(f"{self.mode} stream: pipe() after update() left a partial block")
        slot, total = 0, 0
        n, eof = self._fill(reader, 0)
        if n:
            self._start(0, n, False)
        while n:
            m, more_eof = (0, True) if eof else self._fill(reader, 1 - slot)  # while the GPUs run slot
            self.gpus.sync()  # slot's output is ready
            if m:
                self._start(1 - slot, m, False)  # the GPUs work on it while slot's output is written
            writer.write(memoryview(self.outb[slot])[:n])
            total += n
            progress(total)
            slot, n, eof = 1 - slot, m, more_eof
        return total


class CtrStream(BlockStream):
    """CTR: the counter carries across pieces and calls (piece k's IV = IV + the blocks before it)."""

    mode = "CTR"

    def __init__(self, cipher, rk, iv: bytes, devices=None, chunk: int = CHUNK):
        if len(iv) != cipher.block_bytes:
            raise UsageError(f"{cipher.name} needs a {cipher.block_bytes}-byte IV, got {len(iv)} bytes")
        super().__init__(cipher, rk, devices, chunk)
        self.iv = bytes(iv)
        self.blocks = 0  # whole blocks done: the next piece's counter is IV + blocks

    def _run(self, src: np.ndarray, dst: np.ndarray, wait: bool) -> None:
        self.gpus.ctr(self.rk, ctr_next_iv(self.iv, self.blocks), src, out=dst, memory="pinned", wait=wait)
        self.blocks += src.size // self.B


class EcbStream(BlockStream):
    """ECB, either direction: the stream must end on a whole block (a partial one is refused before it is
    processed; the pieces before it are already written)."""

    mode = "ECB"

    def __init__(self, cipher, rk, decrypt: bool = False, devices=None, chunk: int = CHUNK):
        super().__init__(cipher, rk, devices, chunk)
        self.decrypt = decrypt

    def _run(self, src: np.ndarray, dst: np.ndarray, wait: bool) -> None:
        if src.size % self.B:
            raise UsageError(
                f"ECB needs a whole number of {self.B}-byte blocks; the stream ends "
                f"{src.size % self.B} bytes into a block"
            )
        self.gpus.ecb(self.rk, src, self.decrypt, out=dst, memory="pinned", wait=wait)


class DrbgStream:
    """``nbytes`` of a DRBG's output in pieces: the host chain (plan_bulk) of piece k+1 runs while the GPUs
    make piece k.  The DRBG's state afterwards equals the state after the same generate() calls."""

    def __init__(self, cipher, drbg, nbytes: int, devices=None, chunk: int = CHUNK, request_bytes: int = REQUEST):
        if nbytes < 0:
            raise UsageError(f"DRBG output: nbytes must be >= 0, got {nbytes}")
        if not 1 <= request_bytes <= REQUEST:
            raise UsageError(f"a request is at most 2^19 bits ({REQUEST} bytes), got {request_bytes}")
        self.c, self.drbg, self.left, self.req = cipher, drbg, nbytes, request_bytes
        self.gpus = cipher.gpus(devices)
        B = cipher.block_bytes
        padded = -(-request_bytes // B) * B  # a request's output with its last block whole
        self.per_piece = max(1, chunk // padded)  # requests per piece
        self.outb = [cipher.pinned_array(self.per_piece * padded) for _ in range(2)]

    def _plan(self):
        n = min(self.left, self.per_piece * self.req)
        if not n:
            return None
        self.left -= n
        plan = self.drbg.plan_bulk(n, self.req)
        return plan, *self.c.multi_arrays(plan)

    def _start(self, slot: int, piece) -> None:
        plan, keys, vs, lens = piece
        self.gpus.ctr_multi(keys, vs, lens, out=self.outb[slot][: int(lens.sum())], memory="pinned", wait=False)

    def _write(self, writer, slot: int, piece) -> int:
        plan, _, _, lens = piece
        out = self.outb[slot][: int(lens.sum())]
        if all(r.nbytes == r.nblocks * self.c.block_bytes for r in plan[:-1]):
            writer.write(memoryview(out)[: sum(r.nbytes for r in plan)])
        else:
            writer.write(self.c.drop_padding(plan, lens, out))
        return sum(r.nbytes for r in plan)

    def pipe(self, writer, progress=_no_progress) -> int:
        slot, total = 0, 0
        cur = self._plan()
        if cur:
            self._start(slot, cur)
        while cur:
            nxt = self._plan()  # the host chain, while the GPUs work
            self.gpus.sync()
            if nxt:
                self._start(1 - slot, nxt)
            total += self._write(writer, slot, cur)
            progress(total)
            slot, cur = 1 - slot, nxt
        return total

    def read(self) -> bytes:
        """All of it as bytes (memory: the output)."""
        parts: list[bytes] = []

        class _Sink:
            def write(self, b):
                parts.append(bytes(b))

        self.pipe(_Sink())
        return b"".join(parts)
