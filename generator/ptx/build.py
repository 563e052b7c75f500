"""``cipherspec build --target cuda``: per cipher, the .cu and .h of its schedule, and a shared library
where nvcc exists.

    build(registry, ["lea128"], None, out_dir, progress)   -> notes
    out_dir/lea128_cuda_ctr_rk-const_t256.cu / .h / .so

Each library holds its schedule's default kernel flavour only (its source holds no other flavour's cores, and
-DCS_FLAVOURS; the runtime builds both for the benchmarks) and no device A/B baseline kernel (-DCS_AB=0: the
bitsliced GCM's one-core-a-message finish),
compiled largest source first on every CPU (toolchain/jobs.py; ptxas on several threads).  A lane layout's GCM
kernels are a spec family's object (source.py's parts: the round keys padded to the family's
largest member's, the round count read at run time), one text for the members that take the schedule: compiled
once, beside the members' own sources, and linked into each member's library (out_dir/<family>-gcm_cuda_*.cu).
The schedule is the default for the cipher unless one is given: the autotuner's constant-time pick
(tuned.json), else for a spec with tables the constant-time layout ctchoice picks (the bitsliced one), else
the built-in default (ctchoice.default_for); a given one is a full name (``lea128_cuda_ctr_rk-shared_t512``)
or its parameter part (``rk-shared_t512``), applied to every cipher named, and a table layout gets a NOT
CONSTANT-TIME warning naming the constant-time default.  The notes say which layout and why, with the
estimated instructions per block of the table layout beside it (ctchoice.estimates).
"""

from __future__ import annotations

import os
import threading
from functools import partial
from pathlib import Path

from cipherspec.ir import Module
from cipherspec.registry import Registry
from toolchain import nvcc
from toolchain.jobs import LargestFirst

from ..common.gcpause import fewer_collections
from .ctchoice import default_for
from .placement import FLAVOURS, CudaSchedule, constant_time, load_tuned, table_base
from .source import generate, prepared


def schedule_for(module: Module, text: str | None) -> CudaSchedule:
    """``module``: after the shared pipeline; the schedule named by ``text``, else the tuned default."""
    if not text:
        return default_for(prepared(module))
    sched = CudaSchedule.parse(text, prepared(module), validate=False)
    sched.validate(prepared(module, sched))  # the layout's own passes (bs keeps gmul)
    return sched


def ct_note(module: Module, sched: CudaSchedule) -> str:
    """One line on timing side channels for a CUDA library: its set_key (always constant-time, keysched.py)
    and its kernels (constant-time unless they read tables in GPU memory at data-dependent addresses)."""
    m = prepared(module, sched)
    tables = sorted({op.imm[0] for f in ("encrypt", "decrypt") for op in m.functions[f].ops if op.code == "lut"})
    boxes = any(op.code == "lut" for op in m.functions["key_schedule"].ops)
    key = f"set_key constant-time ({'S-boxes as Boolean circuits' if boxes else 'no table lookups'})"
    if sched.layout == "bs" or not tables:
        return f"{key}; kernels constant-time (no table read)"
    return f"{key}; kernels NOT constant-time (tables {', '.join(tables)} read at data-dependent addresses)"


def layout_notes(module: Module, sched: CudaSchedule, given: bool) -> list[str]:
    """Which layout the library uses and why, with the estimated cost of the table layout beside it (a spec
    with tables; nothing for one without)."""
    from . import lockstep
    from .ctchoice import choose, estimates

    base = prepared(module)
    if not base.tables:
        return []
    name = sched.name(prepared(module, sched))
    pick = choose(base)
    table = table_base(base).name(base)
    sync = [f"{name}: {lockstep.note(sched)}"] if sched.sync else []
    if not given and module.cipher in load_tuned():  # measured on a GPU: no estimate needed
        return [f"{name}: layout {sched.layout} (the autotuner's measured constant-time pick, tuned.json)"] + sync
    if given:
        why = "given with --schedule"
    elif pick.sched is None:
        why = f"default: no constant-time layout takes it ({pick.why})"
    else:
        why = f"constant-time default ({pick.why})"
    est = estimates(module)
    parts = [f"{k} ~{v:.0f}" for k, v in est.items() if k != "table"]
    cost = ", ".join(parts + [f"table layout {table} ~{est['table']:.0f} (not constant-time)"])
    return [f"{name}: layout {sched.layout} ({why}); estimated instructions per block: {cost}"] + sync


def shipped_flavours(sched: CudaSchedule) -> int:
    """CS_FLAVOURS of the library `cipherspec build` ships for ``sched``: its one kernel flavour (1 inline PTX,
    2 plain C), the argument nvcc.build_library and compile_cubin take."""
    return 1 << FLAVOURS.index(sched.flavour)


def ct_default_text(module: Module) -> str:
    """What a build without --schedule gives: the constant-time default's name, or why there is none."""
    base = prepared(module)
    sched = default_for(base)
    if constant_time(prepared(module, sched), sched):
        return f"Omit --schedule for the constant-time default ({sched.name(prepared(module, sched))})."
    from .ctchoice import choose

    return f"No constant-time CUDA layout takes {module.cipher} ({choose(base).why}): use the C target for secret data."


def family_rk_words(registry: Registry, name: str, schedule: str | None) -> int:
    """The round-key words of the largest member of ``name``'s spec family that takes the same schedule (a lane
    layout's; 0 for the others): what the member's source pads its round-key struct to, so that the family's GCM
    kernels are one text (their cores read the round count at run time: cores.rt_name).

        family_rk_words(reg, "aes128", None) -> 3828 (AES-256's)        family_rk_words(reg, "lea128", None) -> 0"""
    from . import gcm
    from .lanes_source import has_head, rk_words

    spec, cdef = registry.definition(name)
    module = registry.module(name)
    sched = schedule_for(module, schedule)
    if not sched.lanes or not gcm.supported(module) or not has_head(prepared(module, sched), sched):
        return 0  # (no round count read at run time: the members' GCM kernels differ whatever the padding)
    own = sched.name(prepared(module, sched)).split("_cuda_", 1)[1]
    words = 0
    for c in spec.ciphers:
        if c.family != cdef.family:
            continue
        m = registry.module(c.name)
        s = schedule_for(m, schedule)
        if s.lanes and s.name(prepared(m, s)).split("_cuda_", 1)[1] == own:
            words = max(words, rk_words(prepared(m, s), s))
    return words


def shipped_source(registry: Registry, name: str, schedule: str | None, flavours: tuple[str, ...] | None = None):
    """(module, schedule, source) of the library `cipherspec build` makes for ``name``: its schedule's flavour only
    (``flavours`` for another set: the runtime builds both), the round keys at the family's size and the GCM kernels
    in the family's object (source.py's parts), as the GPU tests load it (BACKEND.load)."""
    module = registry.module(name)
    sched = schedule_for(module, schedule)
    family = registry.definition(name)[1].family or name
    src = generate(
        module,
        sched,
        flavours=flavours or (sched.flavour,),
        rk_pad=family_rk_words(registry, name, schedule),
        gcm_family=family,
    )
    return module, sched, src


class _Links:
    """The build's job graph past the compiles: a library is linked (a small job) once its objects are compiled --
    its own source's and its family's GCM object's, which is compiled once for every member whose text is the
    same (the first member to need it submits it; the others wait for it)."""

    def __init__(self, queue: LargestFirst, done=None):
        self._queue, self._done = queue, done
        self._lock = threading.Lock()
        self._objects: dict[Path, Path | None] = {}  # source -> its object (None: submitted, not compiled yet)
        self._libraries: list[tuple[Path, list[Path]]] = []  # (library, its sources) not linked yet

    def library(self, out: Path, sources: list[Path], size: list[int], flavours: int) -> None:
        with self._lock:
            self._libraries.append((out, sources))
            new = [(c, n) for c, n in zip(sources, size, strict=True) if c not in self._objects]
            for c, _ in new:
                self._objects[c] = None
        for c, n in new:
            self._queue.submit(n, partial(self._compile, c, flavours))

    def _compile(self, cu: Path, flavours: int) -> None:
        obj = nvcc.compile_object(cu, flavours=flavours, ab=False)
        with self._lock:
            self._objects[cu] = obj
            links: list[tuple[Path, list[Path]]] = []
            waiting = []
            for out, cs in self._libraries:
                objects = [o for c in cs if (o := self._objects[c]) is not None]
                if len(objects) == len(cs):
                    links.append((out, objects))
                else:
                    waiting.append((out, cs))
            self._libraries = waiting
        for out, objects in links:
            self._queue.submit(0, partial(nvcc.link_library, objects, out), self._done)


def _generation_order(registry: Registry, names: list[str], schedule: str | None) -> list[str]:
    """The ciphers whose sources are quick to make first (not a lane layout: a tenth of a second, where a bitsliced
    family's first member takes ~10 s), so that the compilers start at once, then the rest, each in the order
    asked; the jobs still run largest waiting first."""
    lanes = {n: schedule_for(registry.module(n), schedule).lanes for n in names}
    return sorted(names, key=lambda n: lanes[n])


def _write_part(out_dir: Path, part, written: dict[str, Path], member: str) -> Path:
    """A family's GCM object's source in out_dir, one file a text: the members whose texts are one share it; a
    member whose text is not (LEA-128 beside LEA-192 and LEA-256, whose round keys lie elsewhere) gets its own, named
    after it.  ``written``: text -> file, of this build."""
    if part.cu not in written:
        taken = {p.name for p in written.values()}
        path = out_dir / f"{part.name}.cu"
        path = path if path.name not in taken else out_dir / f"{part.name}-{member}.cu"
        if not path.is_file() or path.read_text() != part.cu:
            path.write_text(part.cu)
        written[part.cu] = path
    return written[part.cu]


@fewer_collections()  # (the schedule choice's passes too, not only generate: gcpause.py)
def build(registry: Registry, names: list[str], schedule: str | None, out_dir: Path, progress=None) -> list[str]:
    """Sources in order (Python, this thread); nvcc runs as each source is ready, one per CPU, the largest
    waiting source first (nvcc's time follows the source's size: a big cipher left for last would run alone
    on one core), each library with only its schedule's default kernel flavour (the one it ships); a library
    with a family GCM object is compiled in two objects (its own, the family's: once) and linked."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    compiler = nvcc.find_nvcc()
    task = progress.add_task("cuda", total=len(names)) if progress is not None else None
    by_name: dict[str, list[str]] = {}
    queue = LargestFirst(max(1, os.cpu_count() or 1)) if compiler is not None else None
    done = (lambda: progress.advance(task)) if task is not None else None
    links = _Links(queue, done) if queue is not None else None
    written: dict[str, Path] = {}
    try:
        for name in _generation_order(registry, names, schedule):
            notes = by_name.setdefault(name, [])
            module, sched, src = shipped_source(registry, name, schedule)
            cu = out_dir / f"{src.name}.cu"
            cu.write_text(src.cu)
            (out_dir / f"{src.name}.h").write_text(src.h)
            parts = [_write_part(out_dir, p, written, name) for p in src.parts]
            if queue is not None and links is not None:
                flavours = shipped_flavours(sched)
                lib = out_dir / f"lib{src.name}.so"
                if parts:
                    links.library(lib, [cu, *parts], [len(src.cu), *(len(p.cu) for p in src.parts)], flavours)
                else:
                    queue.submit(len(src.cu), partial(nvcc.build_library, cu, lib, flavours=flavours, ab=False), done)
            elif task is not None:
                progress.advance(task)
            notes.append(f"{name}: {src.name} ({src.hoisted_ops} of {src.encrypt_ops} encrypt ops hoisted in CTR)")
            notes.append(f"{name}: {ct_note(module, sched)}")
            if parts:
                notes.append(
                    f"{name}: its GCM kernels in the family object {parts[0].name} (compiled once for its members)"
                )
            notes += layout_notes(module, sched, given=bool(schedule))
            if not constant_time(prepared(module, sched), sched):
                notes.append(
                    f"WARNING: {src.name} is NOT CONSTANT-TIME: its kernels index tables in memory with secret bytes "
                    f"(timing depends on the data). {ct_default_text(module)}"
                )
        if queue is not None:
            queue.finish()  # a BuildError propagates as before
    finally:
        if queue is not None:
            queue.close()
    notes = [line for name in names for line in by_name[name]]  # (in the order asked)
    if compiler is None:
        notes.append("nvcc not found: wrote .cu and .h only (no library)")
    return notes
