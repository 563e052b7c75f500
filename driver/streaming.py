"""The commands that stream bytes: encrypt, decrypt (a file or stdin, chunk by chunk), mac, and drbg (request
by request).  Their options, their output handling (-o FILE appears only complete; stdout) and the chunk size.
GCM, CCM, XTS and CMAC run in driver/aeadcmd.py (imported only for them: it needs numpy).

    add_crypt_parser(sub, common, "encrypt");  cmd_crypt(args, out, "encrypt")
    add_mac_parser(sub, common);               cmd_mac(args, out)
    add_drbg_parser(sub, common);              cmd_drbg(args, out)
"""

from __future__ import annotations

import os

from cipherspec.errors import UsageError

from . import keyinput
from .output import _chunk_bytes, _stream_to_output

EXIT_OK = 0  # cli.py's exit statuses: failures are exceptions that cli.run turns into 2 (or 130)


def _hex_arg(name: str):
    return lambda text: keyinput.parse_hex(text.encode(), f"--{name}")


def refuse_options(args, mode: str) -> None:
    """Options that belong to other modes: an error rather than silently ignored."""
    m = mode.upper()
    if mode in ("xts", "ecb", "cbc", "ctr"):
        for opt, dest in (("--aad", "aad"), ("--aad-file", "aad_file"), ("--tag-len", "tag_len")):
            if getattr(args, dest, None) is not None:
                raise UsageError(f"{m} takes no {opt} (GCM and CCM authenticate; {m} does not)")
    if mode != "xts" and getattr(args, "sector_size", None) is not None:
        raise UsageError(f"{m} takes no --sector-size (XTS only)")
    if mode in ("gcm", "ccm", "xts") and getattr(args, "pad", None) is not None:
        raise UsageError(f"{m} takes no padding (--pad/--no-pad are for ECB and CBC)")


def cmd_crypt(args, out, direction: str) -> int:
    from cipherspec.modeargs import AEAD_MODES, check_crypt_mode

    check_crypt_mode(args.mode)
    refuse_options(args, args.mode)
    if args.mode in AEAD_MODES:
        from .aeadcmd import cmd_aead

        return cmd_aead(args, direction)
    from cipherspec.chunked import ChunkedMode

    from .fileio import HexReader, open_input
    from .pump import pump
    from .quickload import load_cipher

    pad = args.pad if args.pad is not None else args.mode != "ctr"
    c = load_cipher(args.spec or [], args.cipher, args.rounds, args.target, args.schedule)
    stdin_busy = args.input in (None, "-")
    key = keyinput.read(args, keyinput.KEY, c.key_bytes, c.name, stdin_busy)
    if key is None:
        raise UsageError(f"no key: give --key-file PATH, --key-fd N, ${keyinput.KEY.env} or --key HEX")
    c.check_key(key)
    iv = None
    if args.mode == "ecb":
        if keyinput.given(args, keyinput.IV):
            raise UsageError("ECB takes no IV")
    else:
        iv = keyinput.read(args, keyinput.IV, c.block_bytes, c.name, stdin_busy)
        if iv is None:
            raise UsageError(
                f"{args.mode.upper()} needs a {c.block_bytes}-byte IV: --iv HEX, --iv-file PATH, "
                f"--iv-fd N or ${keyinput.IV.env}"
            )
    transform = ChunkedMode(c, c.expand_key(key), args.mode, direction, iv, pad)
    src = open_input(args.input)
    reader = HexReader(src) if args.hex else src
    try:
        _stream_to_output(
            args,
            f"{direction} {c.name}",
            None if args.hex else src.size,
            lambda writer, progress: pump(
                reader, transform, writer, _chunk_bytes(c), slack=c.block_bytes, advance=progress.advance
            ),
        )
    finally:
        src.close()
    return EXIT_OK


def cmd_drbg(args, out) -> int:
    """CTR_DRBG output: instantiate once, then as many <= 2^19-bit requests as --bytes needs, each
    written as soon as it is generated (memory: one request)."""
    from cipherspec.drbg_choice import new_drbg
    from cipherspec.drbg_limits import MAX_BITS_PER_REQUEST, MAX_RESEED_INTERVAL, DrbgError, security_bytes

    from .quickload import load_cipher

    if args.bytes < 0:
        raise UsageError(f"--bytes must be >= 0, got {args.bytes}")
    if not 1 <= args.request_bytes * 8 <= MAX_BITS_PER_REQUEST:
        raise UsageError(
            f"--request-bytes: a request is at most 2^19 bits ({MAX_BITS_PER_REQUEST // 8} bytes), "
            f"got {args.request_bytes}"
        )
    interval = args.reseed_interval or MAX_RESEED_INTERVAL
    requests = max(-(-args.bytes // args.request_bytes), 1)
    if not args.system_entropy and (args.prediction_resistance or requests > interval):
        # refused before any output: a reseed would be due midway and nothing could feed it
        raise UsageError(
            f"{requests} request{'s' if requests != 1 else ''} of at most {args.request_bytes} bytes "
            + ("with prediction resistance" if args.prediction_resistance else f"pass the reseed interval ({interval})")
            + ": give --system-entropy for the reseeds"
        )
    c = load_cipher(args.spec or [], args.cipher, args.rounds, args.target, args.schedule)
    entropy, nonce = keyinput.read(args, keyinput.ENTROPY), args.nonce
    if (
        args.system_entropy
    ):  # what is not given comes from the OS: seedlen bytes of entropy, a nonce of half the strength
        entropy = os.urandom(c.key_bytes + c.block_bytes) if entropy is None else entropy
        nonce = os.urandom(security_bytes(c.key_bytes) // 2) if nonce is None and not args.no_df else nonce
    if entropy is None:
        raise UsageError(
            f"no entropy input: give --entropy-file PATH, --entropy-fd N, ${keyinput.ENTROPY.env}, --entropy HEX "
            "or --system-entropy"
        )
    source = os.urandom if args.system_entropy else None
    # on GPUs: the host chain (the C DRBG's update and plan) beside one multi-key launch per piece, when the
    # requests need nothing between them (no additional input, no reseed)
    bulk = hasattr(c, "drbg_stream") and not args.prediction_resistance and not args.additional and requests < interval
    host = load_cipher(args.spec or [], args.cipher, args.rounds, "c", None) if bulk else c
    try:
        d = new_drbg(
            host,
            use_df=not args.no_df,
            reseed_interval=interval,
            prediction_resistance=args.prediction_resistance,
            entropy_source=source,
        )
        d.instantiate(entropy, nonce or b"", args.personalization or b"")
    except DrbgError as e:  # the one limit broken, and the option that changes it
        raise UsageError(f"{e}" + (f"; set it with {e.option}" if e.option else "")) from None

    def generate_bulk(writer, progress):
        done = 0

        def advance(total: int) -> None:
            nonlocal done
            progress.advance(total - done)
            done = total

        c.drbg_stream(d, args.bytes, request_bytes=args.request_bytes).pipe(writer, progress=advance)

    def generate(writer, progress):
        left, first = args.bytes, True
        while left > 0 or first:
            n = min(left, args.request_bytes)
            writer.write(d.generate(n, (args.additional or b"") if first else b""))
            progress.advance(n)
            left -= n
            first = False

    _stream_to_output(args, f"drbg {c.name}", args.bytes, generate_bulk if bulk else generate)
    return EXIT_OK


def add_drbg_parser(sub, common) -> None:
    g = sub.add_parser("drbg", parents=[common], help="CTR_DRBG output (NIST SP 800-90A / KISA), streamed")
    g.add_argument("cipher")
    keyinput.add_options(g, keyinput.ENTROPY)
    g.add_argument("--nonce", type=_hex_arg("nonce"), help="nonce in hex (with the derivation function)")
    g.add_argument("--personalization", type=_hex_arg("personalization"), help="personalization string in hex")
    g.add_argument("--additional", type=_hex_arg("additional"), help="additional input of the first request")
    g.add_argument("--bytes", type=int, required=True, help="how many bytes to output")
    g.add_argument("--request-bytes", type=int, default=1 << 16, help="bytes per generate request (max 65536)")
    g.add_argument("--no-df", action="store_true", help="no derivation function (entropy = seedlen bytes)")
    g.add_argument("--prediction-resistance", action="store_true", help="reseed before every request")
    g.add_argument("--reseed-interval", type=int, help="requests between reseeds (1..2^48)")
    g.add_argument(
        "--system-entropy",
        action="store_true",
        help="take from os.urandom what is not given: the instantiation entropy, the nonce and every reseed's entropy",
    )
    g.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here (default stdout); FILE appears only complete: nothing is left on an error",
    )
    g.add_argument("--hex", action="store_true", help="one line of hex instead of binary")
    g.add_argument("--rounds", type=int, help="override the round count")
    g.add_argument(
        "--target",
        default="c",
        help="c (default: the generated C DRBG), ref (the Python one over the interpreter), neon or cuda",
    )
    g.add_argument("--schedule", metavar="NAME")


def cmd_mac(args, out) -> int:
    from .aeadcmd import cmd_mac as run

    return run(args, out)


def add_mac_parser(sub, common) -> None:
    m = sub.add_parser(
        "mac",
        parents=[common],
        help="CMAC (SP 800-38B) of a file or stdin",
        description="The CMAC tag of the input, as one line of hex. With --verify TAG: nothing on success "
        "(exit 0); 'authentication failed' and exit 2 on a mismatch.",
    )
    m.add_argument("cipher")
    m.add_argument("--mode", required=True, help="cmac")
    keyinput.add_options(m, keyinput.KEY)
    m.add_argument("-i", "--input", metavar="FILE", help="read from FILE (default stdin, '-')")
    m.add_argument("--hex", action="store_true", help="the input is hex text (whitespace ignored)")
    m.add_argument("--tag-len", type=int, metavar="N", help="tag bytes: 1 to the block size (default: the block)")
    m.add_argument("--verify", metavar="HEX", help="check the input against this tag instead of printing one")
    m.add_argument("--rounds", type=int, help="override the round count")
    m.add_argument("--target", default="c", help="c (default), ref (the interpreter), cuda, neon")
    m.add_argument("--schedule", metavar="NAME", help="a named schedule of the target")


def add_crypt_parser(sub, common, direction: str) -> None:
    e = sub.add_parser(
        direction,
        parents=[common],
        help=f"{direction} a file or stdin, streamed",
        description=f"{direction.capitalize()} in fixed-size chunks (memory does not grow "
        "with the input). ECB and CBC use PKCS#7 padding unless --no-pad; decryption checks "
        "it and fails with one 'bad decrypt' error. On an error, -o FILE is left untouched; "
        "on stdout, the chunks before the error have already been written. GCM and CCM write "
        "ciphertext || tag; their decryption releases nothing (not on stdout either) before the "
        "tag verifies, and fails with 'authentication failed'. XTS encrypts --sector-size units, "
        "sector i under tweak IV + i (little-endian).",
    )
    e.add_argument("cipher")
    e.add_argument("--mode", required=True, help="ecb, cbc, ctr, gcm, ccm or xts")
    keyinput.add_options(e, keyinput.KEY)
    keyinput.add_options(e, keyinput.IV)
    e.add_argument("-i", "--input", metavar="FILE", help="read from FILE (default stdin, '-')")
    e.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE (default stdout, '-'): a temporary file beside it, renamed over it only on success",
    )
    padding = e.add_mutually_exclusive_group()
    padding.add_argument(
        "--pad",
        dest="pad",
        action="store_true",
        default=None,
        help="PKCS#7 padding, as openssl enc (the default for ECB and CBC)",
    )
    padding.add_argument(
        "--no-pad",
        dest="pad",
        action="store_false",
        help="no padding: ECB and CBC input must be whole blocks (openssl enc -nopad)",
    )
    e.add_argument(
        "--hex", action="store_true", help="hex text in (whitespace ignored) and one line of hex out, streamed too"
    )
    e.add_argument("--aad", metavar="HEX", help="GCM/CCM: additional authenticated data, in hex")
    e.add_argument("--aad-file", metavar="PATH", help="GCM/CCM: additional authenticated data, the file's bytes")
    e.add_argument(
        "--tag-len",
        type=int,
        metavar="N",
        help="GCM/CCM: tag bytes (default 16; GCM 16,15,14,13,12,8,4; CCM 4..16 even)",
    )
    e.add_argument(
        "--sector-size",
        type=int,
        metavar="N",
        help="XTS: bytes per data unit (default 512); sector i's tweak is IV + i, little-endian",
    )
    e.add_argument("--rounds", type=int, help="override the round count")
    e.add_argument(
        "--target",
        default="c",
        help="c (default: the generated C library), ref (the interpreter: the oracle, slow), "
        "cuda (a GPU), neon (under QEMU)",
    )
    e.add_argument("--schedule", metavar="NAME", help="a named schedule of the target")
