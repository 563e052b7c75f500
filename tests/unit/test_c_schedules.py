"""The C target's schedule names, parsing and defaults; the table-fusion transform; the shuffle masks."""
from __future__ import annotations

import json

import pytest

from cipherspec.errors import UsageError
from cipherspec.gf import gf_mul
from cipherspec.passes import fuse_tables
from generator.c.schedules import DEFAULTS_FILE, c_schedules, default_schedule, lanes, parse_schedule
from generator.c.source import byte_rotation_mask


def test_names_round_trip(registry):
    for name in registry.names():
        module = registry.module(name)
        for s in c_schedules(module):
            assert parse_schedule(module, s.name) == s
            assert parse_schedule(module, s.name.split("_c_", 1)[1]) == s


def test_lanes_follow_the_block_word(registry):
    assert lanes(registry.module("lea128"), parse_schedule(registry.module("lea128"), "sliced_v32")) == 8
    assert lanes(registry.module("aria128"), parse_schedule(registry.module("aria128"), "sliced_v16")) == 16
    assert lanes(registry.module("cham64_128"), parse_schedule(registry.module("cham64_128"), "sliced_v32")) == 16
    assert lanes(registry.module("hight"), parse_schedule(registry.module("hight"), "scalar")) == 1


def test_table_option_only_where_it_means_something(registry):
    aes, lea = registry.module("aes128"), registry.module("lea128")
    assert parse_schedule(aes, "scalar").name == "aes128_c_scalar_tbytes"
    assert parse_schedule(aes, "sliced_tfused").name == "aes128_c_sliced_tfused_v32"
    with pytest.raises(UsageError, match="unknown schedule params"):
        parse_schedule(lea, "scalar_tfused")


def test_defaults_file_names_every_cipher_with_a_valid_schedule(registry):
    defaults = json.loads(DEFAULTS_FILE.read_text())
    assert sorted(defaults) == registry.names()
    for name in registry.names():
        assert default_schedule(registry.module(name)).layout in ("scalar", "sliced")


def test_fuse_gmul_of_lookup(registry):
    module = registry.module("aes128")
    fn, tables = fuse_tables.fuse(module.functions["encrypt"], module.tables)
    assert not any(op.code == "gmul" and fn.ops[op.args[0]].code == "lut" for op in fn.ops)
    fused = tables["S_x03"]
    assert fused.values == tuple(gf_mul(v, 3, 0x11B) for v in module.tables["S"].values)


def test_byte_rotation_mask():
    assert byte_rotation_mask(32, 8, 2) == "3, 0, 1, 2, 7, 4, 5, 6"
    assert byte_rotation_mask(16, 8, 2) == "1, 0, 3, 2"
    assert byte_rotation_mask(32, 24, 1) == "1, 2, 3, 0"
