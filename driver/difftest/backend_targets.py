"""The other backends' targets for ``cipherspec test``: NEON under qemu-aarch64 (with the library's own key
schedule checked), CUDA on a GPU, the OpenSSL provider through EVP.

    Neon().missing() -> None, or "needs qemu-aarch64 (Debian: qemu-user; ...)"
    Neon().units(registry, "sm4", "sm4_neon_b4_il2") -> [Unit("neon", "sm4_neon_b4_il2", None, lanes=16, ...)]
"""

from __future__ import annotations

import numpy as np

from cipherspec.registry import Registry
from toolchain.tools import install_hint, missing_tools

from .modes import Request
from .units import BASIC_MODES, Target, Unit, mode_runner, native_trace


class Neon(Target):
    name, summary = "neon", "the NEON kernels under qemu-aarch64"

    def backend(self):
        return "neon"

    def missing(self):
        absent = missing_tools("aarch64-linux-gnu-gcc", "qemu-aarch64")
        return f"needs {' and '.join(absent)} ({install_hint(absent)})" if absent else None

    def units(self, registry: Registry, name: str, schedule: str) -> list[Unit]:
        from generator.backends import BACKENDS
        from generator.c.schedules import resolve
        from runtime.neon_target import RoundKeys

        c = BACKENDS["neon"].load(registry, name, None, schedule)
        c.exe  # noqa: B018 - build now, so a build failure is the unit's
        module = c.module
        keys: dict[bytes, RoundKeys] = {}

        def run(requests: list[Request]) -> list[bytes]:
            from cipherspec import modes

            batch, out, later = [], [], {}
            new = list(dict.fromkeys(r.key for r in requests if r.key not in keys))
            # the kernels take the interpreter's round keys; the library's own (C) key schedule is checked
            # against them here, every new key in one QEMU run
            for key, (status, words) in zip(new, c.library_key_schedule(new) if new else []):
                keys[key] = c.expand_key(key)
                if status != 0 or not np.array_equal(words.words, keys[key].words):
                    raise RuntimeError(
                        f"the library's key schedule ({c.prefix}) differs from the interpreter's for key {key.hex()}"
                    )
            for i, r in enumerate(requests):
                if r.op == "ctr" and "ctr" not in c.emitted.modes:  # no fused CTR kernel: ECB of the counters
                    later[i] = modes.ctr(c, keys[r.key], r.iv, r.data)[0]
                elif r.data:
                    batch.append((r.op, keys[r.key], r.data, r.iv))
            got = iter(c.run_batch(batch))
            for i, r in enumerate(requests):
                out.append(later[i] if i in later else next(got) if r.data else b"")
            return out

        sched = resolve(module, None)
        return [
            Unit(
                self.name, c.schedule.name, None, c.emitted.group_blocks, run, native_trace(module, sched), BASIC_MODES
            )
        ]


class Cuda(Target):
    name, summary = "cuda", "the CUDA kernels on an NVIDIA GPU"

    def backend(self):
        return "cuda"

    def missing(self):
        from runtime.cuda_target import gpu_available

        ok, why = gpu_available()
        return None if ok else f"needs an NVIDIA GPU and nvcc ({why})"

    def units(self, registry, name, schedule):
        from generator.backends import BACKENDS
        from generator.c.schedules import resolve

        c = BACKENDS["cuda"].load(registry, name, None, schedule)
        module = registry.module(name)
        # 256 blocks: a thread block of the default launch; the lengths cross it and its multiples
        return [
            Unit(
                self.name,
                c.schedule_name,
                None,
                256,
                mode_runner(c),
                native_trace(module, resolve(module, None)),
                BASIC_MODES,
            )
        ]


class OpenSSLProvider(Target):
    name, summary = "openssl-provider", "the OpenSSL 3 provider through EVP"

    def backend(self):
        return "openssl-provider"

    def missing(self):
        from toolchain.errors import ToolError
        from toolchain.openssl import find_dev

        absent = missing_tools("cc")
        if absent:
            return f"needs cc ({install_hint(absent)})"
        try:
            find_dev()
        except ToolError as e:
            return f"needs OpenSSL 3's development files ({e})"
        return None

    def units(self, registry, name, schedule):
        from generator.backends import BACKENDS
        from generator.c.library import lanes_of_variant
        from generator.c.variants import portable

        c = BACKENDS["openssl-provider"].load(registry, name, None, schedule)
        module, sched = c.module, c.schedule
        lanes = lanes_of_variant(module, portable(module, sched))
        return [Unit(self.name, sched.name, None, lanes, mode_runner(c), native_trace(module, sched), BASIC_MODES)]
