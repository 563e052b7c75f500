"""Bad input at the command line: one line on stderr, exit status 2, nothing on stdout, no traceback.

The cases run the command in-process (driver.cli.run, the function `cipherspec` calls, with stdin,
stdout and stderr swapped for test buffers): a `python -m driver` process costs about a second of
imports and spec parsing. A few run as real processes too, for what only a process shows (the exit
status itself, and that nothing escapes as a traceback)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from fd0 import on_fd0

from driver import cli

LEA_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
GOOD_KAT = (
    "Cipher = lea128\nMode = ECB\nKey = 0f1e2d3c4b5a69788796a5b4c3d2e1f0\n"
    "Plaintext = 101112131415161718191a1b1c1d1e1f\nCiphertext = 9fc84e3528c6c6185532c7a704648bfd\n"
)


def run_process(args, stdin=b""):
    p = subprocess.run([sys.executable, "-m", "driver", *args], input=stdin, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode()


@pytest.fixture
def run(capsysbinary, monkeypatch, tmp_path):
    """(exit status, stdout bytes, stderr text) of `cipherspec ARGS < stdin`, run in this process.  The
    streaming commands read file descriptor 0 itself: stdin is a file put there for the call."""

    def run(args, stdin=b""):
        (tmp_path / "stdin").write_bytes(stdin)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        with on_fd0(tmp_path / "stdin"):
            rc = cli.run(list(args))
        cap = capsysbinary.readouterr()
        return rc, cap.out, cap.err.decode()

    return run


def _kat(tmp_path, text):
    f = tmp_path / "case.txt"
    f.write_text(text)
    return str(f)


NONCE = "cafebabefacedbaddecaf888"
XTS_KEY = LEA_KEY + "00" * 16
AEAD_CASES = [  # refused before the full cipher object is made (quick to run on the C target)
    (
        ["encrypt", "lea128", "--mode", "ctr", "--key", LEA_KEY, "--iv", "00" * 16, "--aad", "00"],
        b"",
        "CTR takes no --aad",
    ),
    (
        ["encrypt", "lea128", "--mode", "gcm", "--key", LEA_KEY, "--iv", NONCE, "--sector-size", "512"],
        b"",
        "GCM takes no --sector-size (XTS only)",
    ),
    (["encrypt", "lea128", "--mode", "gcm", "--key", LEA_KEY, "--iv", NONCE, "--no-pad"], b"", "GCM takes no padding"),
    (
        ["encrypt", "lea128", "--mode", "xts", "--key", XTS_KEY, "--iv", "00" * 16, "--tag-len", "8"],
        b"",
        "XTS takes no --tag-len",
    ),
    (
        ["encrypt", "hight", "--mode", "gcm", "--key", LEA_KEY, "--iv", NONCE],
        b"",
        "GCM needs a 128-bit block; hight has a 64-bit block",
    ),
    (["encrypt", "lea128", "--mode", "gcm", "--key", LEA_KEY], b"x", "GCM needs a nonce: --iv HEX (12 bytes is usual)"),
    (["encrypt", "lea128", "--mode", "gcm", "--key", LEA_KEY, "--iv", ""], b"x", "GCM: the IV is empty"),
    (
        ["encrypt", "lea128", "--mode", "gcm", "--key", LEA_KEY, "--iv", NONCE, "--tag-len", "10"],
        b"x",
        "GCM: a tag is 16, 15, 14, 13, 12, 8 or 4 bytes, got 10",
    ),
    (
        ["decrypt", "lea128", "--mode", "gcm", "--key", LEA_KEY, "--iv", NONCE],
        b"x" * 15,
        "GCM: the input is 15 bytes, shorter than the 16-byte tag",
    ),
    (
        ["encrypt", "lea128", "--mode", "gcm", "--key", LEA_KEY, "--iv", NONCE, "--aad", "0", "--aad-file", "f"],
        b"",
        "give the AAD once: --aad and --aad-file were both given",
    ),
    (["encrypt", "lea128", "--mode", "gcm", "--key", LEA_KEY, "--iv", NONCE, "--aad", "0"], b"", "--aad: odd number"),
    (
        ["encrypt", "lea128", "--mode", "ccm", "--key", LEA_KEY, "--iv", "00" * 6],
        b"x",
        "CCM: the nonce is 7 to 13 bytes, got 6",
    ),
    (
        ["encrypt", "lea128", "--mode", "ccm", "--key", LEA_KEY, "--iv", "00" * 13],
        bytes(70000),
        "CCM: a 13-byte nonce allows at most 65535 bytes of data, got 70000",
    ),
    (
        ["encrypt", "lea128", "--mode", "ccm", "--key", LEA_KEY, "--iv", NONCE, "--tag-len", "5"],
        b"x",
        "CCM: a tag is 4, 6, 8, 10, 12, 14 or 16 bytes, got 5",
    ),
    (
        ["encrypt", "lea128", "--mode", "xts", "--key", LEA_KEY * 2, "--iv", "00" * 16],
        b"x" * 16,
        "XTS: the two key halves are equal",
    ),
    (
        ["encrypt", "lea128", "--mode", "xts", "--key", LEA_KEY, "--iv", "00" * 16],
        b"x" * 16,
        "XTS: the key is two lea128 keys, 32 bytes (key1 || key2), got 16",
    ),
    (["encrypt", "lea128", "--mode", "xts", "--key", XTS_KEY], b"x" * 16, "XTS needs the first sector's 16-byte tweak"),
    (["encrypt", "lea128", "--mode", "xts", "--key", XTS_KEY, "--iv", "00" * 16], b"", "XTS: the input is empty"),
    (
        ["encrypt", "lea128", "--mode", "xts", "--key", XTS_KEY, "--iv", "00" * 16],
        b"x" * 15,
        "its last sector would be 15 bytes",
    ),
    (
        ["encrypt", "lea128", "--mode", "xts", "--key", XTS_KEY, "--iv", "00" * 16, "--sector-size", "8"],
        b"x" * 16,
        "--sector-size: XTS data units are 16 to 16777216 bytes, got 8",
    ),
    (["mac", "lea128", "--mode", "hmac", "--key", LEA_KEY], b"", "unknown MAC mode 'hmac' (modes: cmac)"),
    (
        ["mac", "lea128", "--mode", "cmac", "--key", LEA_KEY, "--tag-len", "17"],
        b"",
        "CMAC: a tag is 1 to 16 bytes, got 17",
    ),
    (
        ["mac", "lea128", "--mode", "cmac", "--key", LEA_KEY, "--verify", "0011", "--tag-len", "4"],
        b"",
        "--verify has 2 bytes but --tag-len is 4",
    ),
    (["mac", "lea128", "--mode", "cmac"], b"", "no key"),
]

CRYPT_CASES = [
    (["encrypt", "lea128", "--mode", "ecb", "--key", "0011"], b"", "lea128 needs a 16-byte key, got 2 bytes"),
    (["encrypt", "lea128", "--mode", "ecb", "--key", "abc"], b"", "--key: odd number of hex digits (3)"),
    (["encrypt", "lea128", "--mode", "ecb", "--key", "zz" * 16], b"", "--key: not hex"),
    (
        ["encrypt", "lea128", "--mode", "cbc", "--key", LEA_KEY, "--iv", "00" * 8],
        b"x" * 16,
        "lea128 needs a 16-byte IV, got 8 bytes",
    ),
    (["encrypt", "lea128", "--mode", "cbc", "--key", LEA_KEY], b"x" * 16, "CBC needs a 16-byte IV: --iv HEX"),
    (
        ["encrypt", "lea128", "--mode", "ecb", "--no-pad", "--key", LEA_KEY],
        b"x" * 17,
        "not a multiple of the 16-byte block",
    ),
    (
        ["decrypt", "hight", "--mode", "cbc", "--key", LEA_KEY, "--iv", "00" * 8],
        b"x" * 9,
        "input is 9 bytes, not a multiple of the 8-byte block",
    ),
    (
        ["encrypt", "lea128", "--mode", "ofb", "--key", LEA_KEY],
        b"",
        "unknown mode 'ofb' (modes: ecb, cbc, ctr, gcm, ccm, xts)",
    ),
    (["encrypt", "nosuch", "--mode", "ecb", "--key", LEA_KEY], b"", "unknown cipher 'nosuch'"),
    (["encrypt", "lea128", "--mode", "ecb", "--key", LEA_KEY, "--target", "fpga"], b"", "unknown target 'fpga'"),
    (["encrypt", "lea128", "--mode", "ecb", "--key", LEA_KEY, "--rounds", "0"], b"", "--rounds must be at least 1"),
    (
        ["encrypt", "lea128", "--mode", "ecb", "--key", LEA_KEY, "--hex"],
        b"0g",
        "hex input from standard input: not hex at digit 2",
    ),
    (["encrypt", "lea128", "--mode", "ecb", "--key", LEA_KEY, "--iv", "00" * 16], b"", "ECB takes no IV"),
    *AEAD_CASES,
    (["dump", "lea128", "--after", "frobnicate"], b"", "unknown pass 'frobnicate'"),
    (["dump", "lea128", "--function", "mac"], b"", "unknown function 'mac'"),
    (["frobnicate"], b"", "invalid choice: 'frobnicate'"),
    (["build", "lea128", "--target", "fpga", "-o", "/tmp/never"], b"", "unknown target 'fpga'"),
    (["build", "nosuch", "--target", "c", "-o", "/tmp/never"], b"", "unknown cipher 'nosuch'"),
]


@pytest.mark.parametrize(
    "args,stdin,message", CRYPT_CASES, ids=[" ".join(c[0][:2]) + ":" + c[2][:30] for c in CRYPT_CASES]
)
def test_bad_command_line(run, args, stdin, message):
    rc, out, err = run(args, stdin)
    assert rc == 2
    assert out == b""
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


KAT_CASES = [
    (GOOD_KAT.replace("Key = 0f1e", "Key = 0f1"), ":3: Key has an odd number of hex digits"),
    (GOOD_KAT.replace("Plaintext = 1011", "Plaintext = zz11"), ":4: Plaintext is not hex"),
    (GOOD_KAT.replace("Ciphertext = 9fc84e3528c6c6185532c7a704648bfd\n", ""), ":1: block has no Ciphertext field"),
    (GOOD_KAT.replace("lea128", "lea999"), ":1: unknown cipher 'lea999'"),
    (GOOD_KAT.replace("Mode = ECB", "Mode = OFB"), ":2: unknown mode 'OFB'"),
    (GOOD_KAT.replace("Mode = ECB", "Mode = CBC"), ":1: block has no IV field"),
    (GOOD_KAT.replace("Key = 0f1e2d3c4b5a69788796a5b4c3d2e1f0", "Key = 0f1e"), ":3: lea128 needs a 16-byte key, got 2"),
    (GOOD_KAT + "Rounds = x\n", ":6: Rounds must be a positive integer"),
    (GOOD_KAT.replace("Mode = ECB\n", "Mode = ECB\nMode = CBC\n"), ":3: Mode appears twice in one block"),
    ("this is not a kat file\n", ":1: expected 'Name = value'"),
    ("# only comments\n", "no test blocks"),
]


@pytest.mark.parametrize("text,message", KAT_CASES, ids=[c[1] for c in KAT_CASES])
def test_malformed_kat_file(run, tmp_path, text, message):
    path = _kat(tmp_path, text)
    rc, out, err = run(["kat", path])
    assert rc == 2, err
    assert out == b""  # a malformed file stops before any report
    assert f"{path}{message}" in err or message in err
    assert "Traceback" not in err


def test_missing_kat_file(run, tmp_path):
    rc, out, err = run(["kat", str(tmp_path / "nope.txt")])
    assert rc == 2 and "cannot read" in err and out == b""


def test_unreadable_spec_is_a_spec_error(run, tmp_path):
    rc, out, err = run(["check", str(tmp_path / "nope.cs")])
    assert rc == 2 and "cannot read spec" in err


def test_build_into_unwritable_dir_leaves_nothing(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    rc, out, err = run_process(["build", "lea128", "--target", "ref", "-o", str(blocker / "out")])
    assert rc == 2
    assert blocker.read_text() == "not a directory"
    assert list(tmp_path.iterdir()) == [blocker]


KEY_FILE_CASES = [  # (file content, extra args, message)
    (b"\x01" * 17, [], "--key-file KEY: 17 bytes; lea128 needs a 16-byte key: the 16 raw bytes, or 32 hex digits"),
    (b"\x01" * 15, [], "--key-file KEY: 15 bytes; lea128 needs a 16-byte key"),
    (b"", [], "--key-file KEY: 0 bytes; lea128 needs a 16-byte key"),
    (LEA_KEY[:30].encode() + b"\n", [], "--key-file KEY: 30 hex digits; lea128 needs a 16-byte key"),
    (LEA_KEY[:16].encode(), [], "--key-file KEY: 16 hex digits, the hex of a 8-byte key; lea128 needs a 16-byte key"),
    (b"\x01" * 16, ["--key", LEA_KEY], "give the key once: --key and --key-file were both given"),
    (b"\x01" * (70 << 10), [], "--key-file KEY: more than 64 KiB"),
]


@pytest.mark.parametrize("content,extra,message", KEY_FILE_CASES, ids=[c[2][:40] for c in KEY_FILE_CASES])
def test_bad_key_file(tmp_path, content, extra, message):
    """A key file of the wrong length (raw or hex) or given twice: exit 2, one line, nothing on stdout; the
    message never shows the key."""
    key = tmp_path / "k"
    key.write_bytes(content)
    rc, out, err = run_process(
        ["encrypt", "lea128", "--mode", "ctr", "--iv", "00" * 16, "--key-file", str(key), *extra], b"data"
    )
    assert rc == 2 and out == b""
    assert message.replace("KEY", str(key)) in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "0101" not in err and LEA_KEY[:16] not in err.replace(str(key), "")


@pytest.mark.parametrize(
    "args,stdin,message",
    [
        (["--key-fd", "0"], b"data", "--key-fd 0 is standard input, which carries the data here"),
        (["--key-fd", "99"], b"data", "--key-fd 99: cannot read: Bad file descriptor"),
        (
            ["--key-file", "/nonexistent/k"],
            b"data",
            "--key-file /nonexistent/k: cannot read: No such file or directory",
        ),
        ([], b"data", "no key: give --key-file PATH, --key-fd N, $CIPHERSPEC_KEY or --key HEX"),
        (["--key", LEA_KEY, "-i", "/nonexistent/in"], b"", "cannot read /nonexistent/in: No such file or directory"),
    ],
)
def test_bad_key_source(args, stdin, message):
    rc, out, err = run_process(["encrypt", "lea128", "--mode", "ctr", "--iv", "00" * 16, *args], stdin)
    assert rc == 2 and out == b"" and message in err and len(err.strip().splitlines()) == 1, err


def test_bad_output_path_creates_nothing(tmp_path):
    rc, out, err = run_process(
        [
            "encrypt",
            "lea128",
            "--mode",
            "ctr",
            "--key",
            LEA_KEY,
            "--iv",
            "00" * 16,
            "-o",
            str(tmp_path / "missing" / "out"),
        ],
        b"data",
    )
    assert rc == 2 and f"cannot write {tmp_path / 'missing' / 'out'}: No such file or directory" in err
    assert list(tmp_path.iterdir()) == []


PROCESS_CASES = [
    c for c in CRYPT_CASES if c[2] in ("not a multiple of the 16-byte block", "invalid choice: 'frobnicate'")
]


@pytest.mark.parametrize("args,stdin,message", PROCESS_CASES, ids=["input length", "argparse"])
def test_the_process_exits_2_with_one_line(args, stdin, message):
    rc, out, err = run_process(args, stdin)
    assert (rc, out) == (2, b"")
    assert err.startswith("cipherspec: error: ") and message in err and len(err.strip().splitlines()) == 1


def test_the_process_reports_a_malformed_kat_file(tmp_path):
    text, message = KAT_CASES[0]
    path = _kat(tmp_path, text)
    rc, out, err = run_process(["kat", path])
    assert (rc, out) == (2, b"")
    assert f"{path}{message}" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["--entropy", "00" * 16],
            "the nonce is 0 bytes; with the derivation function it must be at least 8 (half the 128-bit security "
            "strength); set it with --nonce HEX or --system-entropy",
        ),
        (
            ["--entropy", "00" * 15, "--nonce", "00" * 8],
            "the entropy input is 15 bytes; it must be at least the 128-bit security strength (16 bytes); "
            "set it with --entropy-file, --entropy-fd, --entropy or --system-entropy",
        ),
        (
            ["--entropy", "00" * 16, "--no-df"],
            "the entropy input is 16 bytes; without the derivation function it must be exactly seedlen = 32 bytes; "
            "set it with --entropy-file, --entropy-fd or --entropy (or drop --no-df)",
        ),
        (
            ["--entropy", "00" * 32, "--no-df", "--personalization", "00" * 33],
            "the personalization string is 33 bytes; without the derivation function it is at most seedlen = 32 "
            "bytes; set it with --personalization (or drop --no-df)",
        ),
    ],
)
@pytest.mark.parametrize("target", ["c", "ref"])
def test_drbg_names_the_one_limit_broken(run, args, message, target):
    """Each SP 800-90A limit is its own message, with the option that changes the input (issue 23)."""
    rc, out, err = run(["drbg", "lea128", *args, "--bytes", "16", "--hex", "--target", target])
    assert (rc, out) == (2, b"")
    assert err == f"cipherspec: error: {message}\n"
