"""Keys, IVs and DRBG entropy from where a user can keep them off the command line.

A value on the command line (``--key HEX``) can be read by every user of the machine in the process
list (ps, /proc/PID/cmdline).  A file, an inherited file descriptor or the environment cannot (the
environment is readable by the same user and root only).

    add_options(parser, KEY)                    # --key HEX, --key-file PATH, --key-fd N  ($CIPHERSPEC_KEY)
    read(args, KEY, length=16, owner="lea128")  -> bytes, or None when none of them was given

At most one of the options may be given; any of them overrides the environment variable.
File and descriptor contents (read to the end, at most 64 KiB):
  * a fixed-length value (key, IV) of L bytes: EXACTLY L bytes is the raw value; anything else must
    be hex text of L bytes, whitespace and newlines allowed anywhere.  This is never ambiguous: hex
    text of L bytes has at least 2L characters, so a content of L bytes can only be the raw value.
    One such content is refused all the same: L bytes that are all hex digits are the hex of an
    L/2-byte value (the wrong length) far more likely than a raw key (a random key is all hex digits
    with probability (22/256)^L);
  * a variable-length value (DRBG entropy): raw bytes, the whole content;
  * a nonce of any length (GCM, CCM; ``read(..., nonce=True)``): EXACTLY L bytes (the usual length, 12)
    is the raw nonce, anything else hex text of any length; L bytes of hex digits are refused as above.
The command-line option and the environment variable hold hex.  Error messages never echo a value.
"""

from __future__ import annotations

import binascii
import os
from typing import NamedTuple

from cipherspec.errors import UsageError

MAX_BYTES = 64 << 10
WHITESPACE = b" \t\r\n\v\f"
HEX_DIGITS = b"0123456789abcdefABCDEF"


class Material(NamedTuple):  # not a dataclass: dataclasses imports inspect (~10 ms of start-up)
    name: str  # the option stem: --key, --key-file, --key-fd
    what: str  # in help and errors: "key"
    env: str  # the environment variable (hex)
    secret: bool  # the help of --NAME HEX warns about the process list
    fixed: bool  # of the cipher's length (raw-or-hex contents) or variable (raw contents)


KEY = Material("key", "key", "CIPHERSPEC_KEY", secret=True, fixed=True)
IV = Material("iv", "IV", "CIPHERSPEC_IV", secret=False, fixed=True)
ENTROPY = Material("entropy", "entropy input", "CIPHERSPEC_ENTROPY", secret=True, fixed=False)


def _dest(m: Material, suffix: str = "") -> str:
    return m.name + suffix.replace("-", "_")


def add_options(parser, m: Material) -> None:
    warn = (
        (f"; VISIBLE to other users in the process list: prefer --{m.name}-file, --{m.name}-fd or ${m.env}")
        if m.secret
        else ""
    )
    contents = (
        f"the raw {m.what} bytes, or hex text (whitespace ignored)" if m.fixed else "raw bytes, the whole content"
    )
    parser.add_argument(f"--{m.name}", metavar="HEX", help=f"{m.what} in hex{warn}")
    parser.add_argument(f"--{m.name}-file", metavar="PATH", help=f"read the {m.what} from a file: {contents}")
    parser.add_argument(
        f"--{m.name}-fd",
        metavar="N",
        type=int,
        help=f"read the {m.what} from an open file descriptor (e.g. 3 with '3<file'), as --{m.name}-file",
    )


def given(args, m: Material) -> list[str]:
    """The options among --NAME, --NAME-file, --NAME-fd that were given."""
    return [f"--{m.name}{s}" for s in ("", "-file", "-fd") if getattr(args, _dest(m, s)) is not None]


def read(
    args, m: Material, length: int | None = None, owner: str = "", stdin_busy: bool = False, nonce: bool = False
) -> bytes | None:
    """The value from the options, else the environment, else None.  ``length`` (fixed materials): the
    cipher's (with ``nonce``: the usual length of a raw nonce in a file; hex of any length is taken);
    ``stdin_busy``: stdin carries the data, so --NAME-fd 0 is refused."""
    opts = given(args, m)
    if len(opts) > 1:
        raise UsageError(f"give the {m.what} once: {' and '.join(opts)} were both given")
    if not opts:
        text = os.environ.get(m.env)
        return None if text is None else parse_hex(text.encode(), f"${m.env}")
    opt = opts[0]
    value = getattr(args, _dest(m, opt[len(m.name) + 2 :]))
    if opt == f"--{m.name}":
        return parse_hex(value.encode(), opt)
    where = f"{opt} {value}"
    if opt.endswith("-file"):
        content = _read_file(value, where)
    else:
        if value == 0 and stdin_busy:
            raise UsageError(f"{opt} 0 is standard input, which carries the data here: give the data with -i FILE")
        content = _read_fd(value, where)
    if nonce:
        return decode_nonce(content, m, length or 0, where)
    return decode(content, m, length, owner, where) if m.fixed else content


def decode_nonce(content: bytes, m: Material, length: int, where: str) -> bytes:
    """A nonce's file content: exactly ``length`` raw bytes, else hex text of any length."""
    if len(content) == length:
        if not content.strip(HEX_DIGITS):
            raise UsageError(
                f"{where}: {length} hex digits, the hex of a {length // 2}-byte {m.what}; "
                f"give {length} raw bytes or the {m.what} in hex"
            )
        return content
    digits = content.translate(None, WHITESPACE)
    if digits and len(digits) % 2 == 0 and not digits.strip(HEX_DIGITS):
        return binascii.unhexlify(digits)
    raise UsageError(f"{where}: {len(content)} bytes; give a {length}-byte raw {m.what} or the {m.what} in hex")


def parse_hex(text: bytes, where: str) -> bytes:
    digits = text.translate(None, WHITESPACE)
    if len(digits) % 2:
        raise UsageError(f"{where}: odd number of hex digits ({len(digits)})")
    try:
        return binascii.unhexlify(digits)
    except binascii.Error:
        raise UsageError(f"{where}: not hex") from None


def decode(content: bytes, m: Material, length: int | None, owner: str, where: str) -> bytes:
    """A fixed-length value's file content: exactly ``length`` raw bytes, else hex text of that many."""
    if length is None:
        return content
    need = f"{owner} needs a {length}-byte {m.what}: the {length} raw bytes, or {2 * length} hex digits"
    if len(content) == length:
        if not content.strip(HEX_DIGITS):  # raw bytes that are all hex digits: a too-short hex value
            raise UsageError(f"{where}: {length} hex digits, the hex of a {length // 2}-byte {m.what}; {need}")
        return content
    digits = content.translate(None, WHITESPACE)
    try:
        value = binascii.unhexlify(digits) if digits and len(digits) % 2 == 0 else None
    except binascii.Error:
        value = None
    if value is not None and len(value) == length:
        return value
    if digits and not digits.strip(HEX_DIGITS):
        raise UsageError(f"{where}: {len(digits)} hex digits; {need}")
    raise UsageError(f"{where}: {len(content)} bytes; {need}")


def _read_file(path: str, where: str) -> bytes:
    try:
        with open(path, "rb") as f:
            content = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise UsageError(f"{where}: cannot read: {e.strerror}") from None
    return _bounded(content, where)


def _read_fd(fd: int, where: str) -> bytes:
    parts, size = [], 0
    try:
        while size <= MAX_BYTES:
            part = os.read(fd, MAX_BYTES + 1 - size)
            if not part:
                break
            parts.append(part)
            size += len(part)
    except OSError as e:
        raise UsageError(f"{where}: cannot read: {e.strerror}") from None
    return _bounded(b"".join(parts), where)


def _bounded(content: bytes, where: str) -> bytes:
    if len(content) > MAX_BYTES:
        raise UsageError(f"{where}: more than {MAX_BYTES // 1024} KiB; not a key, IV or entropy input")
    return content
