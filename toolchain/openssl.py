"""OpenSSL 3 for the provider target: flags for its headers and libcrypto, the `openssl` command.

    dev = find_dev()          -> OpenSSLDev(cflags=(), libs=("-lcrypto",), version="3.0.19")  or ToolError
    openssl_cli()             -> "/usr/bin/openssl"                                         or ToolError
    libcrypto_name()          -> "libcrypto.so.3" (what ctypes loads)                       or ToolError

pkg-config's ``libcrypto`` is asked first (a non-system OpenSSL 3 is found through PKG_CONFIG_PATH);
without it the compiler's default paths and ``-lcrypto``.  The headers are checked by preprocessing
a probe that needs OpenSSL 3's provider API, so a machine with OpenSSL 1.1 headers gets a clear error.
"""

from __future__ import annotations

import ctypes.util
import functools
import os
import shutil
import subprocess
from dataclasses import dataclass

from .errors import ToolError

HINT = "install OpenSSL 3's development files (Debian: libssl-dev; `bash scripts/setup.sh` does it)"
PROBE = """#include <openssl/opensslv.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#if OPENSSL_VERSION_MAJOR < 3
#error OpenSSL 3 or later is needed
#endif
"""


@dataclass(frozen=True)
class OpenSSLDev:
    cflags: tuple[str, ...]
    libs: tuple[str, ...]
    version: str


def _pkg_config(*args: str) -> str | None:
    if shutil.which("pkg-config") is None:
        return None
    p = subprocess.run(["pkg-config", *args, "libcrypto"], capture_output=True, text=True, check=False)
    return p.stdout.strip() if p.returncode == 0 else None


@functools.cache
def find_dev(cc: str | None = None) -> OpenSSLDev:
    """OpenSSL 3's headers and libcrypto as ``cc`` (default $CC, else cc) sees them."""
    cc = cc or os.environ.get("CC", "cc")
    cflags = tuple((_pkg_config("--cflags") or "").split())
    libs = tuple((_pkg_config("--libs") or "-lcrypto").split())
    try:
        p = subprocess.run(
            [cc, *cflags, "-E", "-x", "c", "-", "-o", os.devnull],
            input=PROBE,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as e:
        raise ToolError(f"the OpenSSL provider target needs a C compiler ('{cc}': {e.strerror})") from None
    if p.returncode != 0:
        first = (p.stderr.strip().splitlines() or ["?"])[0]
        raise ToolError(f"the OpenSSL provider target needs OpenSSL 3 headers ({first}): {HINT}")
    return OpenSSLDev(cflags, libs, _pkg_config("--modversion") or "3")


def openssl_cli() -> str:
    path = shutil.which("openssl")
    if path is None:
        raise ToolError("the `openssl` command is not on PATH (Debian: openssl)")
    return path


def libcrypto_name() -> str:
    """The libcrypto that ctypes should load: OpenSSL 3's (libcrypto.so.3), never an older one."""
    name = ctypes.util.find_library("crypto")
    if name is None or not name.endswith(".so.3"):
        name = "libcrypto.so.3"
    try:
        ctypes.CDLL(name)
    except OSError:
        raise ToolError(f"cannot load OpenSSL 3's libcrypto ({name}): {HINT}") from None
    return name
