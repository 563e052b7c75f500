"""Builds the AEAD differential fuzzer (tests/data/aead_fuzz.cc, libFuzzer) against the generated C libraries as
`cipherspec build --target c` ships them and against OpenSSL 3, libgcrypt and Crypto++; used by
tests/differential/test_aead_fuzz.py (seconds, in CI) and bench/fuzz/aead.sh (hours).

    exe = build_fuzzer(Path("/tmp/fz"))                 # -> /tmp/fz/aead_fuzz
    subprocess.run([exe, "-max_total_time=3600", "corpus/"])
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from paths import ROOT

HARNESS = ROOT / "tests" / "data" / "aead_fuzz.cc"
CIPHERS = (
    "aes128",
    "aria128",
    "lea128",
)  # the 128-bit-block ciphers the peers have (AES, ARIA) or Crypto++ alone (LEA)
PEER_HEADERS = ("/usr/include/cryptopp/gcm.h", "/usr/include/gcrypt.h", "/usr/include/openssl/evp.h")


def missing_tools() -> str | None:
    """What is missing to build the fuzzer (None: nothing), as an install hint."""
    if shutil.which("clang++") is None:
        return "clang++ (apt install clang)"
    rt = subprocess.run(["clang++", "-print-file-name=libclang_rt.fuzzer-x86_64.a"], capture_output=True, text=True)
    if not Path(rt.stdout.strip()).is_file():
        return "libFuzzer's runtime (apt install libclang-rt-14-dev)"
    for h in PEER_HEADERS:
        if not Path(h).is_file():
            return f"{h} (apt install libcrypto++-dev libgcrypt20-dev libssl-dev)"
    return None


def build_fuzzer(workdir: Path, ciphers: tuple[str, ...] = CIPHERS) -> Path:
    """The generated libraries (cipherspec build --target c, cached by content) and the fuzzer linked with them."""
    from driver import cli

    lib = workdir / "lib"
    if cli.run(["build", *ciphers, "--target", "c", "-o", str(lib)]) != 0:
        raise RuntimeError("cipherspec build failed")
    exe = workdir / "aead_fuzz"
    cmd = ["clang++", "-std=c++17", "-O1", "-g", "-fsanitize=fuzzer,address,undefined", f"-I{lib / 'include'}"]
    cmd += [f"-DCS_WITH_{c.upper()}" for c in ciphers] + [str(HARNESS)]
    cmd += [str(lib / "lib" / f"lib{c}.a") for c in ciphers] + ["-lcrypto", "-lgcrypt", "-lcryptopp", "-o", str(exe)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"building the fuzzer failed:\n{p.stderr[-3000:]}")
    return exe
