"""Bad input to the C target: error codes from the C API (called through ctypes), clear exceptions
from Python, one-line exit-2 errors from the CLI (and nothing half-written by ``build``)."""

from __future__ import annotations

import ctypes
import io

import pytest

from cipherspec import modes
from cipherspec.errors import UsageError
from driver import cli

OK, ERR_NULL, ERR_LENGTH, ERR_KEY_LENGTH = 0, -1, -2, -3
CASES = [("lea128", "sliced_v32"), ("aes128", "scalar_tfused"), ("hight", "sliced_v16")]


@pytest.fixture(scope="module")
def ciphers(registry):
    from generator.c import BACKEND

    make_cipher = BACKEND.load

    return {name: make_cipher(registry, name, None, sched) for name, sched in CASES}


def _buf(n):
    return (ctypes.c_uint8 * max(n, 1))()


@pytest.mark.parametrize("name", [n for n, _ in CASES])
def test_c_error_codes(name, ciphers):
    c = ciphers[name]
    lib, B, K = c.lib, c.block_bytes, c.key_bytes
    ks, key, iv = _buf(c.key_struct_bytes), _buf(K), _buf(B)
    f = lambda s: getattr(lib, f"{name}_{s}")  # noqa: E731
    assert f("set_key")(ks, key, ctypes.c_size_t(K)) == OK
    assert f("set_key")(ks, key, ctypes.c_size_t(K - 1)) == ERR_KEY_LENGTH
    assert f("set_key")(ks, key, ctypes.c_size_t(K + 1)) == ERR_KEY_LENGTH
    assert f("set_key")(None, key, ctypes.c_size_t(K)) == ERR_NULL
    assert f("set_key")(ks, None, ctypes.c_size_t(K)) == ERR_NULL
    data, out = _buf(4 * B + 1), _buf(4 * B + 1)
    n = ctypes.c_size_t
    for mode in ("ecb_encrypt", "ecb_decrypt"):
        assert f(mode)(ks, data, out, n(4 * B)) == OK
        assert f(mode)(ks, data, out, n(4 * B + 1)) == ERR_LENGTH
        assert f(mode)(ks, data, out, n(1)) == ERR_LENGTH
        for args in ((None, data, out), (ks, None, out), (ks, data, None)):
            assert f(mode)(*args, n(B)) == ERR_NULL
            assert f(mode)(*args, n(0)) == ERR_NULL
    for mode in ("cbc_encrypt", "cbc_decrypt"):
        assert f(mode)(ks, iv, data, out, n(4 * B)) == OK
        assert f(mode)(ks, iv, data, out, n(B - 1)) == ERR_LENGTH
        for args in ((None, iv, data, out), (ks, None, data, out), (ks, iv, None, out), (ks, iv, data, None)):
            assert f(mode)(*args, n(B)) == ERR_NULL
    assert f("ctr")(ks, iv, data, out, n(4 * B + 1)) == OK  # CTR takes any length
    for args in ((None, iv, data, out), (ks, None, data, out), (ks, iv, None, out), (ks, iv, data, None)):
        assert f("ctr")(*args, n(1)) == ERR_NULL


@pytest.mark.parametrize("name", [n for n, _ in CASES])
def test_python_exceptions(name, ciphers):
    c = ciphers[name]
    B, K = c.block_bytes, c.key_bytes
    with pytest.raises(UsageError, match=f"needs a {K}-byte key, got {K + 1} bytes"):
        c.expand_key(bytes(K + 1))
    with pytest.raises(UsageError, match="needs a"):
        c.check_key(b"")
    rk = c.expand_key(bytes(K))
    for mode in ("ecb", "cbc"):
        for direction in ("encrypt", "decrypt"):
            with pytest.raises(UsageError, match=f"{B + 1} bytes, not a multiple of the {B}-byte block"):
                modes.run_mode(c, rk, mode, direction, bytes(B + 1), bytes(B) if mode == "cbc" else None)
    with pytest.raises(UsageError, match=f"needs a {B}-byte IV, got 3 bytes"):
        modes.run_mode(c, rk, "cbc", "encrypt", bytes(B), b"abc")
    with pytest.raises(UsageError, match="needs an IV"):
        modes.run_mode(c, rk, "ctr", "encrypt", bytes(B), None)
    with pytest.raises(UsageError, match="unknown mode"):
        modes.run_mode(c, rk, "ofb", "encrypt", bytes(B), bytes(B))


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        rc = cli.run(argv, out)
    return rc, out.getvalue(), err.getvalue()


def test_cli_bad_key_on_target_c():
    rc, out, err = _cli(["encrypt", "lea128", "--target", "c", "--mode", "ecb", "--key", "00", "--hex"])
    assert rc == 2 and out == "" and "needs a 16-byte key, got 1 bytes" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "argv,message",
    [
        (["build", "nope", "--target", "c"], "unknown cipher 'nope'"),
        (["build", "lea128", "--target", "c", "--schedule", "sliced_v8"], "param v must be one of 16, 32"),
        (["build", "lea128", "--target", "c", "--schedule", "diagonal"], "unknown C layout 'diagonal'"),
        (["build", "lea128", "--target", "c", "--schedule", "aes128_c_scalar_tbytes"], "not a C schedule of lea128"),
        (["build", "lea128", "--target", "c", "--schedule", "scalar_tfused"], "unknown schedule params"),
        (["build", "lea128", "--target", "vhdl"], "unknown target 'vhdl'"),
    ],
)
def test_cli_build_bad_input(tmp_path, argv, message):
    dest = tmp_path / "out"
    rc, out, err = _cli(argv + ["-o", str(dest)])
    assert rc == 2 and message in err and len(err.splitlines()) == 1
    assert not dest.exists() and list(tmp_path.iterdir()) == []  # nothing half-written, no staging left


def test_cli_build_unwritable_output(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc, out, err = _cli(["build", "lea128", "--target", "c", "-o", str(blocker / "sub")])
    assert rc == 2 and err.startswith("cipherspec: error: cannot") and len(err.splitlines()) == 1
