"""The spec bench/gpu/aria_frames.py --spec writes (issue 25's lever 2, a bench spec): ARIA written so that every round is the same
code, U = M(FO(U, K')), with M the byte swap i <-> i ^ 2 and the FE rounds' keys stored through M.  It must be the
same cipher as the shipped ARIA: encryption equal to aria128's, decryption its inverse, RFC 5794's vector."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from cipherspec.blockcipher import RefCipher
from cipherspec.registry import Registry

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "gpu"))


def test_aria_frames_is_aria(tmp_path):
    import aria_frames

    spec = tmp_path / "aria_frames.cs"
    spec.write_text(aria_frames.spec_text())
    reg = Registry(extra=[str(spec)])
    aria, frames = RefCipher(reg.module("aria128")), RefCipher(reg.module("aria128f"))
    rng = np.random.default_rng(25)
    for _ in range(3):
        key = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
        blocks = rng.integers(0, 256, (32, 16), dtype=np.uint8)
        rk = frames.expand_key(key)
        ct = frames.encrypt_blocks(rk, blocks)
        assert (ct == aria.encrypt_blocks(aria.expand_key(key), blocks)).all()
        assert (frames.decrypt_blocks(rk, ct) == blocks).all()
    pt = np.frombuffer(bytes.fromhex("00112233445566778899aabbccddeeff"), np.uint8).reshape(1, 16)
    got = frames.encrypt_blocks(frames.expand_key(bytes(range(16))), pt).tobytes()
    assert got.hex() == "d718fbd6ab644c739da95f3be6451778"  # RFC 5794 A.1
