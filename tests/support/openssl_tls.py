"""TLS between real `openssl s_server` and `openssl s_client` over 127.0.0.1, each side configured to load
the cipherspec provider preferred or not (tests/differential/test_openssl_provider_aead.py, bench/openssl/aead.py).

    cnf = provider_config(tmp / "prefer.cnf", provider_so, prefer=True)     # default_properties = ?provider=cipherspec
    received, seconds = tls_transfer(tmp, payload_file, "ECDHE-ARIA128-GCM-SHA256", cnf, other_cnf, modules_dir)
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path


def provider_config(path: Path, provider_so: Path, prefer: bool) -> Path:
    """An openssl.cnf that loads our provider beside the default one, preferred (?provider=cipherspec) or not."""
    lines = [
        "openssl_conf = openssl_init",
        "[openssl_init]",
        "providers = provider_sect",
        "alg_section = algorithm_sect",
        "[provider_sect]",
        "default = default_sect",
        "cipherspec = cipherspec_sect",
        "[default_sect]",
        "activate = 1",
        "[cipherspec_sect]",
        f"module = {provider_so}",
        "activate = 1",
        "[algorithm_sect]",
        f"default_properties = {'?provider=cipherspec' if prefer else '?provider=default'}",
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    """A TCP socket in LISTEN state on ``port`` (from /proc/net/tcp: local address, state 0A)."""
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        fields = line.split()
        if fields[1].endswith(f":{port:04X}") and fields[3] == "0A":
            return True
    return False


def _certificate(tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    if not cert.exists():
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert)]
            + ["-days", "1", "-subj", "/CN=localhost"],
            check=True,
            capture_output=True,
            env=dict(os.environ, OPENSSL_CONF="/dev/null"),
        )
    return key, cert


def tls_transfer(tmp_path: Path, src: Path, suite: str, server_cnf, client_cnf, modules) -> tuple[Path, float]:
    """`openssl s_client` sends the file ``src`` to `openssl s_server` over 127.0.0.1 (TLS 1.2, one suite):
    the file of what the server received, and the seconds from the client's start to the server's exit."""
    key, cert = _certificate(tmp_path)
    got = tmp_path / "received"
    port = _free_port()

    def env(cnf):
        return dict(os.environ, OPENSSL_CONF=str(cnf), OPENSSL_MODULES=str(modules))

    with open(got, "wb") as sink:
        server = subprocess.Popen(
            ["openssl", "s_server", "-accept", f"127.0.0.1:{port}", "-naccept", "1", "-quiet", "-tls1_2"]
            + ["-cipher", suite, "-key", str(key), "-cert", str(cert)],
            stdin=subprocess.PIPE,  # held open: s_server ends the connection at EOF on its stdin
            stdout=sink,
            stderr=subprocess.PIPE,
            env=env(server_cnf),
        )
        try:
            for _ in range(200):  # until it listens (a probe connection would be its one accept)
                if _listening(port) or server.poll() is not None:
                    break
                time.sleep(0.05)
            start = time.perf_counter()
            with open(src, "rb") as feed:
                client = subprocess.run(
                    ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-quiet", "-no_ign_eof"]
                    + ["-nocommands", "-tls1_2", "-cipher", suite],
                    stdin=feed,
                    capture_output=True,
                    env=env(client_cnf),
                    timeout=600,
                )
            assert client.returncode == 0, client.stderr.decode(errors="replace")[-2000:]
            server.wait(timeout=60)
            seconds = time.perf_counter() - start
        finally:
            server.stdin.close()
            if server.poll() is None:
                server.kill()
                server.wait()
    return got, seconds
