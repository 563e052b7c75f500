"""The CUDA library's checks against the interpreter, shared by the GPU suite (tests/differential/
test_cuda_gpu.py) and the CPU build of the same library (tests/unit/test_cuda_cpu.py).

    check_ecb(c, ref, rng, counts)       ECB both directions, host entry and device entry in both flavours
    check_ctr(c, ref, rng, lengths)      CTR around every counter carry (ivs), host and device entries,
                                         with input and (keystream=True) keystream-only, both flavours
    check_multi(c, ref, rng)             the multi-key kernel: several keys and counters in one launch
"""

from __future__ import annotations

import numpy as np

from cipherspec import modes
from cipherspec.drbg import BulkRequest

FLAVOURS = ("ptx", "c")


def ivs(B: int, rng) -> list[bytes]:
    """Random, and just below each carry: 2^32, 2^64 and (16-byte blocks) 2^128."""

    def below(bits: int, k: int) -> bytes:
        hi = int.from_bytes(rng.integers(0, 256, B, dtype=np.uint8).tobytes(), "big") >> bits << bits
        return ((hi | ((1 << bits) - k)) % (1 << (8 * B))).to_bytes(B, "big")

    out = [rng.integers(0, 256, B, dtype=np.uint8).tobytes(), below(32, 3), below(32, 1)]
    out += [below(64, 2)] + ([below(128, 5)] if B == 16 else [])
    return out


def _key(c, rng) -> bytes:
    return rng.integers(0, 256, c.key_bytes, dtype=np.uint8).tobytes()


def check_ecb(c, ref, rng, counts=(1, 2, 33, 1000, 4099)) -> None:
    key = _key(c, rng)
    rk, rkr = c.expand_key(key), ref.expand_key(key)
    for n in counts:
        pt = rng.integers(0, 256, (n, c.block_bytes), dtype=np.uint8)
        ct = ref.encrypt_blocks(rkr, pt)
        assert (c.encrypt_blocks(rk, pt) == ct).all(), n
        assert (c.decrypt_blocks(rk, ct) == pt).all(), n
        for flavour in FLAVOURS:
            assert c.device_ecb(rk, pt.tobytes(), False, flavour) == ct.tobytes(), (n, flavour)
            assert c.device_ecb(rk, ct.tobytes(), True, flavour) == pt.tobytes(), (n, flavour)


def ctr_lengths(B: int, big: int = 40000) -> tuple[int, ...]:
    return (1, B - 1, B, B + 1, 7 * B + 3, big * B + 5)


def check_ctr(c, ref, rng, lengths=None, keystream: bool = True) -> None:
    B = c.block_bytes
    key = _key(c, rng)
    rk, rkr = c.expand_key(key), ref.expand_key(key)
    for iv in ivs(B, rng):
        for n in lengths or ctr_lengths(B):
            data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
            want, _ = modes.ctr(ref, rkr, iv, data)
            assert c.ctr(rk, iv, data) == want, (iv.hex(), n, "host")
            for flavour in FLAVOURS:
                assert c.device_ctr(rk, iv, data, flavour=flavour) == want, (iv.hex(), n, flavour)
                if not keystream:
                    continue
                ks = c.device_ctr(rk, iv, None, n, flavour=flavour)
                assert bytes(a ^ b for a, b in zip(ks[:64], data[:64])) == want[:64], (iv.hex(), n, flavour, "ks")
                assert np.array_equal(
                    np.frombuffer(ks, np.uint8) ^ np.frombuffer(data, np.uint8), np.frombuffer(want, np.uint8)
                ), (iv.hex(), n, flavour, "keystream")


def check_multi(c, ref, rng, nblocks=(3, 70, 1, 129), last_bytes: int = 5) -> None:
    """Requests with their own keys and counters (one just below 2^32, one at the whole-block wrap), the last
    one partial: each equals the CTR keystream of its key from V + 1."""
    B = c.block_bytes
    plan, want = [], []
    specials = [None, ((1 << 32) - 2).to_bytes(B, "big"), bytes([0xFF] * B), None]
    for i, nb in enumerate(nblocks):
        key = _key(c, rng)
        v = specials[i % len(specials)] or rng.integers(0, 256, B, dtype=np.uint8).tobytes()
        nbytes = nb * B if i + 1 < len(nblocks) else (nb - 1) * B + last_bytes
        plan.append(BulkRequest(key, v, nb, nbytes))
        ks, _ = modes.ctr(ref, ref.expand_key(key), modes.ctr_next_iv(v, 1), bytes(nbytes))
        want.append(ks)
    for flavour in FLAVOURS:
        assert c.keystream_multi(plan, flavour=flavour) == b"".join(want), flavour
