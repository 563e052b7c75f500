"""``cipherspec encrypt/decrypt --mode gcm|ccm|xts`` and ``cipherspec mac --mode cmac``, streamed.

Each mode is a chunk transform for driver.pump (``update(buf, n)`` / ``final(buf, n)`` -> pieces to
write), over cipherspec.aead's dispatch: a target's own implementation when it has one (the C
library's ``gcm_stream``, ``xts_encrypt``, ...), else the generic definition over its block function.

  * GCM, CCM: output = ciphertext || tag.  Decryption takes the last ``--tag-len`` bytes of the input as
    the tag and releases no plaintext before it verifies: the output is held (``-o FILE``: its temporary
    file; stdout: an anonymous temporary file, copied out after the tag verified) and dropped on
    ``authentication failed``.  CCM needs the data's length before its first byte: a regular file's size,
    else (a pipe, --hex) the input is first copied to an anonymous temporary file.
  * XTS: the input is cut into data units of ``--sector-size`` bytes (default 512); sector i is encrypted
    under tweak IV + i, little-endian over 128 bits (disk encryption's sector numbers); the last sector
    may be shorter but not under 16 bytes.  The key is two cipher keys (key1 || key2).

    cmd_aead(args, "decrypt");  cmd_mac(args, out)      (their options: driver/streaming.py)
"""

from __future__ import annotations

from cipherspec import aead
from cipherspec.aead import ccm, gcm, xts
from cipherspec.aead.common import require_block, verify
from cipherspec.errors import UsageError

from . import keyinput
from .fileio import HexReader, fill, open_input, spool
from .quickload import load_cipher

NONCE_BYTES = 12  # the usual GCM/CCM nonce: a raw nonce in a file is this long (hex: any length)
SECTOR_BYTES = 512
NATIVE = {  # what a target must have to run the mode without the generic definition over its block function
    "gcm": ("gcm_stream",),
    "ccm": ("ccm_stream",),
    "xts": ("xts_encrypt", "xts_decrypt"),
    "cmac": ("cmac_stream",),
}


# ---------------------------------------------------------------------------------------------- transforms
class TagAppended:
    """GCM/CCM encryption: every chunk in place, the tag after the last."""

    def __init__(self, stream, finish):
        self.stream, self.finish = stream, finish

    def update(self, buf, n: int) -> list:
        view = memoryview(buf).cast("B")[:n]
        view[:] = self.stream.update(view)
        return [view]

    def final(self, buf, n: int) -> list:
        return self.update(buf, n) + [self.finish()]


class TagAtEnd:
    """GCM/CCM decryption: the input's last ``tag_len`` bytes are the tag (held back from chunk to chunk);
    ``final`` raises AuthenticationError when it does not verify."""

    def __init__(self, stream, tag_len: int, mode: str):
        self.stream, self.tag_len, self.mode = stream, tag_len, mode
        self.held = b""
        self.total = 0

    def _split(self, buf, n: int) -> tuple[bytes, bytes]:
        self.total += n
        data = self.held + bytes(memoryview(buf).cast("B")[:n])
        cut = max(len(data) - self.tag_len, 0)
        return data[:cut], data[cut:]

    def update(self, buf, n: int) -> list:
        body, self.held = self._split(buf, n)
        return [self.stream.update(body)]

    def final(self, buf, n: int) -> list:
        body, tag = self._split(buf, n)
        if len(tag) < self.tag_len:
            raise UsageError(
                f"{self.mode}: the input is {self.total} bytes, shorter than the {self.tag_len}-byte tag "
                "(a ciphertext ends with its tag)"
            )
        out = self.stream.update(body)
        self.stream.finish_decrypt(tag)
        return [out]


class Sectors:
    """XTS over consecutive sectors: sector i under tweak IV + i (little-endian); chunks are whole sectors."""

    def __init__(self, c, key: bytes, first_tweak: bytes, sector: int, direction: str):
        self.c, self.key, self.first, self.sector, self.direction = c, key, first_tweak, sector, direction
        self.done = 0  # sectors so far
        self.native = all(aead.native(c, name) for name in NATIVE["xts"])

    def _run(self, buf, n: int) -> list:
        view = memoryview(buf).cast("B")[:n]
        if self.native:
            name = f"xts_{self.direction}"
            out = b"".join(
                getattr(self.c, name)(
                    self.key, xts.sector_tweak(self.first, self.done + i), bytes(view[off : off + self.sector])
                )
                for i, off in enumerate(range(0, n, self.sector))
            )
        else:
            first = xts.sector_tweak(self.first, self.done)
            out = xts.xts_sectors(self.c, self.key, first, bytes(view), self.sector, self.direction)
        view[:] = out
        self.done += -(-n // self.sector)
        return [view]

    def update(self, buf, n: int) -> list:
        return self._run(buf, n)

    def final(self, buf, n: int) -> list:
        total = self.done * self.sector + n
        check_sectors(total, self.sector)
        return self._run(buf, n)


def check_sectors(total: int, sector: int) -> None:
    """The one-line error for an input the sector model cannot take (empty, or a last sector under 16 bytes)."""
    last = total % sector
    if total == 0:
        raise UsageError("XTS: the input is empty (a sector is at least 16 bytes)")
    if 0 < last < 16:
        raise UsageError(
            f"XTS: the input is {total} bytes: its last sector would be {last} byte{'s' if last != 1 else ''}, under the 16 XTS needs "
            f"(--sector-size {sector})"
        )


# ---------------------------------------------------------------------------------------------- arguments
def load(args, mode: str, c=None):
    """The cipher object: the quick C load (ctypes only: enough to check the arguments), then, given
    that one back, the full target object when the mode needs the block function and the quick one has
    neither it nor the mode's own entry points."""
    if c is None:
        return load_cipher(args.spec or [], args.cipher, args.rounds, args.target, args.schedule)
    if hasattr(c, "encrypt_blocks") or all(aead.native(c, n) for n in NATIVE[mode]):
        return c
    from cipherspec.registry import Registry

    from .targets import make_cipher

    return make_cipher(Registry(extra=args.spec or []), args.cipher, args.rounds, args.target, args.schedule)


def read_aad(args) -> bytes:
    if args.aad is not None and args.aad_file is not None:
        raise UsageError("give the AAD once: --aad and --aad-file were both given")
    if args.aad is not None:
        return keyinput.parse_hex(args.aad.encode(), "--aad")
    if args.aad_file is not None:
        try:
            with open(args.aad_file, "rb") as f:
                return f.read()
        except OSError as e:
            raise UsageError(f"--aad-file {args.aad_file}: cannot read: {e.strerror}") from None
    return b""


def _nonce(args, c, mode: str, stdin_busy: bool) -> bytes:
    iv = keyinput.read(args, keyinput.IV, NONCE_BYTES, c.name, stdin_busy, nonce=True)
    if iv is None:
        raise UsageError(
            f"{mode.upper()} needs a nonce: --iv HEX ({NONCE_BYTES} bytes is usual), --iv-file PATH, --iv-fd N "
            f"or ${keyinput.IV.env}"
        )
    return iv


def _key(args, c, length: int, owner: str, stdin_busy: bool) -> bytes:
    key = keyinput.read(args, keyinput.KEY, length, owner, stdin_busy)
    if key is None:
        raise UsageError(f"no key: give --key-file PATH, --key-fd N, ${keyinput.KEY.env} or --key HEX")
    return key


# ---------------------------------------------------------------------------------------------- commands
def _xts_args(args, c, stdin_busy: bool) -> tuple[bytes, bytes, int]:
    """(key1 || key2, the first sector's tweak, the sector size), each checked."""
    require_block(c, "XTS", (16,))
    key = _key(args, c, 2 * c.key_bytes, f"{c.name} XTS (key1 || key2)", stdin_busy)
    xts.split_key(c, key)
    sector = SECTOR_BYTES if args.sector_size is None else args.sector_size
    if not 16 <= sector <= 16 * xts.MAX_BLOCKS:
        raise UsageError(f"--sector-size: XTS data units are 16 to {16 * xts.MAX_BLOCKS} bytes, got {sector}")
    tweak = keyinput.read(args, keyinput.IV, 16, c.name, stdin_busy)
    if tweak is None:
        raise UsageError(
            "XTS needs the first sector's 16-byte tweak: --iv HEX (sector 0: 32 zeros), --iv-file PATH, "
            f"--iv-fd N or ${keyinput.IV.env}"
        )
    if len(tweak) != 16:
        raise UsageError(f"XTS: the tweak is 16 bytes, got {len(tweak)}")
    return key, tweak, sector


def _aead_args(args, c, mode: str, stdin_busy: bool) -> tuple[bytes, bytes, bytes, int]:
    """(key, nonce, AAD, tag length) of GCM or CCM, each checked."""
    require_block(c, mode.upper(), (16,))
    key = _key(args, c, c.key_bytes, c.name, stdin_busy)
    c.check_key(key)
    iv, aad = _nonce(args, c, mode, stdin_busy), read_aad(args)
    tag_len = 16 if args.tag_len is None else args.tag_len
    if mode == "gcm":
        if not iv:
            raise UsageError("GCM: the IV is empty")
        gcm.check_tag_length("GCM", tag_len, gcm.TAG_LENGTHS)
    else:
        ccm.check_params(iv, 0, tag_len)
    return key, iv, aad, tag_len


def _check_size(mode: str, direction: str, size: int | None, tag_len: int, sector: int, iv: bytes) -> None:
    """What the input's length alone refuses, when it is known: before any output."""
    if size is None:
        return
    if mode == "xts":
        check_sectors(size, sector)
    elif direction == "decrypt" and size < tag_len:
        raise UsageError(
            f"{mode.upper()}: the input is {size} bytes, shorter than the {tag_len}-byte tag "
            "(a ciphertext ends with its tag)"
        )
    elif mode == "ccm":
        ccm.check_params(iv, size - (tag_len if direction == "decrypt" else 0), tag_len)


def cmd_aead(args, direction: str) -> int:
    from .output import _chunk_bytes, _stream_to_output
    from .pump import pump

    mode = args.mode
    c = load(args, mode)
    stdin_busy = args.input in (None, "-")
    iv, aad, tag_len, sector = b"", b"", 16, SECTOR_BYTES
    if mode == "xts":
        key, tweak, sector = _xts_args(args, c, stdin_busy)
    else:
        key, iv, aad, tag_len = _aead_args(args, c, mode, stdin_busy)
    src = open_input(args.input)
    try:
        reader = HexReader(src) if args.hex else src
        if mode == "ccm":
            reader = spool(reader)  # B0 holds the length: a pipe or hex input is measured first
        _check_size(mode, direction, reader.size, tag_len, sector, iv)
        c = load(args, mode, c)
        transform: Sectors | TagAppended | TagAtEnd
        if mode == "xts":
            transform = Sectors(c, key, tweak, sector, direction)
        elif mode == "gcm":
            stream = aead.gcm_stream(c, c.expand_key(key), iv, direction)
            stream.aad(aad)
            if direction == "encrypt":
                transform = TagAppended(stream, lambda: stream.finish_encrypt(tag_len))
            else:
                transform = TagAtEnd(stream, tag_len, "GCM")
        else:
            data_len = reader.size - (tag_len if direction == "decrypt" else 0)
            stream = aead.ccm_stream(c, c.expand_key(key), iv, direction, aad, data_len, tag_len)
            if direction == "encrypt":
                transform = TagAppended(stream, stream.finish_encrypt)
            else:
                transform = TagAtEnd(stream, tag_len, "CCM")
        chunk = _chunk_bytes(c)
        if mode == "xts":
            chunk = max(chunk // sector, 1) * sector
        _stream_to_output(
            args,
            f"{direction} {c.name}",
            None if args.hex else src.size,
            lambda writer, progress: pump(reader, transform, writer, chunk, slack=16, advance=progress.advance),
            hold=direction == "decrypt" and mode != "xts",
        )
    finally:
        src.close()
    return 0


def cmd_mac(args, out) -> int:
    """CMAC of a file or stdin: one line of hex (or, with --verify TAG, nothing and the exit status)."""
    if args.mode != "cmac":
        raise UsageError(f"unknown MAC mode '{args.mode}' (modes: cmac)")
    c = load(args, "cmac")
    stdin_busy = args.input in (None, "-")
    key = _key(args, c, c.key_bytes, c.name, stdin_busy)
    c.check_key(key)
    expected = None
    tag_len = args.tag_len
    if args.verify is not None:
        expected = keyinput.parse_hex(args.verify.encode(), "--verify")
        if tag_len is not None and tag_len != len(expected):
            raise UsageError(f"--verify has {len(expected)} bytes but --tag-len is {tag_len}")
        tag_len = len(expected)
    tag_len = c.block_bytes if tag_len is None else tag_len
    from cipherspec.aead.cmac import check_tag_length

    require_block(c, "CMAC", (8, 16))
    check_tag_length(c, tag_len)
    c = load(args, "cmac", c)
    stream = aead.cmac_stream(c, c.expand_key(key))
    src = open_input(args.input)
    try:
        reader = HexReader(src) if args.hex else src
        buf = bytearray(1 << 20)
        while True:
            n = fill(reader, buf)
            if n:
                stream.update(bytes(buf[:n]))
            if n < len(buf):
                break
    finally:
        src.close()
    tag = stream.finish(tag_len)
    if expected is not None:
        verify(expected, tag)  # AuthenticationError: "authentication failed", exit 2
        return 0
    out.write(tag.hex() + "\n")
    return 0
