"""The command line, used as a person would: list, check, dump, encrypt/decrypt round trips, binary and hex I/O."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from cipherspec.registry import shipped_spec_files
from driver import cli


def run(args, stdin=b""):
    p = subprocess.run([sys.executable, "-m", "driver", *args], input=stdin, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode()


def test_list_shows_every_variant(registry):
    out = io.StringIO()
    assert cli.run(["list"], out=out) == 0
    text = out.getvalue()
    for name in registry.names():
        assert name in text
    assert len(registry.names()) == 15


def test_check_all_shipped_specs(capsys):
    out = io.StringIO()
    assert cli.run(["check", *map(str, shipped_spec_files())], out=out) == 0
    assert out.getvalue().count(": ok (") == len(shipped_spec_files())
    assert "warning" not in capsys.readouterr().err  # every shipped decrypt inverts its encrypt


def test_check_warns_where_decrypt_does_not_invert_encrypt(tmp_path, capsys):
    """A lint, not an error: the warning names the cipher and decrypt's header line; exit 0 (the conformance specs'
    decrypt need not invert encrypt).  A cipher whose decrypt reads the round keys in the wrong order gets it."""
    spec = tmp_path / "toy.cs"
    spec.write_text(
        """family toy(rounds) {
  block u32[2] little;
  key   u32[2] little;
  key_schedule(K) -> rk: u32[rounds][2] {
    for i in 0..rounds { rk[i] = [k ^ (i + 1) for k in K]; }
  }
  encrypt(X, rk) {
    for i in 0..rounds { X = [X[1] ^ rk[i][0], (X[0] <<< 3) ^ rk[i][1]]; }
  }
  decrypt(X, rk) {
    for i in 0..rounds { X = [(X[1] ^ rk[i][1]) >>> 3, X[0] ^ rk[i][0]]; }
  }
}
cipher toy1 = toy(rounds = 1);
cipher toy3 = toy(rounds = 3);
"""
    )
    out = io.StringIO()
    assert cli.run(["check", str(spec)], out=out) == 0
    err = capsys.readouterr().err
    assert f"{spec}:10:3: warning: toy3: decrypt is not the inverse of encrypt" in err  # (rk[i], not rk[rounds-1-i])
    assert "toy1" not in err  # one round: the order cannot be wrong


def test_dump_after_each_pass_and_dump_dir(tmp_path):
    for p in ("lower", "constfold", "cse", "xornet", "dce"):
        out = io.StringIO()
        assert cli.run(["dump", "pipo64_128", "--after", p, "--function", "encrypt"], out=out) == 0
        assert out.getvalue().startswith("; pipo64_128 (family pipo")
    out = io.StringIO()
    assert cli.run(["dump", "lea128", "--dump-dir", str(tmp_path)], out=out) == 0
    files = sorted(f.name for f in tmp_path.iterdir())
    assert files == ["00-lower.ir", "01-constfold.ir", "02-cse.ir", "03-xornet.ir", "04-dce.ir"]
    assert "(unchanged)" in out.getvalue() or all("(unchanged)" not in (tmp_path / f).read_text() for f in files)


def test_dump_shows_what_a_backend_compiles(tmp_path):
    """--target appends the backend's own passes: after lower_gmul the C target's IR has no gmul left (a table
    schedule: the default aes128 library is aesni, whose rounds keep their gmuls for the AES-round matcher)."""

    def dump(*args):
        out = io.StringIO()
        assert cli.run(["dump", "aes128", "--function", "encrypt", "--no-origin", *args], out=out) == 0
        return out.getvalue()

    assert " gmul." in dump("--after", "dce")
    assert " gmul." not in dump("--target", "c", "--schedule", "sliced_tbytes_v16", "--after", "lower_gmul")
    assert " gmul." in dump("--target", "c", "--schedule", "bitsliced_v32", "--after", "dce.2")  # kept: plane XORs
    out = io.StringIO()
    assert (
        cli.run(
            ["dump", "aes128", "--target", "c", "--schedule", "sliced_tfused_v16", "--dump-dir", str(tmp_path)], out=out
        )
        == 0
    )
    names = [f.name for f in sorted(tmp_path.iterdir())]
    assert names[4:] == [
        "04-dce.ir",
        "05-fuse_tables.ir",
        "06-lower_gmul.ir",
        "07-constfold.2.ir",
        "08-cse.2.ir",
        "09-dce.2.ir",
        "10-prune_tables.ir",
    ]
    assert "@S_x02" in (tmp_path / "05-fuse_tables.ir").read_text()


def test_binary_round_trip_every_mode():
    """ECB and CBC pad by default (a whole block of padding on whole-block input); CTR keeps the length."""
    key = os.urandom(16).hex()
    iv = os.urandom(8).hex()
    data = os.urandom(8 * 9)
    for mode in ("ecb", "cbc", "ctr"):
        extra = [] if mode == "ecb" else ["--iv", iv]
        rc, ct, err = run(["encrypt", "hight", "--mode", mode, "--key", key, *extra], data)
        assert rc == 0, err
        assert len(ct) == len(data) + (0 if mode == "ctr" else 8) and ct[: len(data)] != data
        rc, pt, err = run(["decrypt", "hight", "--mode", mode, "--key", key, *extra], ct)
        assert rc == 0 and pt == data


def test_hex_io_matches_the_vector():
    rc, out, err = run(
        ["encrypt", "aria128", "--mode", "ecb", "--no-pad", "--key", "000102030405060708090a0b0c0d0e0f", "--hex"],
        b"00112233445566778899aabbccddeeff\n",
    )
    assert rc == 0, err
    assert out == b"d718fbd6ab644c739da95f3be6451778\n"


def test_round_override_on_the_command_line():
    args = ["encrypt", "cham128_128", "--mode", "ecb", "--no-pad", "--key", "03020100070605040b0a09080f0e0d0c", "--hex"]
    rc, out, _ = run(args + ["--rounds", "80"], b"3322110077665544bbaa9988ffeeddcc")
    assert out == b"c3746034b55700c58d64ec32489332f7\n"


def test_extra_spec_file_adds_a_cipher():
    from paths import TOY_SPEC

    rc, out, err = run(
        ["encrypt", "toy4", "--spec", str(TOY_SPEC), "--mode", "ecb", "--no-pad", "--key", "00" * 8, "--hex"],
        b"0001020304050607",
    )
    assert rc == 0, err
    rc2, back, _ = run(
        ["decrypt", "toy4", "--spec", str(TOY_SPEC), "--mode", "ecb", "--no-pad", "--key", "00" * 8, "--hex"], out
    )
    assert back == b"0001020304050607\n"


def test_every_command_is_documented():
    """driver/cli.py's docstring and the manual's command table (docs/cli.md) name every subcommand."""
    from paths import ROOT

    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    rows = [
        line.split("`")[1]
        for line in (ROOT / "docs" / "cli.md").read_text().splitlines()
        if line.startswith("| `cipherspec ")
    ]
    in_readme = {name for row in rows for name in row.split()[1].split("\\|")}
    in_doc = {
        name
        for line in cli.__doc__.splitlines()
        if line.strip().startswith("cipherspec ")
        for name in line.split()[1].split("|")
    }
    assert set(sub.choices) - in_doc == set(), "missing from driver/cli.py's docstring"
    assert set(sub.choices) - in_readme == set(), "missing from docs/cli.md's command table"
