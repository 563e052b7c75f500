"""Helpers for the C-target tests: the (cipher, schedule) matrix, lengths at lane boundaries, and the
mode-by-mode comparison of a target cipher with the interpreter."""

from __future__ import annotations

import numpy as np
from ci_scope import full_matrix, representatives
from shipped import shipped_registry

from cipherspec import modes

# The bitsliced kernels of AES and ARIA are the fallback variants of their aesni libraries (tested with
# every variant), so a separate bitsliced library is built only for PIPO.  Every cipher's default library is
# tested; the opt-in schedules for one cipher per family and block shape (ci_scope.representatives).
# CIPHERSPEC_FULL_MATRIX=1 tests every schedule of every cipher (done before a release).
BITSLICED_IN_CI = ("pipo64_128",)


def c_matrix() -> list[tuple[str, str]]:
    """Every (cipher, C schedule name) pair the differential suite covers."""
    from generator.c.schedules import c_schedules, default_schedule

    full = full_matrix()
    reg = shipped_registry()
    every = set(representatives(reg.names()))
    out = []
    for n in reg.names():
        module = reg.module(n)
        default = default_schedule(module).name
        out += [
            (n, s.name)
            for s in c_schedules(module)
            if s.name == default or (n in every and (full or s.layout != "bitsliced" or n in BITSLICED_IN_CI))
        ]
    return out


def variant_matrix() -> list[tuple[str, str, str]]:
    """(cipher, schedule, variant) for every kernel variant of every library of c_matrix(): the x86-64
    variants on an x86-64 host, else the portable one."""
    from cpu import is_x86_64

    from generator.c.schedules import parse_schedule
    from generator.c.variants import portable, variants

    reg = shipped_registry()
    out = []
    for n, s in c_matrix():
        module = reg.module(n)
        sched = parse_schedule(module, s)
        vs = variants(module, sched) if is_x86_64() else [portable(module, sched)]
        out += [(n, s, v.name) for v in vs]
    return out


def variant_lanes(module, schedule, variant: str) -> int:
    """Blocks per run of one variant's core (the lane boundaries its tests cross)."""
    from generator.c.library import lanes_of_variant
    from generator.c.variants import portable, variants

    for v in variants(module, schedule) + [portable(module, schedule)]:
        if v.name == variant:
            return lanes_of_variant(module, v)
    raise KeyError(variant)


def block_counts(lanes: int) -> list[int]:
    """0, 1 and every multiple of the lane count up to 2 (+-1)."""
    counts = {0, 1, 2}
    for k in (1, 2):
        counts |= {k * lanes - 1, k * lanes, k * lanes + 1}
    return sorted(c for c in counts if c >= 0)


def byte_lengths(lanes: int, block: int) -> list[int]:
    """For CTR: the block counts above, and one byte either side of each."""
    out = set()
    for n in block_counts(lanes):
        out |= {n * block, n * block + 1, max(n * block - 1, 0)}
    return sorted(out)


def check_modes(c, ref, key: bytes, iv: bytes, data: bytes, both_ctr_directions: bool = True) -> None:
    """Every mode and direction of the target's own modes (run_mode) against the interpreter.

    CBC encryption is checked through the interpreter's (parallel) CBC decryption: that map is a
    bijection and inverts the reference encryption, so dec_ref(out) == data proves out == enc_ref(data)."""
    rk, rr = c.expand_key(key), ref.expand_key(key)
    whole = data[: len(data) - len(data) % c.block_bytes]
    for direction in ("encrypt", "decrypt"):
        got = modes.run_mode(c, rk, "ecb", direction, whole)
        want = modes.run_mode(ref, rr, "ecb", direction, whole)
        assert got == want, f"ECB {direction}, {len(whole)} bytes"
    got = modes.run_mode(c, rk, "cbc", "decrypt", whole, iv)
    assert got == modes.cbc_decrypt(ref, rr, iv, whole), f"CBC decrypt, {len(whole)} bytes"
    enc = modes.run_mode(c, rk, "cbc", "encrypt", whole, iv)
    assert len(enc) == len(whole) and modes.cbc_decrypt(ref, rr, iv, enc) == whole, f"CBC encrypt, {len(whole)} bytes"
    for direction in ("encrypt", "decrypt") if both_ctr_directions else ("encrypt",):
        got = modes.run_mode(c, rk, "ctr", direction, data, iv)
        assert got == modes.ctr(ref, rr, iv, data)[0], f"CTR {direction}, {len(data)} bytes"


def random_bytes(rng: np.random.Generator, n: int) -> bytes:
    return rng.integers(0, 256, n, dtype=np.uint8).tobytes()


def cipher_names() -> list[str]:
    return shipped_registry().names()
