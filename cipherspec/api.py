"""The Python API: ``cipherspec.load``, ``cipherspec.build`` and ``cipherspec.kat``, the commands' equivalents.

    import cipherspec
    lea = cipherspec.load("lea128")                      # the C library (built on first use, cached)
    out, next_iv = lea.ctr(key, iv, data)                # = cipherspec.load("lea128", target="ref").ctr(...)
    ct, tag = lea.gcm_encrypt(key, iv, aad, data)
    cipherspec.build(["lea128"], target="c", output="out")       # = cipherspec build lea128 --target c -o out
    result = cipherspec.kat(["lea128.txt"], target="c")          # = cipherspec kat lea128.txt --target c

Errors are exceptions from cipherspec.errors, each naming what was wrong: UsageError (an unknown cipher,
target or schedule, a bad key/IV/nonce length, ...), SpecError (a spec file, with file:line:col),
KatError (a malformed KAT file), AuthenticationError (a wrong tag), toolchain's ToolError (a compiler
or emulator missing, with what to install).

Layering: this module is the one place in the core package that reaches the top layer (driver, which
imports the backends): only inside functions, so ``import cipherspec`` stays light and the core never
depends on the backends (tests/unit/test_layers.py allows exactly this).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from .errors import UsageError

if TYPE_CHECKING:
    from .kat_records import FileReport
    from .registry import Registry

PathLike: TypeAlias = "str | os.PathLike[str]"
SpecFiles: TypeAlias = "str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None"

__all__ = ["Cipher", "KatResult", "build", "kat", "load", "main"]


def main() -> None:
    """The `cipherspec` command (and ``python -m cipherspec``)."""
    from driver.cli import main as cli_main

    cli_main()


def _spec_list(spec: SpecFiles) -> list[str]:
    if spec is None:
        return []
    if isinstance(spec, (str, os.PathLike)):
        spec = [spec]
    files = [os.fspath(s) for s in spec]
    for f in files:
        if not Path(f).is_file():
            raise UsageError(f"spec file {f} does not exist")
    return files


def _registry(spec: SpecFiles) -> Registry:
    from .registry import Registry

    return Registry(extra=_spec_list(spec))


def _bytes(name: str, value: Any) -> bytes:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise UsageError(f"{name} must be bytes, got {type(value).__name__}")
    return bytes(value)


class Cipher:
    """A cipher on a target, bytes in and bytes out.  Keys are expanded on first use and cached per key.

    ``name``, ``target``, ``block_bytes``, ``key_bytes``; ``cipher``: the target's cipher object (the
    lower-level interface: expand_key, encrypt_blocks, ...)."""

    def __init__(self, loaded: Any, target: str) -> None:
        self._loaded = loaded
        self.cipher = loaded.cipher
        self.name: str = loaded.name
        self.target = target
        self.block_bytes: int = loaded.block_bytes
        self.key_bytes: int = loaded.key_bytes

    def __repr__(self) -> str:
        return f"<cipherspec.Cipher {self.name} target={self.target}>"

    # ECB, CBC, CTR (cipherspec.modes; the target's own where it has them)
    def encrypt_ecb(self, key: bytes, data: bytes) -> bytes:
        """ECB encryption of whole blocks (no padding)."""
        return self._loaded.encrypt_ecb(_bytes("key", key), _bytes("data", data))

    def decrypt_ecb(self, key: bytes, data: bytes) -> bytes:
        return self._loaded.decrypt_ecb(_bytes("key", key), _bytes("data", data))

    def encrypt_cbc(self, key: bytes, iv: bytes, data: bytes) -> bytes:
        """CBC encryption of whole blocks (no padding)."""
        return self._loaded.encrypt_cbc(_bytes("key", key), _bytes("iv", iv), _bytes("data", data))

    def decrypt_cbc(self, key: bytes, iv: bytes, data: bytes) -> bytes:
        return self._loaded.decrypt_cbc(_bytes("key", key), _bytes("iv", iv), _bytes("data", data))

    def ctr(self, key: bytes, iv: bytes, data: bytes) -> tuple[bytes, bytes]:
        """CTR over any length: (output, the IV that continues the stream).  Block i uses IV + i, the IV
        one big-endian integer over the whole block."""
        return self._loaded.ctr(_bytes("key", key), _bytes("iv", iv), _bytes("data", data))

    # GCM, CCM, XTS, CMAC (cipherspec.aead; the target's own where it has them)
    def _aead(self, name: str, key: bytes, *args: Any, **kwargs: Any) -> Any:
        from . import aead

        return aead.call(self.cipher, name, self._loaded._key(_bytes("key", key)), *args, **kwargs)

    def gcm_encrypt(self, key: bytes, iv: bytes, aad: bytes, data: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
        """GCM (SP 800-38D, 128-bit blocks): (ciphertext, tag)."""
        return self._aead("gcm_encrypt", key, _bytes("iv", iv), _bytes("aad", aad), _bytes("data", data), tag_len)

    def gcm_decrypt(self, key: bytes, iv: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
        """The plaintext, or AuthenticationError."""
        return self._aead("gcm_decrypt", key, _bytes("iv", iv), _bytes("aad", aad), _bytes("data", data), tag)

    def gmac(self, key: bytes, iv: bytes, aad: bytes, tag_len: int = 16) -> bytes:
        from . import aead

        return aead.gmac(self.cipher, self._loaded._key(_bytes("key", key)), _bytes("iv", iv), aad, tag_len)

    def ccm_encrypt(self, key: bytes, nonce: bytes, aad: bytes, data: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
        """CCM (SP 800-38C; nonce 7..13 bytes, tag 4..16 even): (ciphertext, tag)."""
        return self._aead("ccm_encrypt", key, _bytes("nonce", nonce), _bytes("aad", aad), _bytes("data", data), tag_len)

    def ccm_decrypt(self, key: bytes, nonce: bytes, aad: bytes, data: bytes, tag: bytes) -> bytes:
        return self._aead("ccm_decrypt", key, _bytes("nonce", nonce), _bytes("aad", aad), _bytes("data", data), tag)

    def xts_encrypt(self, key: bytes, tweak: bytes, data: bytes) -> bytes:
        """XTS (IEEE 1619) of one data unit; ``key`` is key1 || key2 (twice the cipher's key)."""
        from . import aead

        return aead.call(self.cipher, "xts_encrypt", _bytes("key", key), _bytes("tweak", tweak), _bytes("data", data))

    def xts_decrypt(self, key: bytes, tweak: bytes, data: bytes) -> bytes:
        from . import aead

        return aead.call(self.cipher, "xts_decrypt", _bytes("key", key), _bytes("tweak", tweak), _bytes("data", data))

    def cmac(self, key: bytes, msg: bytes, tag_len: int | None = None) -> bytes:
        """CMAC (SP 800-38B; 64- and 128-bit blocks)."""
        return self._aead("cmac", key, _bytes("msg", msg), tag_len)


def load(
    name: str,
    target: str = "c",
    schedule: str | None = None,
    rounds: int | None = None,
    spec: SpecFiles = None,
) -> Cipher:
    """A cipher on a target: ``c`` (the generated C library, built on first use and cached), ``ref`` (the
    interpreter, the oracle), ``neon``, ``cuda``, ``openssl-provider``.  ``spec``: one spec file or several,
    whose ciphers join the shipped ones.  An unknown name, target or schedule raises UsageError."""
    import driver

    if rounds is not None and rounds < 1:
        raise UsageError(f"rounds must be at least 1, got {rounds}")
    return Cipher(driver.load(name, target, schedule, rounds, registry=_registry(spec)), target)


def build(
    ciphers: str | Sequence[str],
    target: str = "c",
    output: PathLike = "out",
    schedule: str | None = None,
    spec: SpecFiles = None,
) -> list[str]:
    """``cipherspec build CIPHER... --target T [--schedule S] -o OUTPUT``: generates and builds the
    libraries into ``output`` (only when all of it succeeded); returns the build's notes (a line each;
    a table schedule's ``WARNING: ... is NOT CONSTANT-TIME`` among them)."""
    from driver.cli import build_libraries

    names = [ciphers] if isinstance(ciphers, str) else list(ciphers)
    return build_libraries(_registry(spec), names, target, schedule, os.fspath(output))


@dataclass
class KatResult:
    """What ``cipherspec kat`` reports: per file (cipherspec.kat_records.FileReport) and in total."""

    reports: list[FileReport]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.reports)

    @property
    def failed(self) -> int:
        return sum(r.failed for r in self.reports)

    @property
    def ok(self) -> bool:
        return self.failed == 0


def kat(
    files: PathLike | Sequence[PathLike],
    target: str = "ref",
    schedule: str | None = None,
    spec: SpecFiles = None,
) -> KatResult:
    """``cipherspec kat FILE... --target T``: every block of every file, encryption and decryption (and the
    AEAD and CTR_DRBG blocks).  A mismatch is counted in ``failed`` (with its line in the report's
    ``failures``); a malformed file raises KatError naming file and line."""
    from driver.cli import run_kat

    paths = [os.fspath(files)] if isinstance(files, (str, os.PathLike)) else [os.fspath(f) for f in files]
    for p in paths:
        if not Path(p).is_file():
            raise UsageError(f"KAT file {p} does not exist")
    return KatResult(run_kat(_registry(spec), paths, target, schedule))
