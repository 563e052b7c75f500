"""One run of ``cipherspec test``: every cipher on every target, schedule and mode against the interpreter.

    opts = Options(specs=["examples/ciphers/speck.cs"], targets=["c", "c-s390x"], seed=1)
    results = Session(opts, out).run()       # [Result(cipher, target, schedule, variant, mode, status, ...)]

A target whose tools are missing is skipped with one line (``missing()``); a unit (target x schedule x
variant) that does not build, crashes or answers wrongly fails its test cases.  The first wrong answer
of a test case is reported as a reproducer (the command line that reruns just that case) and located
(locate.py: the first IR value a traced build gets wrong, and its spec location).
"""

from __future__ import annotations

import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from cipherspec.blockcipher import RefCipher
from cipherspec.errors import CipherspecError, UsageError
from cipherspec.registry import Registry
from toolchain.errors import ToolError

from .cases import Case, case, cases
from .modes import MODES, Request, mode_checks
from .targets import CONSTANT_TIME, Target, Unit, select


@dataclass
class Options:
    specs: list[str] = field(default_factory=list)
    ciphers: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    require: list[str] = field(default_factory=list)
    schedules: str = "default"  # or "all"
    schedule: str | None = None  # one named schedule (with one target)
    variant: str | None = None
    modes: list[str] = field(default_factory=list)
    depth: str = "quick"
    seed: int = 1
    key: bytes | None = None
    iv: bytes | None = None
    length: int | None = None
    locate: bool = True


@dataclass
class Result:
    cipher: str
    target: str
    schedule: str
    variant: str | None
    mode: str
    status: str  # passed / failed / skipped
    message: str = ""
    details: str = ""
    seconds: float = 0.0
    cases: int = 0

    @property
    def label(self) -> str:
        return self.target + (f"[{self.variant}]" if self.variant else "")


class Progress:
    """One transient line on a terminal (stderr); nothing otherwise."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.on = hasattr(self.stream, "isatty") and self.stream.isatty()

    def show(self, text: str) -> None:
        if self.on:
            self.stream.write("\r\x1b[2K" + text[:150])
            self.stream.flush()

    def clear(self) -> None:
        self.show("")


def cipher_names(registry: Registry, specs: list[str], wanted: list[str]) -> list[str]:
    """The ciphers of the spec files (or every shipped cipher, without specs), filtered by ``wanted``."""
    given = {Path(p).resolve() for p in specs}
    names = [c.name for f in registry.files if Path(f.path).resolve() in given for c in f.ciphers]
    names = names if specs else registry.names()
    for w in wanted:
        if w not in names:
            where = "the spec files given" if specs else "the shipped ciphers"
            raise UsageError(f"unknown cipher '{w}' (not in {where}: {', '.join(names)})")
    return [n for n in names if n in wanted] if wanted else names


class Session:
    def __init__(self, opts: Options, out, registry: Registry | None = None):
        """``registry``: one already holding ``opts.specs`` (a caller running many sessions: the tests)."""
        self.opts, self.out = opts, out
        self.results: list[Result] = []
        self.checks = mode_checks()
        self._requests: dict[tuple[str, Case], list[Request]] = {}  # the interpreter's answers, shared by units
        self._keys: dict[bytes, object] = {}
        self._variants: set[str] = set()  # of every unit seen (for --variant's error)
        self.progress = Progress()
        self.targets = select(opts.targets or None)
        for m in opts.modes:
            if m not in MODES and m != CONSTANT_TIME:
                raise UsageError(f"unknown mode '{m}' (modes: {', '.join([*MODES, CONSTANT_TIME])})")
        if opts.schedule and len(self.targets) != 1:
            raise UsageError("--schedule names one target's schedule: give exactly one --target")
        required = list(dict.fromkeys(t for r in opts.require for t in (select(None) if r == "all" else select([r]))))
        for t in required:
            why = t.missing()
            if why is not None:
                raise UsageError(f"--require {t.name}: {why}")
        self.registry = registry if registry is not None else Registry(extra=opts.specs)
        self.names = cipher_names(self.registry, opts.specs, opts.ciphers)
        if not self.names:
            raise UsageError(
                "no cipher to test: the spec files given instantiate none (a family needs a 'cipher' line)"
            )

    # ------------------------------------------------------------------ the run
    def run(self) -> list[Result]:
        missing = {t.name: t.missing() for t in self.targets}
        for t in self.targets:
            if missing[t.name] is not None:
                self._say(f"skip {t.name}: {missing[t.name]}\n")
        try:
            for name in self.names:
                module = self.registry.module(name)
                ref = RefCipher(module)
                for t in self.targets:
                    if missing[t.name] is not None:
                        self.results.append(Result(name, t.name, "-", None, "-", "skipped", str(missing[t.name])))
                        continue
                    self._target(name, module, ref, t)
        finally:
            self.progress.clear()
        v = self.opts.variant
        if v and v not in self._variants:
            seen = sorted(self._variants - {""}) or ["none"]
            raise UsageError(f"no kernel has the variant '{v}' here (variants: {', '.join(seen)})")
        return self.results

    def _schedules(self, module, t: Target) -> list[str]:
        if self.opts.schedule:
            return [self.opts.schedule]
        return t.schedule_names(module, self.opts.schedules)

    def _target(self, name: str, module, ref: RefCipher, t: Target) -> None:
        for sched in self._schedules(module, t):
            self.progress.show(f"{name} {t.name} {sched}: building")
            t0 = time.perf_counter()
            try:
                units = t.units(self.registry, name, sched)
            except UsageError as e:
                if self.opts.schedule:  # most likely the schedule named is not one of the target's
                    raise
                r = Result(name, t.name, sched, None, "build", "failed", f"the target refuses it: {e}", str(e))
                r.seconds = time.perf_counter() - t0
                self._report(r)
                continue
            except (CipherspecError, ToolError, RuntimeError, OSError) as e:
                first = str(e).splitlines()[0] if str(e) else type(e).__name__
                r = Result(name, t.name, sched, None, "build", "failed", f"does not build: {first}", str(e))
                r.seconds = time.perf_counter() - t0
                self._report(r)
                continue
            for u in units:
                self._variants.add(u.variant or "")
                if self.opts.variant and u.variant != self.opts.variant:
                    continue
                self._unit(name, module, ref, u)

    def _unit(self, name: str, module, ref: RefCipher, u: Unit) -> None:
        every = u.modes if CONSTANT_TIME in u.modes else MODES  # a whole-unit check, or every mode of modes.py
        modes = [m for m in every if not self.opts.modes or m in self.opts.modes]
        line = []
        for m in modes:
            self.progress.show(f"{name} {u.label} {u.schedule} {m}")
            t0 = time.perf_counter()
            if u.skip:
                r = Result(name, u.target, u.schedule, u.variant, m, "skipped", u.skip)
            elif m not in u.modes:
                r = Result(name, u.target, u.schedule, u.variant, m, "skipped", f"{u.target} does not run {m} yet")
            elif m == CONSTANT_TIME:
                assert u.check is not None
                status, why = u.check()
                r = Result(name, u.target, u.schedule, u.variant, m, status, why.splitlines()[0] if why else "", why)
                r.cases = 1
            else:
                r = self._mode(name, module, ref, u, m)
            r.seconds = time.perf_counter() - t0
            self.results.append(r)
            line.append(r)
        if not line:
            return
        if all(r.status == "skipped" for r in line):
            self._say(f"skip {name} {u.label} {u.schedule}: {line[0].message}\n")
            return
        status = "FAIL" if any(r.status == "failed" for r in line) else "PASS"
        total = sum(r.cases for r in line)
        secs = sum(r.seconds for r in line)
        modes_text = " ".join(r.mode if r.status != "failed" else r.mode.upper() + "!" for r in line)
        self._say(f"{status} {name} {u.label} {u.schedule}: {modes_text} ({total} checks, {secs:.1f} s)\n")
        for r in line:
            if r.status == "failed":
                self._say("  " + r.details.replace("\n", "\n  ") + "\n")

    def _say(self, text: str) -> None:
        """A line of the report: the progress line (on a terminal) cleared first, the line flushed."""
        self.progress.clear()
        self.out.write(text)
        if hasattr(self.out, "flush"):
            self.out.flush()

    def _report(self, r: Result) -> None:
        self.results.append(r)
        self._say(f"FAIL {r.cipher} {r.label} {r.schedule}: {r.message}\n")

    # ------------------------------------------------------------------ one mode of one unit
    def _cases(self, module, u: Unit) -> list[Case]:
        o = self.opts
        if o.key is None:
            return cases(o.seed, module.cipher, module.key.nbytes, module.block.nbytes, u.lanes, o.depth)
        iv = o.iv if o.iv is not None else bytes(module.block.nbytes)
        length = o.length if o.length is not None else module.block.nbytes
        if len(o.key) != module.key.nbytes or len(iv) != module.block.nbytes:
            raise UsageError(
                f"{module.cipher} takes a {module.key.nbytes}-byte --key and a {module.block.nbytes}-byte --iv"
            )
        return [case(o.seed, o.key, iv, length, "as given")]

    def _mode(self, name: str, module, ref: RefCipher, u: Unit, mode: str) -> Result:
        check = self.checks[mode]
        keys = self._keys
        requests = []
        for c in self._cases(module, u):
            if check.applies(c) or self.opts.key is not None:
                if c.key not in keys:
                    keys[c.key] = ref.expand_key(c.key)
                if (mode, c) not in self._requests:
                    self._requests[(mode, c)] = check.requests(ref, keys[c.key], c)
                requests += self._requests[(mode, c)]
        r = Result(name, u.target, u.schedule, u.variant, mode, "passed", cases=len(requests))
        assert u.run is not None
        try:
            got = u.run(requests)
        except (CipherspecError, ToolError, RuntimeError, OSError) as e:
            r.status, r.message = (
                "failed",
                f"{mode.upper()}: the target failed: {str(e).splitlines()[0] if str(e) else e}",
            )
            r.details = f"{r.message}\n{e}"
            return r
        bad = 0
        for req, g in zip(requests, got):
            i = check.first_bad(ref, keys[req.key], req, g)
            if i is None:
                continue
            bad += 1
            if bad > 1:
                continue
            r.status = "failed"
            r.message = (
                f"{mode.upper()} {req.direction} of {len(req.data)} bytes ({req.case.why}) differs from "
                f"the interpreter at block {i}"
            )
            lines = [r.message, "rerun: " + self.reproducer(name, u, mode, req.case)]
            if self.opts.locate and u.trace is not None:
                function, block = check.block_call(ref, keys[req.key], req, g, i)
                lines += self._locate(module, u, req.key, function, block)
            r.details = "\n".join(lines)
        if bad > 1:
            r.details += f"\n({bad} of {len(requests)} requests differ)"
        return r

    def _locate(self, module, u: Unit, key: bytes, function: str, block: bytes) -> list[str]:
        assert u.trace is not None
        try:
            from .locate import locate

            return locate(module, u.trace, key, function, block)
        except (CipherspecError, ToolError, RuntimeError, OSError) as e:
            return [f"(no traced build: {str(e).splitlines()[0] if str(e) else e})"]

    def reproducer(self, name: str, u: Unit, mode: str, c: Case) -> str:
        args = ["cipherspec", "test", *self.opts.specs, "--cipher", name, "--target", u.target]
        args += ["--schedule", u.schedule] + (["--variant", u.variant] if u.variant else [])
        args += ["--mode", mode, "--seed", str(self.opts.seed), "--key", c.key.hex(), "--iv", c.iv.hex()]
        return shlex.join(args + ["--length", str(len(c.data))])
