"""`cipherspec encrypt/decrypt/drbg` as a file tool: streaming in bounded memory, chunk boundaries,
output that appears only complete, keys from files/descriptors/the environment, hex streaming, progress.

The 1 GiB figure is a benchmark (bench/cli); here a CI-sized 64 MiB goes through a pipe and the child's
peak RSS is compared with the same command on empty input."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import stat
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from paths import ROOT

from cipherspec import modes
from cipherspec.chunked import ChunkedMode
from cipherspec.drbg import CtrDrbg
from cipherspec.errors import UsageError
from driver import cli, fileio
from driver.progress import TransferProgress, working
from driver.pump import pump
from driver.targets import make_cipher

PEAK_RSS = ROOT / "tests" / "support" / "peak_rss.py"

KEY = bytes(range(16))
IV = bytes(range(16, 32))
K, V = KEY.hex(), IV.hex()


def pkcs7(data: bytes, b: int) -> bytes:
    p = b - len(data) % b
    return data + bytes([p]) * p


def cli_run(argv, env=None, monkeypatch=None):
    """cli.run in this process (stderr captured): (status, stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = cli.run(argv, io.StringIO())
    return rc, err.getvalue()


@pytest.fixture(scope="module")
def lea(registry):
    return make_cipher(registry, "lea128", None, "c")


# ---------------------------------------------------------------------------------------------- pump
class Dribble:
    """A pipe that returns 1..7 bytes per read, and optionally fails after ``fail_after`` bytes."""

    def __init__(self, data: bytes, fail_after: int | None = None):
        self.data, self.pos, self.calls, self.fail_after = data, 0, 0, fail_after

    def readinto(self, view) -> int:
        if self.fail_after is not None and self.pos >= self.fail_after:
            raise UsageError("cannot read the pipe: Input/output error")
        self.calls += 1
        k = min(len(view), 1 + self.calls % 7, len(self.data) - self.pos)
        view[:k] = self.data[self.pos : self.pos + k]
        self.pos += k
        return k


class Collect:
    def __init__(self, fail_on: int | None = None):
        self.parts, self.fail_on = [], fail_on

    def write(self, piece) -> None:
        if self.fail_on is not None and len(self.parts) == self.fail_on:
            raise UsageError("cannot write out: No space left on device")
        self.parts.append(bytes(piece))


def test_pump_short_reads_give_whole_chunks(lea):
    """However short the reads, every chunk but the last is full, and the result is one whole-input call."""
    rk = lea.expand_key(KEY)
    data = os.urandom(1000)
    for chunk in (16, 48, 4096):
        out = Collect()
        seen = []
        pump(Dribble(data), ChunkedMode(lea, rk, "cbc", "encrypt", IV, pad=True), out, chunk, 16, advance=seen.append)
        assert b"".join(out.parts) == modes.run_mode(lea, rk, "cbc", "encrypt", pkcs7(data, 16), IV)
        assert all(n == chunk for n in seen[:-1]) and sum(seen) == len(data) and seen[-1] < chunk


def test_pump_raises_a_read_or_write_error_midway(lea):
    rk = lea.expand_key(KEY)
    with pytest.raises(UsageError, match="Input/output error"):
        pump(Dribble(os.urandom(1000), fail_after=300), ChunkedMode(lea, rk, "ctr", "encrypt", IV), Collect(), 64, 16)
    with pytest.raises(UsageError, match="No space left"):
        pump(Dribble(os.urandom(1000)), ChunkedMode(lea, rk, "ctr", "encrypt", IV), Collect(fail_on=3), 64, 16)
    assert threading.active_count() < 10  # the worker threads ended


# ---------------------------------------------------------------------------------------------- the command
def test_chunk_boundaries_through_files(tmp_path, monkeypatch, lea):
    """3-block chunks; the input ends at every offset mod the block around chunk boundaries: encrypt
    equals one whole-input CBC call over the padded input, decrypt gives the input back."""
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "48")
    rk = lea.expand_key(KEY)
    src, enc, dec = tmp_path / "in", tmp_path / "enc", tmp_path / "dec"
    data = os.urandom(200)
    for n in sorted({k * 48 + r for k in (0, 1, 2) for r in (0, 1, 15, 16, 17, 47)}):
        src.write_bytes(data[:n])
        common = ["lea128", "--mode", "cbc", "--key", K, "--iv", V]
        assert cli_run(["encrypt", *common, "-i", str(src), "-o", str(enc)]) == (0, "")
        assert enc.read_bytes() == modes.run_mode(lea, rk, "cbc", "encrypt", pkcs7(data[:n], 16), IV), n
        assert cli_run(["decrypt", *common, "-i", str(enc), "-o", str(dec)]) == (0, "")
        assert dec.read_bytes() == data[:n], n


def _crafted_bad_padding(lea, nblocks: int) -> bytes:
    """A CBC ciphertext whose last plaintext block ends in 0x00: never valid PKCS#7."""
    plain = os.urandom(16 * nblocks - 1) + b"\x00"
    return modes.run_mode(lea, lea.expand_key(KEY), "cbc", "encrypt", plain, IV)


def test_bad_padding_leaves_no_output_file(tmp_path, monkeypatch, lea):
    """Decryption fails at the very end, after several chunks went to the temporary file: FILE is not
    created, an existing FILE keeps its content, no temporary file is left."""
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "64")
    src = tmp_path / "ct"
    src.write_bytes(_crafted_bad_padding(lea, 20))
    args = ["decrypt", "lea128", "--mode", "cbc", "--key", K, "--iv", V, "-i", str(src), "-o"]
    rc, err = cli_run(args + [str(tmp_path / "new")])
    assert rc == 2 and err.startswith("cipherspec: error: bad decrypt") and len(err.splitlines()) == 1
    old = tmp_path / "old"
    old.write_bytes(b"precious")
    assert cli_run(args + [str(old)])[0] == 2
    assert old.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ct", "old"]


def test_read_error_midway_leaves_no_output_file(tmp_path, monkeypatch):
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "64")
    src = tmp_path / "in"
    src.write_bytes(os.urandom(1000))

    class Failing:
        def readinto(self, view):
            raise OSError(errno.EIO, os.strerror(errno.EIO))

        def close(self):
            pass

    original, calls = fileio.Input.readinto, []

    def flaky(self, view):
        calls.append(1)
        if len(calls) > 3:  # three 64-byte chunks read, then the disk fails
            self.raw = Failing()
        return original(self, view)

    monkeypatch.setattr(fileio.Input, "readinto", flaky)
    rc, err = cli_run(
        ["encrypt", "lea128", "--mode", "ctr", "--key", K, "--iv", V, "-i", str(src), "-o", str(tmp_path / "out")]
    )
    assert rc == 2 and f"cannot read {src}: Input/output error" in err and len(err.splitlines()) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["in"]


def test_killed_midway_leaves_no_output_file(tmp_path):
    """SIGTERM while the input stalls (some chunks already in the temporary file): exit 130, nothing left."""
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "driver",
            "encrypt",
            "lea128",
            "--mode",
            "ctr",
            "--key",
            K,
            "--iv",
            V,
            "-o",
            str(tmp_path / "out"),
        ],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT), CIPHERSPEC_CHUNK_BYTES="4096"),
    )
    p.stdin.write(os.urandom(5 * 4096))
    p.stdin.flush()
    for _ in range(600):  # until the temporary file holds the whole chunks (up to 60 s on a loaded machine)
        temps = list(tmp_path.iterdir())
        if temps and temps[0].stat().st_size >= 4 * 4096:
            break
        time.sleep(0.1)
    assert [f.name.startswith(".out.") for f in temps] == [True]
    p.terminate()
    assert p.wait(timeout=60) == 130 and b"interrupted" in p.stderr.read()
    p.stdin.close()
    assert list(tmp_path.iterdir()) == []


def test_output_replaces_a_file_keeping_its_mode(tmp_path):
    src, dest = tmp_path / "in", tmp_path / "out"
    src.write_bytes(b"x" * 100)
    dest.write_bytes(b"old")
    dest.chmod(0o600)
    assert (
        cli_run(["encrypt", "lea128", "--mode", "ctr", "--key", K, "--iv", V, "-i", str(src), "-o", str(dest)])[0] == 0
    )
    assert len(dest.read_bytes()) == 100 and stat.S_IMODE(dest.stat().st_mode) == 0o600
    assert (
        cli_run(["encrypt", "lea128", "--mode", "ctr", "--key", K, "--iv", V, "-i", str(src), "-o", "/dev/null"])[0]
        == 0
    )


def test_hex_streams_across_chunks(tmp_path, monkeypatch):
    """Hex input with whitespace anywhere, cut into 32-byte chunks, gives what the binary input gives."""
    monkeypatch.setenv("CIPHERSPEC_CHUNK_BYTES", "32")
    data = os.urandom(301)
    text = data.hex()
    spaced = "\n ".join(text[i : i + 7] for i in range(0, len(text), 7)) + "\n"
    (tmp_path / "bin").write_bytes(data)
    (tmp_path / "hex").write_text(spaced)
    common = ["encrypt", "aria128", "--mode", "cbc", "--key", K, "--iv", V]
    assert cli_run(common + ["-i", str(tmp_path / "bin"), "-o", str(tmp_path / "ct")])[0] == 0
    assert cli_run(common + ["--hex", "-i", str(tmp_path / "hex"), "-o", str(tmp_path / "ct.hex")])[0] == 0
    assert (tmp_path / "ct.hex").read_text() == (tmp_path / "ct").read_bytes().hex() + "\n"
    (tmp_path / "odd").write_text(text[:-1])
    rc, err = cli_run(common + ["--hex", "-i", str(tmp_path / "odd"), "-o", str(tmp_path / "never")])
    assert rc == 2 and f"odd number of hex digits ({len(text) - 1})" in err and not (tmp_path / "never").exists()


def test_key_and_iv_sources_agree(tmp_path, monkeypatch):
    """--key HEX, a raw key file, a hex key file with a newline, a descriptor, the environment: the same key."""
    (tmp_path / "in").write_bytes(os.urandom(77))
    (tmp_path / "k.raw").write_bytes(KEY)
    (tmp_path / "k.hex").write_text(K[:10] + "\n  " + K[10:] + "\n")
    (tmp_path / "iv.raw").write_bytes(IV)
    outs = []

    def enc(*args):
        out = tmp_path / f"out{len(outs)}"
        rc, err = cli_run(["encrypt", "lea128", "--mode", "cbc", "-i", str(tmp_path / "in"), "-o", str(out), *args])
        assert rc == 0, err
        outs.append(out.read_bytes())

    enc("--key", K, "--iv", V)
    enc("--key-file", str(tmp_path / "k.raw"), "--iv-file", str(tmp_path / "iv.raw"))
    enc("--key-file", str(tmp_path / "k.hex"), "--iv", V)
    fd = os.open(tmp_path / "k.hex", os.O_RDONLY)
    try:
        enc("--key-fd", str(fd), "--iv", V)
    finally:
        os.close(fd)
    monkeypatch.setenv("CIPHERSPEC_KEY", K)
    monkeypatch.setenv("CIPHERSPEC_IV", V)
    enc()
    enc("--key", "00" * 16)  # an option overrides the environment
    assert len(set(outs[:-1])) == 1 and outs[-1] != outs[0]


def test_progress_only_on_a_terminal_for_large_inputs():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    quiet = io.StringIO()
    p = TransferProgress("encrypt lea128", None, stream=quiet, threshold=100)
    p.advance(1000)
    p.close()
    assert quiet.getvalue() == ""
    small = TransferProgress("encrypt lea128", 50, stream=Tty(), threshold=100)
    small.advance(50)
    small.close()
    assert small.stream.getvalue() == ""
    tty = Tty()
    p = TransferProgress("encrypt lea128", None, stream=tty, threshold=100)
    p.advance(60)
    assert tty.getvalue() == ""  # unknown size: nothing until the threshold has passed
    p.advance(60)
    p.close()
    assert "encrypt lea128" in tty.getvalue()


def test_building_status_only_on_a_terminal():
    """The status line while a cold cache builds the library (driver/quickload.py's miss)."""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    quiet, tty, unlabelled = io.StringIO(), Tty(), Tty()
    for stream in (quiet, tty):
        with working("preparing lea128 for target c", stream=stream):
            pass
    with working(None, stream=unlabelled):  # no label (the interpreter builds nothing): nothing
        pass
    assert quiet.getvalue() == "" and unlabelled.getvalue() == ""
    assert "preparing lea128 for target c" in tty.getvalue()


# ---------------------------------------------------------------------------------------------- drbg
def test_drbg_streams_requests_to_a_file(tmp_path, monkeypatch, make_ref):
    entropy = bytes(range(32))
    (tmp_path / "e").write_bytes(entropy)
    d = CtrDrbg(make_ref("lea128"))
    d.instantiate(entropy, bytes(8))
    want = b"".join(d.generate(n) for n in (1000, 1000, 500))
    for source in (["--entropy-file", str(tmp_path / "e")], ["--entropy", entropy.hex()], []):
        monkeypatch.setenv("CIPHERSPEC_ENTROPY", entropy.hex())
        out = tmp_path / "out"
        rc, err = cli_run(
            [
                "drbg",
                "lea128",
                *source,
                "--nonce",
                "00" * 8,
                "--bytes",
                "2500",
                "--request-bytes",
                "1000",
                "-o",
                str(out),
            ]
        )
        assert rc == 0, err
        assert out.read_bytes() == want


def test_drbg_refuses_a_reseed_it_could_not_feed(tmp_path):
    rc, err = cli_run(
        [
            "drbg",
            "lea128",
            "--entropy",
            "00" * 32,
            "--nonce",
            "00" * 8,
            "--bytes",
            "5000",
            "--request-bytes",
            "1000",
            "--reseed-interval",
            "4",
            "-o",
            str(tmp_path / "out"),
        ]
    )
    assert rc == 2 and "5 requests of at most 1000 bytes pass the reseed interval (4)" in err
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------- memory
def _child(args, feed, nbytes: int, tmp_path):
    """Runs the command with ``nbytes`` from ``feed`` piped in; (sha256 of stdout, its peak RSS in KiB).
    The peak comes from tests/support/peak_rss.py: wait4 from this (large) process would report our size."""
    result = tmp_path / "rss"
    p = subprocess.Popen(
        [sys.executable, "-S", "-I", str(PEAK_RSS), str(result), sys.executable, "-m", "driver", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    digest, errors = hashlib.sha256(), []

    def write():
        try:
            for block in feed(nbytes):
                p.stdin.write(block)
        except BrokenPipeError:
            pass
        finally:
            p.stdin.close()

    def read():
        for block in iter(lambda: p.stdout.read(1 << 20), b""):
            digest.update(block)

    threads = [threading.Thread(target=f) for f in (write, read)]
    threads.append(threading.Thread(target=lambda: errors.append(p.stderr.read())))
    for t in threads:
        t.start()
    p.wait()
    for t in threads:
        t.join()
    status, maxrss = map(int, result.read_text().split()[:2])
    assert status == 0, errors
    return digest.hexdigest(), maxrss


def _pattern(nbytes: int):
    base = np.random.default_rng(1).integers(0, 256, 1 << 20, dtype=np.uint8)
    for i in range(nbytes >> 20):
        yield (base ^ np.uint8(i)).tobytes()


@pytest.mark.parametrize("command", ["encrypt", "drbg"])
def test_memory_does_not_grow_with_the_input(command, lea, tmp_path):
    """64 MiB through CTR encryption (piped in and out) or out of the DRBG: peak RSS within 32 MiB of the
    same command on empty input; whole-input buffering would add at least 64 MiB.  The output is checked."""
    n = 64 << 20
    if command == "encrypt":
        args = ["encrypt", "lea128", "--mode", "ctr", "--key", K, "--iv", V]
        digest, iv = hashlib.sha256(), IV
        rk = lea.expand_key(KEY)
        for block in _pattern(n):
            out, iv = lea.ctr(rk, iv, block)
            digest.update(out)
        want = digest.hexdigest()
        feed = _pattern
    else:
        args = ["drbg", "lea128", "--entropy", "00" * 32, "--nonce", "00" * 8, "--bytes"]
        d = lea.make_drbg()
        d.instantiate(bytes(32), bytes(8))
        want = hashlib.sha256(d.generate_bulk(n)).hexdigest()

        def feed(_):
            return iter(())

    got, rss = _child(args + ([str(n)] if command == "drbg" else []), feed, n, tmp_path)
    _, rss_empty = _child(args + (["0"] if command == "drbg" else []), feed, 0, tmp_path)
    assert got == want
    assert rss - rss_empty < 32 << 10, f"peak RSS {rss} KiB for 64 MiB vs {rss_empty} KiB for none"


def test_drbg_system_entropy_seeds_from_the_os(tmp_path):
    """--system-entropy with no entropy or nonce given: both drawn from the OS (two runs differ), 16 bytes out."""
    outs = []
    for n in range(2):
        rc, err = cli_run(["drbg", "lea128", "--system-entropy", "--bytes", "16", "-o", str(tmp_path / f"o{n}")])
        assert rc == 0, err
        outs.append((tmp_path / f"o{n}").read_bytes())
    assert len(outs[0]) == 16 and outs[0] != outs[1]
    rc, err = cli_run(["drbg", "lea128", "--system-entropy", "--no-df", "--bytes", "16", "-o", str(tmp_path / "nodf")])
    assert rc == 0, err


def test_drbg_given_entropy_wins_over_the_os(tmp_path):
    """With --entropy and --nonce given, --system-entropy feeds only reseeds: the output is the given seed's."""
    seed = ["--entropy", "11" * 16, "--nonce", "22" * 8, "--bytes", "32"]
    cli_run(["drbg", "lea128", *seed, "-o", str(tmp_path / "a")])
    cli_run(["drbg", "lea128", *seed, "--system-entropy", "-o", str(tmp_path / "b")])
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
