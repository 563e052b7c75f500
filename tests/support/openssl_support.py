"""Helpers for the OpenSSL provider tests: the tools they need, the `openssl` command, the oracle's
PKCS#7, and the EVP test program (tests/data/evp_stream.c) built against a provider build.

A missing tool (openssl, a C compiler, OpenSSL 3's headers) skips with the reason, and FAILS under
CIPHERSPEC_REQUIRE_TOOLS=1 (CI)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from paths import ROOT
from shipped import shipped_registry
from tools import missing, require

PROVIDER_DIR = "lib/ossl-modules"


def require_openssl() -> None:
    from toolchain.errors import ToolError
    from toolchain.openssl import find_dev

    require("openssl", "cc")
    try:
        find_dev()
    except ToolError as e:
        missing("OpenSSL 3's development files", str(e))


def pkcs7(data: bytes, block: int) -> bytes:
    n = block - len(data) % block
    return data + bytes([n]) * n


def provider_args(out: Path, propq: str | None = "provider=cipherspec") -> list[str]:
    """`openssl` options that load our provider (and the default one, for everything else)."""
    args = ["-provider-path", str(out / PROVIDER_DIR), "-provider", "cipherspec", "-provider", "default"]
    return args + (["-propquery", propq] if propq else [])


def openssl_enc(
    out: Path,
    alg: str,
    key: bytes,
    iv: bytes | None,
    src: Path,
    dst: Path,
    decrypt: bool = False,
    nopad: bool = False,
    propq: str | None = "provider=cipherspec",
) -> subprocess.CompletedProcess:
    cmd = [
        "openssl",
        "enc",
        *provider_args(out, propq),
        "-" + alg.lower(),
        "-K",
        key.hex(),
        "-in",
        str(src),
        "-out",
        str(dst),
    ]
    cmd += (["-iv", iv.hex()] if iv is not None else []) + (["-d"] if decrypt else []) + (["-nopad"] if nopad else [])
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def evp_program(out: Path, library: str | None, flags: tuple[str, ...] = ("-O0", "-g")) -> Path:
    """tests/data/evp_stream.c compiled against OpenSSL 3 (cached); with ``library``, that cipher's
    generated C library (from the provider build ``out``, default schedule: every object of it, ISA
    variants and dispatcher included) is linked in for the zeroization check."""
    from toolchain.cc import Toolchain, compile_cached, link_cached
    from toolchain.openssl import find_dev

    dev = find_dev()
    tc = Toolchain(cc=os.environ.get("CC", "cc"), flags=("-std=c99", *flags), link_flags=dev.libs)
    files = {"evp_stream.c": (ROOT / "tests" / "data" / "evp_stream.c").read_text()}
    if not library:
        return compile_cached(files, ["evp_stream.c"], "exe", tc, extra_args=list(dev.cflags))
    from generator.c.build import library_objects
    from generator.c.schedules import resolve

    module = shipped_registry().module(library)
    objs = library_objects(module, resolve(module, None), tc)
    lib = {str(p.relative_to(out)): p.read_text() for p in sorted((out / "include").glob("*.h"))}
    lib.update({src: (out / src).read_text() for src, _ in objs})
    objects = [compile_cached(lib, [src], "object", tc, ["include"], list(extra)) for src, extra in objs]
    files.update({rel: text for rel, text in lib.items() if rel.startswith("include/")})
    objects.append(
        compile_cached(
            files,
            ["evp_stream.c"],
            "object",
            tc,
            ["include"],
            [*dev.cflags, f"-DCS_CIPHER={library}", "-include", f"{library}.h"],
        )
    )
    return link_cached(objects, "exe", tc)


def run_evp(
    exe: Path, out: Path, alg: str, propq: str, key: bytes, iv: bytes, seed: int, data: bytes, env: dict | None = None
) -> list[str]:
    p = subprocess.run(
        [str(exe), str(out / PROVIDER_DIR), alg, propq, key.hex(), iv.hex() or "", str(seed)],
        input=data,
        capture_output=True,
        env=env,
        check=False,
    )
    assert p.returncode == 0, (alg, propq, p.stderr.decode(errors="replace")[-3000:])
    assert p.stderr == b"", p.stderr.decode(errors="replace")[-3000:]
    return p.stdout.decode().splitlines()
