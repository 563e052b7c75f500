"""The OpenSSL 3 provider target (``openssl-provider``): every generated cipher usable through EVP.

    cipherspec build lea128 aria128 --target openssl-provider -o DIR
        -> DIR/lib/ossl-modules/cipherspec.so, DIR/openssl.cnf, DIR/src/cipherspec_provider.c, ...
    BACKEND.load(registry, "lea128", None, None) -> runtime.openssl_target.OsslCipher (EVP via libcrypto)

The provider runs the C target's libraries (its schedules are the C target's; its passes are theirs)
behind generated EVP glue.  Modules: names (OpenSSL algorithm names), source (the glue and the config
text), build (objects from generator/c, the link).
"""

from __future__ import annotations

from cipherspec.ir import Module
from cipherspec.schedule import Schedule
from runtime.openssl_target import OsslCipher

from ..backend import Backend
from ..c import BACKEND as C
from ..c.schedules import resolve
from ..c.source import generate as c_generate
from . import build as _build
from .names import algorithm_name, modes_of
from .source import provider_files

NAME = "openssl-provider"


class OpenSSLProviderBackend(Backend):
    name = NAME
    summary = "an OpenSSL 3 provider module (EVP ECB/CBC/CTR) over the C libraries"

    def parse_schedule(self, module: Module, text: str | None, rounds: int | None = None) -> Schedule:
        return resolve(module, text, rounds)

    def schedules(self, module: Module, rounds: int | None = None) -> list[Schedule]:
        """The default C schedule only: the C target's own suites cover the others."""
        return [resolve(module, None, rounds)]

    def passes(self, module: Module, schedule: Schedule):
        return C.passes(module, schedule)

    def generate(self, module: Module, schedule: Schedule) -> dict[str, str]:
        files = c_generate(module, schedule)
        files.update(provider_files([(module, schedule)]))
        return files

    def build(self, registry, names, schedule, out_dir, progress=None) -> list[str]:
        return _build.build(registry, names, schedule, out_dir, progress)

    def load(self, registry, name, rounds, schedule, toolchain=None) -> OsslCipher:
        entries = _build.provider_entries(registry, [name], schedule, rounds)
        module, sched = entries[0]
        path = _build.build_provider(entries, toolchain)
        return OsslCipher(module, sched, path, {mode: algorithm_name(module, mode) for mode in modes_of(module)})


BACKEND = OpenSSLProviderBackend()
