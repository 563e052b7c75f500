"""PKCS#7 padding (RFC 5652 §6.3), as ``openssl enc`` applies it to ECB and CBC.

Encryption appends p = B - (n mod B) bytes of value p (1..B: a whole block of padding when n is already
a multiple of B); decryption checks and removes them.

    pad_into(buf, 5, 8)              buf[:8] = d d d d d 03 03 03        -> 8
    pad_into(buf, 8, 8)              buf[8:16] = 08 x 8                   -> 16
    unpadded_length(b"abcde\\3\\3\\3")  -> 5
    unpadded_length(b"abcde\\3\\2\\3")  -> BadDecrypt("bad decrypt ...")

Every failed check raises the SAME BadDecrypt message: which byte was wrong must not show (a CBC
decryptor that tells bad padding from other failures is a padding oracle).  The check itself looks at
the whole block whatever the pad byte says.  Python gives no constant-time guarantee, and unauthenticated
CBC stays malleable: authenticate ciphertexts (a MAC over IV and ciphertext) where an attacker can
submit them.
"""

from __future__ import annotations

from .errors import UsageError

BAD_DECRYPT = (
    "bad decrypt: wrong key or IV, damaged ciphertext, or data that was not PKCS#7-padded (encrypted with --no-pad)"
)


class BadDecrypt(UsageError):
    """The padding of a decrypted last block is not PKCS#7 (one message for every way it can be wrong)."""

    def __init__(self):
        super().__init__(BAD_DECRYPT)


def pad_into(buf, n: int, block: int) -> int:
    """Writes the padding of an n-byte message after buf[:n] (a writable buffer of at least n + block
    bytes); returns the padded length, a positive multiple of ``block``."""
    p = block - n % block
    memoryview(buf).cast("B")[n : n + p] = bytes([p]) * p
    return n + p


def unpadded_length(last_block) -> int:
    """How many bytes of the (decrypted) last block are data; BadDecrypt if its padding is not PKCS#7."""
    last = bytes(last_block)
    b, p = len(last), last[-1]
    # every position is compared; only the mask depends on p
    bad = any([(x != p) & (i >= b - p) for i, x in enumerate(last)]) | (p == 0) | (p > b)
    if bad:
        raise BadDecrypt()
    return b - p
