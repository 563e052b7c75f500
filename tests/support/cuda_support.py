"""CUDA test helpers: nvcc for compile checks (a failure under CIPHERSPEC_REQUIRE_TOOLS=1, else a skip),
the library's host key schedule (generated C) through the host C compiler, and the GPU tests' checks
(ECB both ways in both flavours; CTR at IVs just below each counter carry)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cipherspec import modes
from generator.ptx import keysched
from generator.ptx.placement import rk_index
from toolchain import nvcc


def need_nvcc() -> None:
    if nvcc.find_nvcc() is None:
        if os.environ.get("CIPHERSPEC_REQUIRE_TOOLS") == "1":
            pytest.fail("nvcc not found and CIPHERSPEC_REQUIRE_TOOLS=1 (scripts/setup.sh installs nvidia-cuda-nvcc)")
        pytest.skip("nvcc not found (install the CUDA toolkit or `pip install nvidia-cuda-nvcc`)")


def host_cc() -> str:
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        if os.environ.get("CIPHERSPEC_REQUIRE_TOOLS") == "1":
            pytest.fail("no C compiler")
        pytest.skip("no C compiler")
    return cc


def host_round_keys(module, keys: np.ndarray, tmp_path: Path) -> np.ndarray:
    """(len(keys), round-key words) as the generated host key schedule of ``module`` (a CUDA-prepared
    module) computes them, one row per key."""
    idx = rk_index(module)
    kb = keys.shape[1]
    src = ["#include <stdint.h>", "#include <stdio.h>", keysched.tables_c(module),
           keysched.key_schedule_c(module, "ks", idx),
           f"static const uint8_t keys[{len(keys)}][{kb}] = {{{', '.join('{' + ', '.join(map(str, k)) + '}' for k in keys)}}};",
           f"int main(void) {{ static uint32_t rk[{len(idx)}]; for (int k = 0; k < {len(keys)}; ++k) {{ ks(keys[k], rk);",
           f"  for (int i = 0; i < {len(idx)}; ++i) printf(\"%u\\n\", rk[i]); }} return 0; }}"]
    (tmp_path / "ks.c").write_text("\n".join(src))
    subprocess.run([host_cc(), "-O1", "-std=c99", "-o", str(tmp_path / "ks"), str(tmp_path / "ks.c")], check=True)
    out = subprocess.run([str(tmp_path / "ks")], capture_output=True, text=True, check=True).stdout.split()
    return np.array(out, dtype=np.uint64).reshape(len(keys), len(idx))


def ctr_ivs(B: int, rng) -> list[bytes]:
    """Random, and just below each carry: 2^32, 2^64 and (16-byte blocks) 2^128."""
    def below(bits: int, k: int) -> bytes:
        hi = int.from_bytes(rng.integers(0, 256, B, dtype=np.uint8).tobytes(), "big") >> bits << bits
        return ((hi | ((1 << bits) - k)) % (1 << (8 * B))).to_bytes(B, "big")

    out = [rng.integers(0, 256, B, dtype=np.uint8).tobytes(), below(32, 3), below(32, 1)]
    out += [below(64, 2)] + ([below(128, 5)] if B == 16 else [])
    return out


def check_ecb(c, ref, sizes, seed: int = 7) -> None:
    """ECB through the host entry and the device entry of both flavours, vs the interpreter ``ref``."""
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes()
    rk, rkr = c.expand_key(key), ref.expand_key(key)
    for n in sizes:
        pt = rng.integers(0, 256, (n, c.block_bytes), dtype=np.uint8)
        ct = ref.encrypt_blocks(rkr, pt)
        assert (c.encrypt_blocks(rk, pt) == ct).all(), n
        assert (c.decrypt_blocks(rk, ct) == pt).all(), n
        for flavour in ("ptx", "c"):
            assert c.device_ecb(rk, pt.tobytes(), False, flavour) == ct.tobytes(), (n, flavour)
            assert c.device_ecb(rk, ct.tobytes(), True, flavour) == pt.tobytes(), (n, flavour)


def check_ctr(c, ref, lengths, seed: int = 11, keystream: bool = True) -> None:
    """CTR (host entry, device entry of both flavours, and the keystream-only launch) at every IV of
    ``ctr_ivs`` and every length, vs the interpreter ``ref``."""
    B = c.block_bytes
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes()
    rk, rkr = c.expand_key(key), ref.expand_key(key)
    for iv in ctr_ivs(B, rng):
        for n in lengths(B):
            data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
            want, _ = modes.ctr(ref, rkr, iv, data)
            assert c.ctr(rk, iv, data) == want, (iv.hex(), n, "host")
            for flavour in ("ptx", "c"):
                assert c.device_ctr(rk, iv, data, flavour=flavour) == want, (iv.hex(), n, flavour)
                if not keystream:
                    continue
                ks = c.device_ctr(rk, iv, None, n, flavour=flavour)
                assert bytes(a ^ b for a, b in zip(ks[:64], data[:64])) == want[:64], (iv.hex(), n, flavour, "ks")
                assert np.array_equal(np.frombuffer(ks, np.uint8) ^ np.frombuffer(data, np.uint8),
                                      np.frombuffer(want, np.uint8)), (iv.hex(), n, flavour, "keystream")
