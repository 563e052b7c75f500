"""The full generated C of every cipher (default schedule, and scalar) under AddressSanitizer and
UndefinedBehaviorSanitizer (-fno-sanitize-recover: any report fails; -O0: the huge straight-line
functions take minutes at -O1 under ASan), driven by runtime/c_harness.c and compared with the
interpreter, once per kernel variant this CPU runs (CIPHERSPEC_X86_ISA).  The CI flavour of the C build."""

from __future__ import annotations

import functools
import os
import subprocess

import numpy as np
import pytest
from c_support import random_bytes, variant_lanes
from ci_scope import representatives
from cpu import has_level, is_x86_64
from paths import ROOT
from shipped import shipped_registry
from tools import require

from cipherspec import modes

pytestmark = pytest.mark.slow  # 30+ full libraries built with ASan/UBSan

SAN_FLAGS = (
    "-std=c99",
    "-O0",
    "-g",
    "-fno-omit-frame-pointer",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
)
NAMES = [
    "aes128",
    "aes192",
    "aes256",
    "aria128",
    "aria192",
    "aria256",
    "cham128_128",
    "cham128_256",
    "cham64_128",
    "hight",
    "lea128",
    "lea192",
    "lea256",
    "pipo64_128",
    "pipo64_256",
]


@functools.lru_cache(maxsize=1)
def _sanitizer_works() -> bool:
    p = subprocess.run(
        ["cc", *SAN_FLAGS, "-x", "c", "-", "-o", "/dev/null"],
        input="int main(void){return 0;}",
        capture_output=True,
        text=True,
    )
    return p.returncode == 0


# every cipher's shipped library but AES/ARIA-192/256 (their aesni libraries take the longest ASan builds;
# valgrind memcheck runs every default in test_c_constant_time.py); the scalar schedule
# for one cipher per family and block shape (ci_scope.representatives; every one with CIPHERSPEC_FULL_MATRIX=1)
REPRESENTATIVES = representatives(NAMES)
SAN_CASES = [(n, "default") for n in NAMES if n in REPRESENTATIVES or not shipped_registry().module(n).tables]
SAN_CASES += [(n, "scalar") for n in REPRESENTATIVES]


@pytest.mark.parametrize("name,layout", SAN_CASES)
def test_asan_ubsan(registry, make_ref, name, layout):
    require("cc")
    if not _sanitizer_works():
        pytest.fail("cc cannot build with -fsanitize=address,undefined")
    from generator.c.harness import harness_program
    from generator.c.schedules import resolve
    from generator.c.variants import portable, variants
    from toolchain.cc import Toolchain

    module = registry.module(name)
    sched = resolve(module, None if layout == "default" else layout)
    exe = harness_program(module, sched, "c_harness.c", Toolchain(cc="cc", flags=SAN_FLAGS))
    ref = make_ref(name)
    B = module.block.nbytes
    rng = np.random.default_rng(len(name))
    vs = [v.name for v in variants(module, sched)] if is_x86_64() else [portable(module, sched).name]
    for variant in [v for v in vs if has_level(v)]:
        n = variant_lanes(module, sched, variant)
        env = dict(os.environ, CIPHERSPEC_X86_ISA=variant)
        for length in (0, 1, B, (2 * n + 1) * B + 3, 5000):
            _check_run(exe, env, ref, module, rng, length)


def _check_run(exe, env, ref, module, rng, length: int) -> None:
    """One run of the harness on random key, IV and data of ``length`` bytes, checked against the reference."""
    B = module.block.nbytes
    key, iv, data = random_bytes(rng, module.key.nbytes), random_bytes(rng, B), random_bytes(rng, length)
    p = subprocess.run([str(exe)], input=key + iv + data, capture_output=True, env=env)
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-3000:]
    assert p.stderr == b""
    whole = data[: length - length % B]
    rr = ref.expand_key(key)
    want_ctr, want_iv = modes.ctr(ref, rr, iv, data)
    want_enc = modes.ecb_encrypt(ref, rr, whole)
    out = p.stdout
    parts = [
        whole and out[: len(whole)],
        out[len(whole) : 2 * len(whole)],
        out[2 * len(whole) : 3 * len(whole)],
        out[3 * len(whole) : 4 * len(whole)],
        out[4 * len(whole) : 4 * len(whole) + length],
        out[-B:],
    ]
    assert parts[0] == want_enc
    assert parts[1] == modes.ecb_decrypt(ref, rr, whole)
    assert modes.cbc_decrypt(ref, rr, iv, parts[2]) == whole
    assert parts[3] == modes.cbc_decrypt(ref, rr, iv, whole)
    assert (parts[4], parts[5]) == (want_ctr, want_iv)
    assert len(out) == 4 * len(whole) + length + B


@pytest.mark.parametrize("name", ["aes128", "aes256", "lea128", "aria128", "hight", "cham64_128"])
def test_drbg_under_asan_ubsan(registry, make_ref, name):
    """The generated CTR_DRBG C under the sanitizers, output equal to the Python DRBG."""
    if not _sanitizer_works():
        pytest.fail("cc cannot build with -fsanitize=address,undefined")
    from cipherspec.drbg import CtrDrbg
    from generator.c.build import build_program
    from generator.c.schedules import resolve
    from toolchain.cc import Toolchain

    module = registry.module(name)
    K = module.key.nbytes
    exe = build_program(
        module,
        resolve(module, None),
        {"harness.c": (ROOT / "tests" / "data" / "drbg_harness.c").read_text()},
        Toolchain(cc="cc", flags=SAN_FLAGS),
        [f"-DCS_CIPHER={name}", f"-DCS_KEY_BYTES={K}", "-include", f"{name}_drbg.h"],
    )
    rng = np.random.default_rng(K + len(name))
    entropy, nonce, pers = random_bytes(rng, K), random_bytes(rng, K // 2), random_bytes(rng, 7)
    reseed, add = random_bytes(rng, K), random_bytes(rng, 5)
    p = subprocess.run([str(exe)], input=entropy + nonce + pers + reseed + add, capture_output=True)
    assert p.returncode == 0 and p.stderr == b"", (p.returncode, p.stderr.decode(errors="replace")[-3000:])
    # replay in Python: interval 2, so requests 3 and 5 reseed (request 3 with its additional input)
    d = CtrDrbg(make_ref(name), reseed_interval=2)
    d.instantiate(entropy, nonce, pers)
    want = [
        d.generate(n, add if i == 2 else b"", entropy=reseed)[:64].hex() for i, n in enumerate((0, 1, 33, 65536, 100))
    ]
    want.append("1")  # drbg_plan(3 requests) stops after one: the next needs a reseed first
    assert len(d.plan_bulk(4096, 4096)) == 1
    d.reseed(reseed, add)
    want.append(d.generate(48).hex())
    assert p.stdout.decode().split("\n")[:-1] == want
