"""Target "neon": generated AArch64 kernels, cross-compiled into a static harness and run under QEMU.

    c = NeonCipher(module, schedule, emitted, files, prefix)  # generator/neon's Backend.load makes these
    rk = c.expand_key(key)                                  # host key schedule (the interpreter)
    c.encrypt_blocks(rk, blocks); c.run_mode(rk, "ctr", "encrypt", data, iv)
    c.run_batch([("ecb_encrypt", rk, data, None), ...])     # many cases, ONE qemu-aarch64 run

expand_key runs the interpreter's key schedule (the oracle); the kernels receive the flat round-key words
and the harness broadcasts them with the generated header's prepare function.  library_key_schedule(keys)
runs the library's own (constant-time C) <prefix>_key_schedule under QEMU, for the tests to compare.  ``lane_keys``: expand_key also takes an
(M, key_bytes) array (one key per block), served as M requests in one QEMU run.

The schedule ``<cipher>_neon`` is the built library: every variant + the run-time dispatcher
(generator/neon/dispatch.py); ``qemu_cpu`` / ``qemu_env`` choose the emulated CPU and the guest's
environment, and variant() says which kernels the dispatcher picked:

    c = BACKENDS["neon"].load(Registry(), "aria128", None, "aria128_neon"); c.qemu_cpu = "max"
    c.variant() -> "aria128_neon_b16_crypto_il1";  c.qemu_env = {"CIPHERSPEC_NEON_NO_CRYPTO": "1"} -> portable

The built library also carries the modes (GCM, CCM, XTS, CMAC: runtime/neon_modes.py, the mixin):
c.gcm_encrypt(rk, iv, aad, data) runs <prefix>_gcm_encrypt under QEMU.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from cipherspec.blockcipher import RefCipher, as_blocks
from cipherspec.errors import UsageError
from toolchain.aarch64 import build_static, cached_object, find_tools, run_qemu

from .neon_modes import NeonModes

HARNESS = Path(__file__).with_name("neon_harness.c")
OPS = {
    "ecb_encrypt": 0,
    "ecb_decrypt": 1,
    "ctr": 2,
    "cbc_encrypt": 3,
    "cbc_decrypt": 4,
    "key_schedule": 253,
    "variant": 254,
}


class RoundKeys:
    """Flat round-key words (uint32, or uint64 for ciphers with 64-bit words) for one key, or one row per lane."""

    def __init__(self, words: np.ndarray, dtype=np.uint32, key: bytes | None = None):
        self.words = np.atleast_2d(words).astype(dtype)
        self.key = key  # the key bytes (one key): the library's modes set their own key up from them

    @property
    def lanes(self) -> int:
        return self.words.shape[0]


class NeonCipher(NeonModes):
    target = "neon"
    lane_keys = True

    def __init__(self, module, schedule, emitted, files: dict[str, str], prefix: str, variants=None):
        """``emitted``: the (portable) kernels' facts (modes, group_blocks, block_bytes); ``files``: every
        .S/.c/.h to link; ``prefix``: the header's symbol prefix; ``variants``: the dispatched library's
        variants, best first (None for a single schedule)."""
        self.module = module
        self.ref = RefCipher(module)
        self.name = module.cipher
        self.block_bytes = module.block.nbytes
        self.key_bytes = module.key.nbytes
        self.qemu_cpu: str | None = None
        self.qemu_env: dict[str, str] | None = None
        self.schedule, self.emitted, self.files, self.prefix = schedule, emitted, dict(files), prefix
        self.dispatched = variants is not None
        widths = [module.block.width] + [k.width for k in module.key_arrays]
        self.key_dtype = np.uint64 if max(widths) == 64 else np.uint32  # the header's prepare_keys word type
        self.variants = variants
        self._exe: Path | None = None

    # ------------------------------------------------------------------ build
    @property
    def exe(self) -> Path:
        if self._exe is None:
            tools = find_tools()
            e, n, files = self.emitted, self.prefix, dict(self.files)
            flags = (
                [
                    f"-DPREFIX={n}",
                    f"-DGROUP={e.group_blocks}",
                    f"-DBLOCK={e.block_bytes}",
                    f"-DKEY_WORDS={sum(len(k.flat_names()) for k in self.module.key_arrays)}",
                    f"-DKEY_WORD_BYTES={np.dtype(self.key_dtype).itemsize}",
                ]
                + (["-DHAS_CTR"] if "ctr" in e.modes else [])
                + ([f"-DVARIANT={n}_variant"] * self.dispatched)
            )
            # the cipher's key schedule (generator/neon/keysched.py: <cipher>_neon_key.c) is the same file for
            # every schedule and includes no kernel header: one cached object serves them all
            keys = sorted(f for f in files if f.endswith("_key.c"))
            objects = tuple(cached_object(tools, f, files.pop(f)) for f in keys)
            flags.append(f"-DKEY_SCHEDULE={keys[0].removesuffix('.c')}_schedule")  # <cipher>_neon_key_schedule
            sources = ["main.c"] + sorted(f for f in files if f.endswith((".S", ".c")))
            modes = f'#include "{n}_modes.h"\n' if self.has_modes else ""
            flags += ["-DHAS_MODES"] if self.has_modes else []
            files |= {"harness.c": HARNESS.read_text(), "main.c": f'#include "{n}.h"\n{modes}#include "harness.c"\n'}
            self._exe = build_static(tools, files, sources, flags, n, objects)
            self._tools = tools
        return self._exe

    def run_batch(self, requests: list[tuple[str, "RoundKeys", bytes, bytes | None]]) -> list[bytes]:
        """Runs (op, round keys of ONE key, data, iv) requests in one QEMU process; returns outputs."""
        if not requests:
            return []
        parts = []
        for op, rk, data, iv in requests:
            if rk.lanes != 1:
                raise UsageError("run_batch takes round keys of a single key per request")
            if op not in OPS:
                raise UsageError(f"unknown neon operation {op}")
            if op == "ctr" and "ctr" not in self.emitted.modes:
                raise UsageError(f"{self.name}: CTR needs 8- or 16-byte blocks")
            w = rk.words[0]
            parts.append(
                struct.pack("<4I", OPS[op], len(data), len(w), 0)
                + w.astype(np.dtype(self.key_dtype).newbyteorder("<")).tobytes()
            )
            if OPS[op] >= 2:
                if iv is None:
                    raise UsageError(f"neon operation {op} needs an IV")
                parts.append(bytes(iv))
            parts.append(bytes(data))
        parts.append(struct.pack("<4I", 255, 0, 0, 0))
        out = self._run(b"".join(parts))
        results, pos = [], 0
        for _, _, data, _ in requests:
            results.append(out[pos : pos + len(data)])
            pos += len(data)
        if pos != len(out):
            raise UsageError(f"harness answered {len(out)} bytes, expected {pos}")
        return results

    def _run(self, data: bytes) -> bytes:
        """The harness's stdout for a request stream (one QEMU run on this cipher's cpu and environment)."""
        exe = self.exe
        return run_qemu(self._tools, exe, data, cpu=self.qemu_cpu, env=self.qemu_env)

    def library_key_schedule(self, keys: list[bytes]) -> list[tuple[int, RoundKeys]]:
        """(status, round keys) of the library's own <prefix>_key_schedule for each key, in one QEMU run:
        status 0, or the negative code it returned (-3 for a wrong key length)."""
        exe = self.exe
        parts = [struct.pack("<4I", OPS["key_schedule"], len(k), 0, 0) + bytes(k) for k in keys]
        parts.append(struct.pack("<4I", 255, 0, 0, 0))
        out = run_qemu(self._tools, exe, b"".join(parts), cpu=self.qemu_cpu, env=self.qemu_env)
        dt = np.dtype(self.key_dtype).newbyteorder("<")
        words = sum(len(k.flat_names()) for k in self.module.key_arrays)
        size = 4 + words * dt.itemsize
        if len(out) != size * len(keys):
            raise UsageError(f"harness answered {len(out)} bytes, expected {size * len(keys)}")
        results = []
        for i in range(len(keys)):
            rec = out[i * size : (i + 1) * size]
            status = struct.unpack("<i", rec[:4])[0]
            results.append((status, RoundKeys(np.frombuffer(rec[4:], dt), self.key_dtype)))
        return results

    def variant(self) -> str:
        """The variant the dispatcher picks on this QEMU cpu / environment (dispatched builds only)."""
        if not self.dispatched:
            raise UsageError(f"{self.schedule.name} is a single schedule, not the dispatching library")
        rk = RoundKeys(np.zeros(sum(len(k.flat_names()) for k in self.module.key_arrays)), self.key_dtype)
        return self.run_batch([("variant", rk, bytes(64), bytes(self.block_bytes))])[0].rstrip(b"\0").decode()

    # ------------------------------------------------------------------ the target interface
    def check_key(self, key: bytes) -> None:
        self.ref.check_key(key)

    def expand_key(self, key) -> RoundKeys:
        rk = self.ref.expand_key(key)
        lanes = 1 if isinstance(key, (bytes, bytearray)) else np.asarray(key).reshape(-1, self.key_bytes).shape[0]
        cols = [
            np.broadcast_to(np.asarray(rk[n]).astype(np.uint64), (lanes,))
            for ka in self.module.key_arrays
            for n in ka.flat_names()
        ]
        one = bytes(key) if isinstance(key, (bytes, bytearray)) else None
        return RoundKeys(np.stack(cols, axis=1) if cols else np.zeros((lanes, 0)), self.key_dtype, one)

    def _blocks(self, op: str, rk: RoundKeys, blocks) -> np.ndarray:
        blocks = as_blocks(blocks, self.block_bytes)
        n = blocks.shape[0]
        if n == 0:
            return blocks.copy()
        if rk.lanes == 1:
            out = self.run_batch([(op, rk, blocks.tobytes(), None)])[0]
        else:
            if rk.lanes != n:
                raise UsageError(f"{rk.lanes} lane keys for {n} blocks")
            out = b"".join(
                self.run_batch(
                    [(op, RoundKeys(rk.words[i], self.key_dtype), blocks[i].tobytes(), None) for i in range(n)]
                )
            )
        return np.frombuffer(out, np.uint8).reshape(n, self.block_bytes).copy()

    def encrypt_blocks(self, rk: RoundKeys, blocks) -> np.ndarray:
        return self._blocks("ecb_encrypt", rk, blocks)

    def decrypt_blocks(self, rk: RoundKeys, blocks) -> np.ndarray:
        return self._blocks("ecb_decrypt", rk, blocks)

    def run_mode(self, rk: RoundKeys, mode: str, direction: str, data: bytes, iv: bytes | None = None) -> bytes:
        from cipherspec import modes

        data = bytes(data)
        if mode == "ecb":
            modes._blocks(self, data, "ECB")
            return self.run_batch([(f"ecb_{direction}", rk, data, None)])[0] if data else b""
        if mode == "cbc":
            modes._blocks(self, data, "CBC")
            return self.run_batch([(f"cbc_{direction}", rk, data, modes.check_iv(self, iv))])[0] if data else b""
        if mode == "ctr":
            iv = modes.check_iv(self, iv)
            if not data:
                return b""
            if "ctr" not in self.emitted.modes:
                return modes.ctr(self, rk, iv, data)[0]
            return self.run_batch([("ctr", rk, data, iv)])[0]
        raise UsageError(f"unknown mode '{mode}' (modes: {', '.join(modes.MODES)})")
