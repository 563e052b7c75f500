"""CTR_DRBG's limits (NIST SP 800-90A Table 3), its error and a bulk request's shape: what the C library's
DRBG and `cipherspec drbg` need without numpy (cipherspec.drbg, the Python DRBG over any block function,
imports numpy; the command's start-up must not).  Each check names the one limit broken:

    check_seed(keylen=16, outlen=16, use_df=True, entropy_len=16, nonce_len=0)
    # DrbgError: the nonce is 0 bytes; with the derivation function it must be at least 8 (half the
    #            128-bit security strength)          .option == "--nonce"
"""

from __future__ import annotations

from .errors import UsageError

MAX_BITS_PER_REQUEST = 1 << 19
MAX_RESEED_INTERVAL = 1 << 48
MAX_INPUT_BITS = 1 << 35


class DrbgError(UsageError):
    """A request the standard forbids (a limit, a missing reseed): refused, no output.  ``option``: the
    `cipherspec drbg` option that changes the input at fault (the command adds it to the message)."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


def security_bytes(keylen: int) -> int:
    """The security strength in bytes: the key length, at most 256 bits."""
    return min(keylen, 32)


def check_seed(
    keylen: int,
    outlen: int,
    use_df: bool,
    entropy_len: int,
    nonce_len: int | None = None,
    extra_len: int = 0,
    extra_what: str = "personalization string",
) -> None:
    """Instantiate (``nonce_len`` given) or reseed inputs against SP 800-90A's limits: the first limit broken
    raises DrbgError naming that input, its length and the limit (and ``option``, the command's option)."""
    sec, seedlen, most = security_bytes(keylen), keylen + outlen, MAX_INPUT_BITS // 8
    if use_df:
        if entropy_len < sec:
            raise DrbgError(
                f"the entropy input is {entropy_len} bytes; it must be at least the {8 * sec}-bit security "
                f"strength ({sec} bytes)",
                "--entropy-file, --entropy-fd, --entropy or --system-entropy",
            )
        if entropy_len > most:
            raise DrbgError(f"the entropy input is {entropy_len} bytes; at most 2^35 bits", "--entropy-file")
        if nonce_len is not None and nonce_len < sec // 2:
            raise DrbgError(
                f"the nonce is {nonce_len} bytes; with the derivation function it must be at least {sec // 2} "
                f"(half the {8 * sec}-bit security strength)",
                "--nonce HEX or --system-entropy",
            )
        if nonce_len is not None and nonce_len > most:
            raise DrbgError(f"the nonce is {nonce_len} bytes; at most 2^35 bits", "--nonce")
    elif entropy_len != seedlen:
        raise DrbgError(
            f"the entropy input is {entropy_len} bytes; without the derivation function it must be exactly "
            f"seedlen = {seedlen} bytes",
            "--entropy-file, --entropy-fd or --entropy (or drop --no-df)",
        )
    check_extra(keylen, outlen, use_df, extra_len, extra_what)


def check_extra(keylen: int, outlen: int, use_df: bool, extra_len: int, extra_what: str = "additional input") -> None:
    """A personalization string or additional input: at most 2^35 bits with the df, seedlen without."""
    seedlen = keylen + outlen
    extra_option = "--personalization" if extra_what.startswith("personalization") else "--additional"
    if use_df and extra_len > MAX_INPUT_BITS // 8:
        raise DrbgError(f"the {extra_what} is {extra_len} bytes; at most 2^35 bits", extra_option)
    if not use_df and extra_len > seedlen:
        raise DrbgError(
            f"the {extra_what} is {extra_len} bytes; without the derivation function it is at most seedlen = "
            f"{seedlen} bytes",
            f"{extra_option} (or drop --no-df)",
        )


def check_request(nbytes: int) -> None:
    """One generate request: at most 2^19 bits."""
    if not 0 <= nbytes * 8 <= MAX_BITS_PER_REQUEST:
        raise DrbgError(
            f"a request is at most 2^19 bits ({MAX_BITS_PER_REQUEST // 8} bytes); got {nbytes} bytes",
            "--request-bytes",
        )


def check_reseed_interval(reseed_interval: int) -> None:
    if not 1 <= reseed_interval <= MAX_RESEED_INTERVAL:
        raise DrbgError(f"the reseed interval must be 1..2^48 requests, got {reseed_interval}", "--reseed-interval")


class BulkRequest:
    """One generate request of a bulk run: its output is E(key, v+1 .. v+nblocks), first nbytes of it."""

    __slots__ = ("key", "v", "nblocks", "nbytes")

    def __init__(self, key: bytes, v: bytes, nblocks: int, nbytes: int):
        self.key, self.v, self.nblocks, self.nbytes = key, v, nblocks, nbytes

    def __repr__(self) -> str:
        return f"BulkRequest(key={self.key.hex()[:8]}.., v={self.v.hex()[:8]}.., nblocks={self.nblocks})"
