"""The C target's schedule names, parsing and defaults; the table-fusion transform; the shuffle masks."""

from __future__ import annotations

import pytest

from cipherspec.errors import UsageError
from cipherspec.gf import gf_mul
from cipherspec.passes import fuse_tables
from generator.c.portable import byte_rotation_mask
from generator.c.schedules import c_schedules, default_schedule, lanes, parse_schedule


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


def test_defaults_are_constant_time(registry):
    """Table ciphers default to the AES-NI kernels (bitsliced fallback), the others to sliced_v32."""
    for name in registry.names():
        layout = default_schedule(registry.module(name)).layout
        assert layout == ("aesni" if name.startswith(("aes", "aria")) else "sliced"), name


def test_aesni_lowers_aes_as_rounds_and_aria_byte_sliced(registry):
    from generator.c.aesni import plan

    for name in ("aes128", "aes192", "aes256"):
        p = plan(registry.module(name))
        assert [p.programs[k].describe() for k in ("encrypt", "decrypt")] == [
            f"AddRoundKey, {registry.module(name).rounds - 1} x AESENC, AESENCLAST",
            f"AddRoundKey, {registry.module(name).rounds - 1} x AESDEC, AESDECLAST",
        ]
    p = plan(registry.module("aria128"))
    assert p.programs == {"encrypt": None, "decrypt": None}
    assert "S-box layer 1 uses SB1, SB2, SB3, SB4" in p.why_not_rounds["encrypt"]


def test_aesni_refuses_what_it_cannot_lower(registry):
    for name, why in (("lea128", "no S-box lookups"), ("pipo64_128", "no S-box lookups")):
        with pytest.raises(UsageError, match=f"schedule aesni is not available for {name}: {why}"):
            parse_schedule(registry.module(name), "aesni")


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
