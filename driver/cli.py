"""The ``cipherspec`` command.  Exit status: 0 success, 1 a check failed, 2 bad input; never a traceback.

    cipherspec list
    cipherspec check FILE...
    cipherspec fmt FILE
    cipherspec dump CIPHER [--after PASS] [--function F] [--target T [--schedule S]] [--dump-dir DIR]
    cipherspec kat FILE... [--target ref|c|neon|cuda|openssl-provider] [--schedule NAME]
    cipherspec test [SPEC...] [--cipher NAME...] [--target T...] [--require T...|all] [--junit FILE]
                    [--schedules default|all] [--depth quick|full] [--seed N]   every target vs the interpreter
    cipherspec build CIPHER...|--all --target c|neon|cuda|openssl-provider [--schedule NAME] -o DIR
    cipherspec encrypt|decrypt CIPHER --mode ecb|cbc|ctr|gcm|ccm|xts (--key-file PATH|--key-fd N|$CIPHERSPEC_KEY|--key HEX)
                               [--iv...] [-i IN] [-o OUT] [--no-pad] [--hex]      streamed, C by default
                               [--aad HEX|--aad-file PATH] [--tag-len N]  (GCM, CCM)   [--sector-size N]  (XTS)
    cipherspec mac CIPHER --mode cmac KEY [-i IN] [--hex] [--tag-len N] [--verify TAG]
    cipherspec drbg CIPHER (--entropy-file PATH|...) --bytes N [-o OUT] [--hex]   streamed, request by request

Every command takes --spec FILE (repeatable) for ciphers outside the shipped specs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from cipherspec.errors import AuthenticationError, CipherspecError, UsageError
from cipherspec.version import __version__
from toolchain.errors import ToolError

from .streaming import add_crypt_parser, add_drbg_parser, add_mac_parser, cmd_crypt, cmd_drbg, cmd_mac
from .testcmd import add_test_parser, cmd_test

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 70


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2."""

    def error(self, message):  # noqa: D401 - argparse API
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _registry(args):
    from cipherspec.registry import Registry

    return Registry(extra=args.spec or [])


# ------------------------------------------------------------------------------------------ commands
def cmd_list(args, out) -> int:
    from rich.console import Console
    from rich.table import Table

    reg = _registry(args)
    table = Table(title="ciphers", show_lines=False, caption=LIST_CAPTION)
    for col in ("cipher", "family", "block", "key", "rounds", "block words", "constant-time", "spec"):
        table.add_column(col)
    for name in reg.names():
        spec, cdef = reg.definition(name)
        m = reg.lowered(name)
        table.add_row(
            name,
            m.family,
            f"{m.block.nbytes * 8}",
            f"{m.key.nbytes * 8}",
            str(m.rounds),
            str(m.block),
            constant_time_schedules(reg.module(name)),
            os.path.basename(spec.path),
        )
    Console(file=out, width=140).print(table)
    return EXIT_OK


LIST_CAPTION = (
    "constant-time: the schedules whose kernels and key schedule both are. Key schedules alone: S-boxes as "
    "circuits in every NEON and CUDA library and in C aesni/bitsliced; the other C schedules index tables."
)


def constant_time_schedules(module) -> str:
    """Which schedules run in constant time, kernels and key schedule both: all of them without table lookups;
    with tables, C aesni and bitsliced (AES instructions or circuits, in set_key too), CUDA bs (bit planes,
    circuits: no table read in the kernels) and every NEON schedule (TBL/AESE on tables held in registers).
    The key schedule of every NEON and CUDA library (and of C aesni/bitsliced) evaluates S-boxes as circuits
    (generator/c/keysched.py); the other C and CUDA layouts' kernels read tables in memory (LIST_CAPTION)."""
    from generator.c.schedules import aesni_support, bitsliced_support, secret_lookups
    from generator.ptx.bitsliced import supports as cuda_bs_why_not

    if not secret_lookups(module):
        return "all"
    parts = ["c aesni"] if not aesni_support(module) else []
    parts += ["c bitsliced"] if not bitsliced_support(module) else []
    parts += ["cuda bs"] if cuda_bs_why_not(module) is None else []
    return "; ".join(parts + ["neon (every schedule)"])


def cmd_check(args, out) -> int:
    from cipherspec.blockcipher import round_trip_fails
    from cipherspec.lower import lower
    from cipherspec.parse import parse_file

    for path in args.files:
        spec = parse_file(path)
        names = []
        for cdef in spec.ciphers:
            module = lower(spec, cdef)
            names.append(cdef.name)
            if round_trip_fails(module):  # a lint: targets are compared with the spec as written
                where = next((op.origin for op in module.functions["decrypt"].ops if op.origin is not None), None)
                at = f"{where.file}:{where.line}:{where.col}" if where is not None else path
                sys.stderr.write(
                    f"{at}: warning: {cdef.name}: decrypt is not the inverse of encrypt (the interpreter, random keys "
                    "and blocks); right for a spec of constructs, a bug in decrypt for a cipher\n"
                )
        if not spec.ciphers and spec.families:
            out.write(
                f"{path}: ok, but no 'cipher' line instantiates {', '.join(spec.families)} (only syntax was checked)\n"
            )
        else:
            out.write(f"{path}: ok ({len(names)} cipher{'s' if len(names) != 1 else ''}: {', '.join(names)})\n")
    return EXIT_OK


def cmd_fmt(args, out) -> int:
    """Canonical text of a spec on stdout (comments are not kept, so it never rewrites files)."""
    from cipherspec.format import format_spec
    from cipherspec.parse import parse_file

    out.write(format_spec(parse_file(args.file)))
    return EXIT_OK


def cmd_dump(args, out) -> int:
    """The IR after a pass: the shared pipeline's, or with --target the backend's own passes too."""
    from cipherspec.dump import format_module
    from cipherspec.pipeline import Pass, optimize, pass_names

    reg = _registry(args)
    module = reg.lowered(args.cipher, args.rounds)
    functions = tuple(args.function) if args.function else None
    if functions:
        for f in functions:
            if f not in module.functions:
                raise UsageError(f"unknown function '{f}' (functions: {', '.join(module.functions)})")
    extra: tuple[Pass, ...] = ()
    if args.target not in (None, "ref"):
        from .targets import builder

        b = builder(args.target)
        optimized = reg.module(args.cipher, args.rounds)
        extra = b.passes(optimized, b.parse_schedule(optimized, args.schedule, args.rounds))
    elif args.schedule:
        raise UsageError("--schedule needs --target (c, neon, cuda): the shared pipeline has no schedule")
    names = pass_names(extra)
    if args.after is not None and args.after not in names:
        raise UsageError(f"unknown pass '{args.after}' (passes: {', '.join(names)})")
    if args.dump_dir:
        d = Path(args.dump_dir)
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot create {d}: {e.strerror}") from None
        step = [0]

        def save(name, m, changed):
            text = format_module(m, functions, not args.no_origin)
            if not changed:
                text = f"; (unchanged)\n{text}"
            (d / f"{step[0]:02d}-{name}.ir").write_text(text)
            out.write(f"{d / f'{step[0]:02d}-{name}.ir'}{'' if changed else '  (unchanged)'}\n")
            step[0] += 1

        optimize(module, on_pass=save, extra=extra)
        return EXIT_OK
    module = optimize(module, upto=args.after or names[-1], extra=extra)
    out.write(format_module(module, functions, not args.no_origin))
    return EXIT_OK


def _peek(path):
    from cipherspec.kat import parse_kat_file

    return parse_kat_file(path)


def run_kat(reg, files: list[str], target: str, schedule: str | None):
    """Every KAT file on one target: a FileReport per file (what `cipherspec kat` prints, and
    cipherspec.kat() returns).  A malformed file stops before output for it."""
    from cipherspec.kat import run_kat_file

    from .targets import TARGETS, make_cipher

    cache: dict = {}

    def make(name, rounds):
        key = (name, rounds)
        if key not in cache:
            cache[key] = make_cipher(reg, name, rounds, target, schedule)
        return cache[key]

    if target not in TARGETS:
        raise UsageError(f"unknown target '{target}' (targets: {', '.join(TARGETS)})")
    for name in sorted({b.fields.get("Cipher") for f in files for b in _peek(f)} - {None}):
        if name in reg.defs:  # fail fast on a target that cannot run: before any output
            make(name, None)
            break
    run_drbg = None
    try:
        from cipherspec.drbg_kat import make_drbg_runner

        run_drbg = make_drbg_runner(make)
    except ImportError:
        pass
    return [run_kat_file(path, make, set(reg.names()), run_drbg) for path in files]


def cmd_kat(args, out) -> int:
    t0 = time.perf_counter()
    reports = run_kat(_registry(args), list(args.files), args.target, args.schedule)
    total_pass = total_fail = 0
    for r in reports:
        status = "PASS" if r.failed == 0 else "FAIL"
        extra = f", {r.skipped} skipped" if r.skipped else ""
        out.write(f"{status} {r.path}: {r.passed} passed, {r.failed} failed{extra}\n")
        for f in r.failures:
            out.write(f"  {f}\n")
        for n in r.notes:
            out.write(f"  note: {n}\n")
        total_pass += r.passed
        total_fail += r.failed
    out.write(f"{total_pass} passed, {total_fail} failed  (target {args.target}, {time.perf_counter() - t0:.2f} s)\n")
    return EXIT_FAILED if total_fail else EXIT_OK


def build_libraries(reg, names: list[str], target: str, schedule: str | None, output) -> list[str]:
    """Builds into a staging directory beside ``output`` and moves it in only when all of it succeeded;
    returns the backend's notes (what `cipherspec build` prints, and cipherspec.build() returns)."""
    import shutil
    import tempfile

    from .targets import builder

    if not names:
        raise UsageError("name the ciphers to build, or --all")
    for n in names:
        reg.definition(n)
    backend = builder(target)
    dest = Path(output)
    parent = dest.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=parent))
    except OSError as e:
        raise UsageError(f"cannot write to {parent}: {e.strerror}") from None
    try:
        from rich.progress import Progress

        with Progress(transient=True, disable=not sys.stderr.isatty()) as progress:
            notes = backend.build(reg, names, schedule, staging, progress)
        dest.mkdir(parents=True, exist_ok=True)
        for item in sorted(staging.rglob("*")):
            target_path = dest / item.relative_to(staging)
            if item.is_dir():
                target_path.mkdir(parents=True, exist_ok=True)
            else:
                shutil.copy2(item, target_path)
    except OSError as e:
        raise UsageError(f"cannot write {dest}: {e.strerror}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return list(notes or [])


def cmd_build(args, out) -> int:
    reg = _registry(args)
    names = reg.names() if args.all else list(args.ciphers)
    notes = build_libraries(reg, names, args.target, args.schedule, args.output)
    for note in notes:
        if note.startswith("WARNING: "):  # e.g. a table schedule: loud, on stderr, still a successful build
            sys.stderr.write(f"{note}\n")
        else:
            out.write(f"note: {note}\n")
    out.write(f"built {len(names)} cipher{'s' if len(names) != 1 else ''} for {args.target} into {Path(args.output)}\n")
    return EXIT_OK


# ------------------------------------------------------------------------------------------ parser
def _add_list(sub, common) -> None:
    sub.add_parser("list", parents=[common], help="ciphers, variants, block/key sizes, rounds")


def _add_check(sub, common) -> None:
    c = sub.add_parser("check", parents=[common], help="parse and check spec files")
    c.add_argument("files", nargs="+", metavar="FILE")


def _add_fmt(sub, common) -> None:
    f = sub.add_parser("fmt", parents=[common], help="print a spec in canonical form (comments dropped)")
    f.add_argument("file", metavar="FILE")


def _add_dump(sub, common) -> None:
    d = sub.add_parser("dump", parents=[common], help="print a cipher's IR")
    d.add_argument("cipher")
    d.add_argument(
        "--after",
        metavar="PASS",
        help="stop after this pass (lower, constfold, cse, xornet, dce; with --target, its passes too)",
    )
    d.add_argument("--target", help="also run this target's own passes (c, neon, cuda), as its backend does")
    d.add_argument("--schedule", metavar="NAME", help="the target's schedule (its passes may depend on it)")
    d.add_argument(
        "--function",
        action="append",
        choices=None,
        metavar="F",
        help="only this function (key_schedule, encrypt, decrypt); repeatable",
    )
    d.add_argument("--rounds", type=int, help="override the round count")
    d.add_argument("--no-origin", action="store_true", help="leave out the origin comments")
    d.add_argument("--dump-dir", metavar="DIR", help="write the IR after every pass into DIR")


def _add_build(sub, common) -> None:
    b = sub.add_parser("build", parents=[common], help="generate kernels and build libraries")
    b.add_argument("ciphers", nargs="*", metavar="CIPHER")
    b.add_argument("--all", action="store_true", help="every shipped cipher")
    b.add_argument("--target", required=True, help="c, neon, cuda or openssl-provider")
    b.add_argument("--schedule", metavar="NAME", help="a named schedule (default: the target's best)")
    b.add_argument("-o", "--output", required=True, metavar="DIR")


def _add_kat(sub, common) -> None:
    k = sub.add_parser("kat", parents=[common], help="run known-answer-test files")
    k.add_argument("files", nargs="+", metavar="FILE")
    k.add_argument("--target", default="ref", help="ref (the interpreter), c, neon, cuda or openssl-provider")
    k.add_argument("--schedule", metavar="NAME", help="a named schedule of the target")


SUBCOMMANDS = {  # name: (its parser, its handler), in the order of --help
    "list": (_add_list, cmd_list),
    "check": (_add_check, cmd_check),
    "fmt": (_add_fmt, cmd_fmt),
    "dump": (_add_dump, cmd_dump),
    "build": (_add_build, cmd_build),
    "kat": (_add_kat, cmd_kat),
    "test": (add_test_parser, cmd_test),
    "drbg": (add_drbg_parser, cmd_drbg),
    "encrypt": (lambda sub, common: add_crypt_parser(sub, common, "encrypt"), lambda a, o: cmd_crypt(a, o, "encrypt")),
    "decrypt": (lambda sub, common: add_crypt_parser(sub, common, "decrypt"), lambda a, o: cmd_crypt(a, o, "decrypt")),
    "mac": (add_mac_parser, cmd_mac),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only`` (a command's name), just that command's part: when the
    command line names its command first, the other commands' options are never looked at, and building
    them all costs several milliseconds of every start."""
    common = _Parser(add_help=False)
    common.add_argument(
        "--spec", action="append", metavar="FILE", help="also load the ciphers of this spec file (repeatable)"
    )
    p = _Parser(prog="cipherspec", description="Block-cipher specs compiled to fast, verified kernels.")
    p.add_argument("--version", action="version", version=f"cipherspec {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, (add, _) in SUBCOMMANDS.items():
        if only in (None, name):
            add(sub, common)
    return p


def run(argv: list[str] | None = None, out=None) -> int:
    out = out if out is not None else sys.stdout
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None).parse_args(argv)
        if getattr(args, "rounds", None) is not None and args.rounds < 1:
            raise UsageError(f"--rounds must be at least 1, got {args.rounds}")
        handler = SUBCOMMANDS[args.command][1]
        return handler(args, out)
    except (CipherspecError, ToolError) as e:
        # spec and KAT errors start with their file:line; the rest are about the command line
        plain = isinstance(e, (UsageError, ToolError, AuthenticationError))
        print(f"cipherspec: error: {e}" if plain else str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("cipherspec: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # a bug in cipherspec: say so in one line (CIPHERSPEC_DEBUG=1 for the traceback)
        if os.environ.get("CIPHERSPEC_DEBUG"):
            raise
        print(
            f"cipherspec: internal error: {type(e).__name__}: {e} (set CIPHERSPEC_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def main() -> None:
    sys.exit(run())
