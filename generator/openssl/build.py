"""``cipherspec build --target openssl-provider``: one OpenSSL 3 provider module holding every cipher built.

    DIR/lib/ossl-modules/cipherspec.so   the provider (exports only OSSL_provider_init)
    DIR/src/cipherspec_provider.c        its generated EVP glue
    DIR/src/<cipher>.c, DIR/include/...  the C libraries it is built from (generator/c, unchanged)
    DIR/openssl.cnf                      a config snippet that loads it beside the default provider

The cipher cores are the C target's libraries: each cipher's objects come from
``generator.c.build.library_objects`` (compiled with the C target's library flags plus each object's
own flags), so the provider is built exactly as the shipped libraries are.  Everything is compiled
hidden (``-fvisibility=hidden``: the libraries' symbols cannot clash with another copy of them in the
process), in sections, and linked with ``--gc-sections`` against libcrypto (``-z defs``: nothing
left unresolved).  Objects and the link are cached by content.

    build_provider([(module, schedule), ...])        -> Path of the cached provider module
    library_object_files([(module, schedule), ...])  -> the cached objects of its C libraries
"""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cipherspec.ir import Module
from cipherspec.registry import Registry
from cipherspec.schedule import Schedule
from toolchain.cc import Toolchain, compile_cached, link_cached
from toolchain.openssl import find_dev

from ..c import build as c_build
from ..c.schedules import resolve
from ..c.source import ct_note, generate
from .names import algorithm_name, modes_of
from .source import GLUE, provider_files

MODULE_PATH = "lib/ossl-modules/cipherspec.so"
OBJECT_FLAGS = ("-fvisibility=hidden", "-ffunction-sections", "-fdata-sections")
LINK_FLAGS = ("-Wl,--gc-sections", "-Wl,-z,defs")


def provider_entries(
    registry: Registry, names: list[str], schedule: str | None, rounds: int | None = None
) -> list[tuple[Module, Schedule]]:
    """(module, C schedule) per cipher; ``schedule`` (a C schedule's name or layout part) applies to all."""
    out = []
    for name in names:
        module = registry.module(name, rounds)
        out.append((module, resolve(module, schedule, rounds)))
    return out


def library_files(entries: list[tuple[Module, Schedule]]) -> list[dict[str, str]]:
    """The C target's generated files of each cipher (header, sources), in the order of ``entries``."""
    return [generate(module, sched) for module, sched in entries]


def source_tree(
    entries: list[tuple[Module, Schedule]], libraries: list[dict[str, str]] | None = None
) -> dict[str, str]:
    """Every generated file of the provider: the C libraries' and the glue's."""
    files: dict[str, str] = {}
    for lib in libraries if libraries is not None else library_files(entries):
        files.update(lib)
    files.update(provider_files(entries))
    return files


def _compile(jobs: list[tuple[dict[str, str], str, list[str]]], tc: Toolchain, workers: int | None) -> list[Path]:
    def one(job) -> Path:
        files, source, flags = job
        return compile_cached(files, [source], "object", tc, include_dirs=["include"], extra_args=flags)

    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        return list(pool.map(one, jobs))


def library_object_files(
    entries: list[tuple[Module, Schedule]],
    toolchain: Toolchain | None = None,
    libraries: list[dict[str, str]] | None = None,
    workers: int | None = None,
) -> list[Path]:
    """The compiled (cached) objects of the ciphers' C libraries, exactly as the provider links them
    (what bench/openssl links its direct-call harness with)."""
    tc = toolchain or c_build.lib_toolchain()
    libraries = libraries if libraries is not None else library_files(entries)
    jobs = [
        (files, source, [*flags, *OBJECT_FLAGS])
        for (module, sched), files in zip(entries, libraries)
        for source, flags in c_build.library_objects(module, sched)
    ]
    return _compile(jobs, tc, workers)


def build_provider(
    entries: list[tuple[Module, Schedule]],
    toolchain: Toolchain | None = None,
    libraries: list[dict[str, str]] | None = None,
    workers: int | None = None,
) -> Path:
    """Compiles (cached) the provider of ``entries`` (``libraries``: their ``library_files`` if already
    generated); the path of the module, a cache entry."""
    tc = toolchain or c_build.lib_toolchain()
    dev = find_dev(tc.cc)
    libraries = libraries if libraries is not None else library_files(entries)
    glue_files = {rel: text for lib in libraries for rel, text in lib.items() if rel.startswith("include/")}
    glue_files[GLUE] = provider_files(entries)[GLUE]
    objects = library_object_files(entries, tc, libraries, workers)
    objects += _compile([(glue_files, GLUE, [*dev.cflags, *OBJECT_FLAGS])], tc, workers)
    return link_cached(objects, "shared", tc, [*LINK_FLAGS, *dev.libs])


def build(registry: Registry, names: list[str], schedule: str | None, out_dir: Path, progress) -> list[str]:
    task = progress.add_task("OpenSSL provider", total=None)
    find_dev(c_build.lib_toolchain().cc)  # no OpenSSL 3 headers: say so before generating anything
    entries = provider_entries(registry, names, schedule)
    libraries = library_files(entries)
    files = source_tree(entries, libraries)
    progress.update(task, description=f"OpenSSL provider: compiling {len(entries)} ciphers")
    module = build_provider(entries, libraries=libraries)
    for rel, text in files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (out_dir / MODULE_PATH).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(module, out_dir / MODULE_PATH)
    notes = [
        f"{s.name}: {', '.join(algorithm_name(m, mode) for mode in modes_of(m))}; {ct_note(m, s)}" for m, s in entries
    ]
    notes.append(
        f"provider: DIR/{MODULE_PATH}; load it with `-provider-path DIR/{Path(MODULE_PATH).parent} "
        "-provider cipherspec -provider default`, or with DIR/openssl.cnf (see its header)"
    )
    progress.update(task, completed=1, total=1)
    return notes
