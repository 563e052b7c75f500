"""OpenSSL algorithm names for generated ciphers, and the provider's generated text."""

from __future__ import annotations

import pytest
from paths import TOY_SPEC

from cipherspec.errors import UsageError
from cipherspec.registry import Registry
from generator.openssl.names import algorithm_name, check_unique
from generator.openssl.source import provider_files

SHIPPED = {
    "aes128": "AES-128",
    "aes192": "AES-192",
    "aes256": "AES-256",
    "aria128": "ARIA-128",
    "aria192": "ARIA-192",
    "aria256": "ARIA-256",
    "lea128": "LEA-128",
    "lea192": "LEA-192",
    "lea256": "LEA-256",
    "hight": "HIGHT",
    "cham64_128": "CHAM-64-128",
    "cham128_128": "CHAM-128-128",
    "cham128_256": "CHAM-128-256",
    "pipo64_128": "PIPO-64-128",
    "pipo64_256": "PIPO-64-256",
}


def test_every_shipped_cipher_has_its_openssl_name(registry):
    assert sorted(registry.names()) == sorted(SHIPPED)
    for name, stem in SHIPPED.items():
        m = registry.module(name)
        assert [algorithm_name(m, mode) for mode in ("ecb", "cbc", "ctr")] == [
            f"{stem}-ECB",
            f"{stem}-CBC",
            f"{stem}-CTR",
        ]
    check_unique([registry.module(n) for n in SHIPPED])


def test_a_user_spec_cipher_is_named_by_the_same_rule():
    reg = Registry([TOY_SPEC])
    assert algorithm_name(reg.module("toy4"), "ctr") == "TOY-4-CTR"
    with pytest.raises(UsageError, match="unknown mode 'ofb'"):
        algorithm_name(reg.module("toy4"), "ofb")


def test_glue_is_deterministic_and_lists_every_algorithm(registry):
    from generator.c.schedules import resolve

    entries = [(registry.module(n), resolve(registry.module(n), None)) for n in ("hight", "lea128")]
    a, b = provider_files(entries), provider_files(entries)
    assert a == b and set(a) == {"src/cipherspec_provider.c", "openssl.cnf"}
    glue = a["src/cipherspec_provider.c"]
    for name in ("HIGHT-ECB", "HIGHT-CBC", "HIGHT-CTR", "LEA-128-ECB", "LEA-128-CBC", "LEA-128-CTR"):
        assert f'{{ "{name}", "provider=cipherspec", ' in glue
    assert "#define CS_MAX_BLOCK 16" in glue and '#include "hight.h"' in glue
    assert "activate = 1" in a["openssl.cnf"] and "module = cipherspec.so" in a["openssl.cnf"]
    with pytest.raises(UsageError, match="twice"):
        provider_files(entries + entries[:1])


def test_glue_compiles_without_warnings(registry, tmp_path):
    """-Wall -Wextra -Wpedantic -Werror on the generated glue (the C libraries have their own tests)."""
    import shutil
    import subprocess

    from openssl_support import require_openssl

    from generator.c.schedules import resolve
    from generator.openssl.build import source_tree
    from toolchain.openssl import find_dev

    require_openssl()
    dev = find_dev()
    entries = [(registry.module(n), resolve(registry.module(n), None)) for n in ("hight", "aes128")]
    for rel, text in source_tree(entries).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    cc = shutil.which("cc") or "cc"
    p = subprocess.run(
        [
            cc,
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-fsyntax-only",
            f"-I{tmp_path / 'include'}",
            *dev.cflags,
            str(tmp_path / "src" / "cipherspec_provider.c"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
