"""CTR_DRBG: the NIST and KISA vectors, every limit refused with a clear error and no output, the CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cipherspec.drbg import CtrDrbg, DrbgError
from cipherspec.drbg_kat import make_drbg_runner
from cipherspec.kat import FileReport, parse_kat_file


@pytest.mark.parametrize("name,count", [("ctr_drbg_aes.txt", 6), ("ctr_drbg_kisa_sample.txt", 1)])
def test_vectors(vectors, make_ref, name, count):
    report = FileReport(name)
    make_drbg_runner(make_ref)([b for b in parse_kat_file(vectors / name) if b.is_drbg], report)
    assert report.failures == []
    assert report.passed == count


@pytest.fixture
def drbg(make_ref):
    d = CtrDrbg(make_ref("aes128"))
    d.instantiate(bytes(range(16)), bytes(8))
    return d


def test_request_limit(drbg):
    drbg.generate(1 << 16)  # exactly 2^19 bits is allowed
    with pytest.raises(DrbgError, match=r"at most 2\^19 bits"):
        drbg.generate((1 << 16) + 1)


@pytest.mark.parametrize("name", ["lea128", "aes256", "hight"])
def test_bulk_is_consecutive_requests(make_ref, name):
    """The host-side (Key, V) chain plus one keystream pass equals calling generate() request by request."""
    c = make_ref(name)
    a, b = CtrDrbg(c), CtrDrbg(c)
    for d in (a, b):
        d.instantiate(bytes(range(c.key_bytes)), bytes(c.key_bytes // 2))
    bulk = a.generate_bulk(5003, request_bytes=1024)
    assert bulk == b"".join(b.generate(n) for n in (1024,) * 4 + (907,))
    assert a.generate(33) == b.generate(33)  # and the states agree afterwards
    assert a.reseed_counter == b.reseed_counter == 7


def test_bulk_reseeds_at_the_interval(make_ref):
    c = make_ref("aes128")
    feed = [bytes([i]) * 16 for i in range(1, 10)]
    a = CtrDrbg(c, reseed_interval=2, entropy_source=lambda n: feed[0])
    b = CtrDrbg(c, reseed_interval=2, entropy_source=lambda n: feed[0])
    for d in (a, b):
        d.instantiate(bytes(16), bytes(8))
    assert a.generate_bulk(16 * 5, request_bytes=16) == b"".join(b.generate(16) for _ in range(5))


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"reseed_interval": 0}, "reseed interval must be 1..2"),
        ({"reseed_interval": (1 << 48) + 1}, "reseed interval must be 1..2"),
    ],
)
def test_bad_reseed_interval(make_ref, kwargs, message):
    with pytest.raises(DrbgError, match=message):
        CtrDrbg(make_ref("aes128"), **kwargs)


def test_input_lengths(make_ref):
    c = make_ref("aes128")
    with pytest.raises(DrbgError, match=r"^the entropy input is 15 bytes; it must be at least .* \(16 bytes\)$"):
        CtrDrbg(c).instantiate(bytes(15), bytes(8))
    with pytest.raises(
        DrbgError, match=r"^the nonce is 7 bytes; .* at least 8 \(half the 128-bit security strength\)$"
    ):
        CtrDrbg(c).instantiate(bytes(16), bytes(7))
    with pytest.raises(DrbgError, match="entropy input is 16 bytes; .* exactly seedlen = 32 bytes$"):
        CtrDrbg(c, use_df=False).instantiate(bytes(16))
    with pytest.raises(DrbgError, match="personalization string is 33 bytes; .* at most seedlen = 32 bytes$"):
        CtrDrbg(c, use_df=False).instantiate(bytes(32), b"", bytes(33))
    with pytest.raises(DrbgError, match="additional input is 33 bytes") as e:
        d = CtrDrbg(c, use_df=False)
        d.instantiate(bytes(32))
        d.generate(16, bytes(33))
    assert e.value.option == "--additional (or drop --no-df)"
    with pytest.raises(DrbgError, match="not instantiated"):
        CtrDrbg(c).generate(16)


def test_reseed_interval_needs_entropy(make_ref):
    d = CtrDrbg(make_ref("aes128"), reseed_interval=1)
    d.instantiate(bytes(16), bytes(8))
    d.generate(16)
    with pytest.raises(DrbgError, match="reseed required"):
        d.generate(16)
    d2 = CtrDrbg(make_ref("aes128"), reseed_interval=1, entropy_source=lambda n: bytes(n))
    d2.instantiate(bytes(16), bytes(8))
    assert d2.generate(16) != d2.generate(16)


def test_prediction_resistance_must_be_instantiated(drbg):
    with pytest.raises(DrbgError, match="prediction resistance was not requested"):
        drbg.generate(16, prediction_resistance=True)


def test_64_bit_block_cipher_hight(make_ref):
    """HIGHT (TTAK.KO-12.0189): outlen 64, seedlen 192; deterministic and entropy-dependent."""
    outs = []
    for e in (bytes(16), bytes(15) + b"\x01"):
        d = CtrDrbg(make_ref("hight"))
        d.instantiate(e, bytes(8))
        outs.append(d.generate(40))
    assert d.seedlen == 24 and outs[0] != outs[1] and len(outs[0]) == 40


def test_cli_matches_api(make_ref):
    d = CtrDrbg(make_ref("lea128"))
    d.instantiate(bytes(range(32)), bytes(8))
    want = d.generate_bulk(100, request_bytes=64)
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "driver",
            "drbg",
            "lea128",
            "--entropy",
            bytes(range(32)).hex(),
            "--nonce",
            "00" * 8,
            "--bytes",
            "100",
            "--request-bytes",
            "64",
            "--hex",
        ],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode().strip() == want.hex()


def test_cli_refuses_a_limit_with_no_output():
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "driver",
            "drbg",
            "aes128",
            "--entropy",
            "00" * 16,
            "--nonce",
            "00" * 8,
            "--bytes",
            "100",
            "--request-bytes",
            str((1 << 16) + 16),
        ],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 2 and p.stdout == b""
    assert "at most 2^19 bits" in p.stderr.decode()
