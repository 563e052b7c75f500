"""`cipherspec encrypt --target cuda` streams through the CUDA cipher's host-buffer entries (crypt_into):
CTR and ECB over several chunks, with a partial last block, give the C library's bytes.  Skipped, with
the reason, on machines without an NVIDIA GPU (CI); bench/gpu/run.sh runs it on the device."""

from __future__ import annotations

import contextlib
import io
import os

import pytest

from driver import cli

pytestmark = pytest.mark.gpu  # skips without a GPU (tests/support/tools.py: require_gpu)


def _run(argv) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.run(argv, io.StringIO()) == 0, err.getvalue()


@pytest.mark.parametrize("mode", ["ctr", "ecb"])
def test_cuda_streams_like_the_c_library(tmp_path, monkeypatch, mode):
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", str(1 << 20))
    data = os.urandom((5 << 20) + 23)
    (tmp_path / "in").write_bytes(data)
    common = ["lea128", "--mode", mode, "--key", os.urandom(16).hex()]
    common += [] if mode == "ecb" else ["--iv", ("ff" * 15) + "f0"]  # the counter wraps in the first chunk
    outs = {}
    for target in ("c", "cuda"):
        outs[target] = tmp_path / f"{target}.enc"
        _run(["encrypt", *common, "-i", str(tmp_path / "in"), "-o", str(outs[target]), "--target", target])
    assert outs["cuda"].read_bytes() == outs["c"].read_bytes()
    _run(["decrypt", *common, "-i", str(outs["cuda"]), "-o", str(tmp_path / "back"), "--target", "cuda"])
    assert (tmp_path / "back").read_bytes() == data


@pytest.mark.parametrize("extra", [[], ["--additional", "a5" * 8]])
def test_cuda_drbg_equals_the_c_drbg(tmp_path, extra):
    """`drbg --target cuda` (bulk: the C DRBG's host chain + multi-key launches over every GPU; with
    additional input: request by request) writes the C DRBG's bytes, an odd request size included."""
    common = [
        "lea128",
        "--entropy",
        "00" * 32,
        "--nonce",
        "11" * 8,
        "--bytes",
        str((3 << 20) + 5),
        "--request-bytes",
        "65531",
        *extra,
    ]
    for target in ("c", "cuda"):
        _run(["drbg", *common, "-o", str(tmp_path / target), "--target", target])
    assert (tmp_path / "cuda").read_bytes() == (tmp_path / "c").read_bytes()
