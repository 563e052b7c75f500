"""The interpreter (target ref) against every block-cipher vector in ../shared/vectors, both directions."""

from __future__ import annotations

import io

import pytest
from paths import BLOCK_VECTOR_FILES

from cipherspec.kat import parse_kat_file, run_kat_file
from driver import cli


@pytest.mark.parametrize("name", BLOCK_VECTOR_FILES)
def test_vector_file_passes(name, vectors, make_ref, registry):
    path = vectors / name
    report = run_kat_file(str(path), make_ref, set(registry.names()))
    assert report.failures == []
    expected = sum(1 for b in parse_kat_file(path) if not b.is_drbg)
    assert report.passed == expected > 0
    assert report.failed == 0


def test_cli_kat_all_block_files(vectors):
    out = io.StringIO()
    rc = cli.run(["kat", *[str(vectors / n) for n in BLOCK_VECTOR_FILES]], out=out)
    assert rc == 0, out.getvalue()
    assert "17 passed, 0 failed" in out.getvalue()


def test_cham_original_rounds_come_from_the_round_override(vectors, make_ref):
    """The CHAM vectors are the ORIGINAL 80/80/96-round cipher; the default is the revised one."""
    blocks = parse_kat_file(vectors / "cham.txt")
    b = blocks[0]
    key, pt, ct = (bytes.fromhex(b.fields[k]) for k in ("Key", "Plaintext", "Ciphertext"))
    revised = make_ref(b.fields["Cipher"])
    original = make_ref(b.fields["Cipher"], int(b.fields["Rounds"]))
    assert original.encrypt_blocks(original.expand_key(key), pt).tobytes() == ct
    assert revised.encrypt_blocks(revised.expand_key(key), pt).tobytes() != ct


def test_a_wrong_ciphertext_fails_with_exit_1(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(
        "Cipher = lea128\nMode = ECB\nKey = 0f1e2d3c4b5a69788796a5b4c3d2e1f0\n"
        "Plaintext = 101112131415161718191a1b1c1d1e1f\nCiphertext = 9fc84e3528c6c6185532c7a704648bfe\n"
    )
    out = io.StringIO()
    assert cli.run(["kat", str(bad)], out=out) == 1
    assert "0 passed, 1 failed" in out.getvalue()
    assert "encrypt gave 9fc84e35" in out.getvalue()
