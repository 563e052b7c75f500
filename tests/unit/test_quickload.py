"""The remembered cipher -> library entries (driver/quickload.py): a key for every input that decides the
library, a hit that runs the same library as the slow path (through ctypes alone), and a miss for
anything doubtful: a damaged entry, another cipher's, a library whose bytes or schedule changed."""

from __future__ import annotations

import json
import os

import pytest
from paths import TOY_SPEC

from driver import quickload
from runtime.c_library import CLibrary
from runtime.c_target import CCipher


@pytest.fixture
def entries(tmp_path, monkeypatch):
    monkeypatch.setattr(quickload, "_entry", lambda key: tmp_path / f"{key}.json")
    return tmp_path


def test_every_input_changes_the_key(tmp_path, monkeypatch):
    base = quickload.fingerprint([], "lea128", None, "c", None)
    assert base == quickload.fingerprint([], "lea128", None, "c", None)
    others = [
        quickload.fingerprint([], "aes128", None, "c", None),
        quickload.fingerprint([], "lea128", 20, "c", None),
        quickload.fingerprint([], "lea128", None, "c", "scalar"),
        quickload.fingerprint([], "lea128", None, "neon", None),
        quickload.fingerprint([str(TOY_SPEC)], "lea128", None, "c", None),
    ]
    monkeypatch.setenv("CIPHERSPEC_CFLAGS", "-O1")
    others.append(quickload.fingerprint([], "lea128", None, "c", None))
    assert len({base, *others}) == len(others) + 1
    spec = tmp_path / "toy.cs"
    spec.write_text(TOY_SPEC.read_text())
    before = quickload.fingerprint([str(spec)], "toy4", None, "c", None)
    spec.write_text(TOY_SPEC.read_text() + "\n# an edit\n")
    assert quickload.fingerprint([str(spec)], "toy4", None, "c", None) != before
    assert quickload.fingerprint([str(tmp_path / "missing.cs")], "toy4", None, "c", None) is None


def _ecb(cipher, key: bytes, data: bytes) -> bytes:
    buf = bytearray(data)
    cipher.crypt_into(cipher.expand_key(key), "ecb", "encrypt", buf, len(buf))
    return bytes(buf)


def test_a_hit_is_the_same_library(entries):
    slow = quickload.load_cipher([], "hight", None, "c", None)  # a miss: resolved, then remembered
    assert len(list(entries.iterdir())) == 1
    fast = quickload.load_cipher([], "hight", None, "c", None)
    assert type(fast) is CLibrary and type(slow) is CCipher  # the hit: ctypes only, no module or schedule
    assert fast.lib_path == slow.lib_path and fast.schedule_name == slow.schedule.name
    assert (fast.block_bytes, fast.key_bytes) == (slow.block_bytes, slow.key_bytes)
    key, data = os.urandom(16), os.urandom(64)
    assert _ecb(fast, key, data) == _ecb(slow, key, data) == slow.run_mode(slow.expand_key(key), "ecb", "encrypt", data)


def test_a_doubtful_entry_is_a_miss(entries):
    quickload.load_cipher([], "hight", None, "c", None)
    (entry,) = entries.iterdir()
    key, good = entry.stem, json.loads(entry.read_text())
    entry.write_bytes(b"not json")
    assert quickload._hit(key, "hight", None) is None
    assert quickload.load_cipher([], "hight", None, "c", None).name == "hight"  # and it is written again
    assert json.loads(entry.read_text()) == good
    assert quickload._hit(key, "hight", None) is not None
    assert quickload._hit(key, "lea128", None) is None  # an entry of another cipher is never used
    assert quickload._hit(key, "hight", 20) is None
    for field, value in (
        ("lib_sha256", "0" * 64),
        ("schedule", "not " + good["schedule"]),
        ("lib", str(entries / "gone.so")),
    ):
        entry.write_text(json.dumps(dict(good, **{field: value})))  # rebuilt or damaged, another schedule, gone
        assert quickload._hit(key, "hight", None) is None, field
