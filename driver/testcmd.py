"""``cipherspec test SPEC... [--cipher NAME...]``: every target this machine has, against the interpreter.

    cipherspec test examples/ciphers/sm4.cs                          # c, c-memcheck, neon, c-aarch64, ...
    cipherspec test --cipher aes128 --target c neon --schedules all --depth full
    cipherspec test my.cs --require all --junit report.xml           # CI: a missing tool fails the run

Exit status 0 when everything that ran passed, 1 on a mismatch (or a kernel that does not build or
crashes), 2 on bad input (unknown target or cipher, a spec that does not check, --require of a target
whose tools are missing).  The engine is driver/difftest/.
"""

from __future__ import annotations

import sys
import time

from cipherspec.errors import UsageError

# the engine (numpy, the generators) is imported only when this command runs: driver/cli.py imports this
# module for every command, and `cipherspec encrypt` must start without them (test_startup_imports.py)


def _hex(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise UsageError(f"not hexadecimal: {text!r}") from None


def add_test_parser(sub, common) -> None:
    from .difftest.cases import DEPTHS
    from .difftest.modes import MODES
    from .difftest.targets import CONSTANT_TIME, TARGETS

    t = sub.add_parser(
        "test",
        parents=[common],
        help="differential tests of every target this machine has against the interpreter",
        description="Runs each cipher on every target this machine has (c, c-memcheck, neon, c-aarch64, "
        "c-s390x, cuda, openssl-provider) against the interpreter. Exit 0: all passed; 1: a mismatch; 2: bad input.",
    )
    t.add_argument("specs", nargs="*", metavar="SPEC", help="spec files (none: the shipped ciphers)")
    t.add_argument("--cipher", action="append", default=[], metavar="NAME", help="only this cipher (repeatable)")
    t.add_argument(
        "--target", nargs="+", action="extend", default=[], metavar="T", help=f"only these ({', '.join(TARGETS)})"
    )
    t.add_argument(
        "--require",
        nargs="+",
        action="extend",
        default=[],
        metavar="T",
        help="fail (exit 2) if T's tools are missing; 'all' for every target",
    )
    t.add_argument(
        "--schedules", choices=("default", "all"), default="default", help="each target's default or every schedule"
    )
    t.add_argument("--schedule", metavar="NAME", help="one schedule of the one --target")
    t.add_argument("--variant", metavar="ISA", help="one ISA variant of the c targets (sse2, avx2, ...)")
    t.add_argument(
        "--mode",
        action="append",
        default=[],
        metavar="M",
        help=f"only this mode ({', '.join([*MODES, CONSTANT_TIME])})",
    )
    t.add_argument(
        "--depth", choices=DEPTHS, default="quick", help="quick (default) or full: more lengths, keys, carries"
    )
    t.add_argument("--seed", type=int, default=1, help="the seed of every key, IV and data (default 1)")
    t.add_argument("--key", type=_hex, metavar="HEX", help="rerun one case: this key (with --iv, --length)")
    t.add_argument("--iv", type=_hex, metavar="HEX", help="the IV of the one case (default zero)")
    t.add_argument("--length", type=int, metavar="N", help="the data length of the one case, in bytes")
    t.add_argument(
        "--junit", metavar="FILE", help="write JUnit XML (one test case per cipher x target x schedule x mode)"
    )
    t.add_argument("--no-locate", action="store_true", help="do not build a traced kernel to locate a mismatch")
    t.add_argument("--all", action="store_true", help="every shipped cipher (when no SPEC is given)")


def cmd_test(args, out, registry=None) -> int:
    """The command; ``registry`` (optional) must hold the spec files named (tests share one)."""
    from .difftest.junit import write_junit
    from .difftest.session import Options, Session

    specs = list(args.spec or []) + list(args.specs)
    if not specs and not args.cipher and not args.all:
        raise UsageError("name spec files, --cipher NAME, or --all for every shipped cipher")
    if args.length is not None and args.length < 0:
        raise UsageError(f"--length must be at least 0, got {args.length}")
    if (args.iv is not None or args.length is not None) and args.key is None:
        raise UsageError("--iv and --length rerun one case: give its --key too")
    opts = Options(
        specs=specs,
        ciphers=args.cipher,
        targets=args.target,
        require=args.require,
        schedules=args.schedules,
        schedule=args.schedule,
        variant=args.variant,
        modes=args.mode,
        depth=args.depth,
        seed=args.seed,
        key=args.key,
        iv=args.iv,
        length=args.length,
        locate=not args.no_locate,
    )
    t0 = time.perf_counter()
    session = Session(opts, out, registry)
    results = session.run()
    seconds = time.perf_counter() - t0
    if args.junit:
        write_junit(args.junit, results, seconds)
    failed = sum(r.status == "failed" for r in results)
    passed = sum(r.status == "passed" for r in results)
    skipped = sum(r.status == "skipped" for r in results)
    out.write(f"{passed} passed, {failed} failed, {skipped} skipped ({seconds:.1f} s)\n")
    if hasattr(out, "flush"):
        out.flush()
    sys.stderr.flush()
    return 1 if failed else 0
