"""The driver: the top layer, above every backend.  The ``cipherspec`` command (cli.py), the registry
of targets (targets.py), and ``load``, which the public API ``cipherspec.load`` (cipherspec/api.py) wraps.

    import driver
    lea = driver.load("lea128", target="c")                 # default schedule; or schedule="sliced_v16"
    ct = lea.encrypt_ecb(key, pt)
    ct = lea.encrypt_cbc(key, iv, pt);   pt = lea.decrypt_cbc(key, iv, ct)
    out, next_iv = lea.ctr(key, iv, data)

Layers, bottom up (no module imports one above it): toolchain -> cipherspec (language, IR, passes,
interpreter, modes) -> runtime (thin loaders of built code) -> generator (the backends) -> driver.
"""

from __future__ import annotations


class Loaded:
    """A cipher on a target with a bytes-in, bytes-out API (keys expanded on each call; cached by key)."""

    def __init__(self, cipher) -> None:
        self.cipher = cipher
        self.name = cipher.name
        self.block_bytes = cipher.block_bytes
        self.key_bytes = cipher.key_bytes
        self._rk: tuple[bytes, object] | None = None

    def _key(self, key: bytes):
        if self._rk is None or self._rk[0] != bytes(key):
            self.cipher.check_key(key)
            self._rk = (bytes(key), self.cipher.expand_key(bytes(key)))
        return self._rk[1]

    def _mode(self, mode: str, direction: str, key: bytes, data: bytes, iv: bytes | None = None) -> bytes:
        from cipherspec import modes

        return modes.run_mode(self.cipher, self._key(key), mode, direction, data, iv)

    def encrypt_ecb(self, key: bytes, data: bytes) -> bytes:
        return self._mode("ecb", "encrypt", key, data)

    def decrypt_ecb(self, key: bytes, data: bytes) -> bytes:
        return self._mode("ecb", "decrypt", key, data)

    def encrypt_cbc(self, key: bytes, iv: bytes, data: bytes) -> bytes:
        return self._mode("cbc", "encrypt", key, data, iv)

    def decrypt_cbc(self, key: bytes, iv: bytes, data: bytes) -> bytes:
        return self._mode("cbc", "decrypt", key, data, iv)

    def ctr(self, key: bytes, iv: bytes, data: bytes) -> tuple[bytes, bytes]:
        """(output, IV to continue the stream with)."""
        from cipherspec import modes

        rk = self._key(key)
        if not hasattr(self.cipher, "ctr"):
            return modes.ctr(self.cipher, rk, iv, data)
        got = self.cipher.ctr(rk, iv, data)  # the C library gives (output, next IV); the GPU one, the output
        if isinstance(got, tuple):
            return got
        return got, modes.ctr_next_iv(bytes(iv), -(-len(data) // self.block_bytes))


def load(name: str, target: str = "c", schedule: str | None = None, rounds: int | None = None, registry=None) -> Loaded:
    """``registry``: a cipherspec.registry.Registry (default: the shipped specs).  The backends are
    imported here, not with the package, so that the command line starts fast."""
    from cipherspec.registry import Registry

    from .targets import make_cipher

    return Loaded(make_cipher(registry or Registry(), name, rounds, target, schedule))
