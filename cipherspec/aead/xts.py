"""XTS (IEEE 1619 / NIST SP 800-38E) with ciphertext stealing, generic over any cipher with a 128-bit block.

The key is two cipher keys, key1 || key2 (equal halves refused, as SP 800-38E requires); the 16-byte
tweak is used as given (OpenSSL's EVP XTS: a disk sector number goes in as its little-endian 128-bit
encoding).  Block j of a data unit is masked with T_j = E_key2(tweak) * alpha^j in GF(2^128), with
IEEE 1619's little-endian bit order.  A data unit is 16 bytes to 2^20 blocks; a partial last block
steals the tail of the previous block's ciphertext.

    ct = xts_encrypt(c, key1 + key2, tweak=(7).to_bytes(16, "little"), data=sector)
    xts_decrypt(c, key1 + key2, tweak, ct) == sector
    xts_sectors(c, key1 + key2, first_tweak, data, 512, "encrypt")   # sector i under first_tweak + i (below)
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from .common import cipher_name, encrypt_one, require_block

MAX_BLOCKS = 1 << 20  # SP 800-38E: at most 2^20 blocks per data unit
MASK128 = (1 << 128) - 1


def tweak_masks(t: bytes, n: int) -> np.ndarray:
    """(n, 16) uint8: T * alpha^j for j < n (T as a little-endian integer; alpha: shift left, fold 0x87)."""
    x = int.from_bytes(t, "little")
    out = bytearray()
    for _ in range(n):
        out += x.to_bytes(16, "little")
        x = ((x << 1) & MASK128) ^ (0x87 if x >> 127 else 0)
    return np.frombuffer(bytes(out), np.uint8).reshape(n, 16)


def split_key(c, key: bytes) -> tuple[bytes, bytes]:
    """(key1, key2), or the one-line error for a wrong length or equal halves."""
    key = bytes(key)
    k = c.key_bytes
    if len(key) != 2 * k:
        raise UsageError(f"XTS: the key is two {cipher_name(c)} keys, {2 * k} bytes (key1 || key2), got {len(key)}")
    if key[:k] == key[k:]:
        raise UsageError("XTS: the two key halves are equal")
    return key[:k], key[k:]


def check_data_unit(n: int) -> None:
    if n < 16:
        raise UsageError(f"XTS: a data unit is at least 16 bytes, got {n}")
    if n > 16 * MAX_BLOCKS:
        raise UsageError(f"XTS: a data unit is at most 2^20 blocks ({16 * MAX_BLOCKS} bytes), got {n}")


def _xts(c, key: bytes, tweak: bytes, data: bytes, direction: str) -> bytes:
    require_block(c, "XTS", (16,))
    k1, k2 = split_key(c, key)
    if len(tweak) != 16:
        raise UsageError(f"XTS: the tweak is 16 bytes, got {len(tweak)}")
    data = bytes(data)
    check_data_unit(len(data))
    rk1, rk2 = c.expand_key(k1), c.expand_key(k2)
    run = c.encrypt_blocks if direction == "encrypt" else c.decrypt_blocks
    m, tail = divmod(len(data), 16)
    masks = tweak_masks(encrypt_one(c, rk2, bytes(tweak)), m + (1 if tail else 0))

    def crypt(blocks: np.ndarray, t: np.ndarray) -> np.ndarray:
        return run(rk1, blocks ^ t) ^ t

    p = np.frombuffer(data, np.uint8)
    full = m - 1 if tail else m  # blocks done the plain way
    out = bytearray(crypt(p[: 16 * full].reshape(-1, 16), masks[:full]).tobytes()) if full else bytearray()
    if tail:  # ciphertext stealing (IEEE 1619 5.3.2 / 5.4.2)
        last = p[16 * full : 16 * m].reshape(1, 16)
        rest = p[16 * m :]
        # encryption: block m-1 under T_(m-1), block m (padded with its tail) under T_m; decryption swaps them
        first_mask, second_mask = (masks[m - 1 : m], masks[m : m + 1])
        if direction == "decrypt":
            first_mask, second_mask = second_mask, first_mask
        cc = crypt(last, first_mask)[0]
        pp = np.concatenate([rest, cc[tail:]]).reshape(1, 16)
        out += crypt(pp, second_mask).tobytes() + cc[:tail].tobytes()
    return bytes(out)


def xts_encrypt(c, key: bytes, tweak: bytes, data: bytes) -> bytes:
    return _xts(c, key, tweak, data, "encrypt")


def xts_decrypt(c, key: bytes, tweak: bytes, data: bytes) -> bytes:
    return _xts(c, key, tweak, data, "decrypt")


def sector_tweak(first: bytes, i: int) -> bytes:
    """Sector i's tweak: the first sector's plus i, as little-endian 128-bit integers (disk encryption's
    sector numbers, dm-crypt's plain64), wrapping modulo 2^128."""
    return ((int.from_bytes(first, "little") + i) & MASK128).to_bytes(16, "little")


def xts_sectors(c, key: bytes, first_tweak: bytes, data: bytes, sector: int, direction: str) -> bytes:
    """Consecutive data units of ``sector`` bytes (the last may be shorter, at least 16), unit i under
    ``sector_tweak(first_tweak, i)``: exactly xts_encrypt/xts_decrypt unit by unit.  When the sector is
    whole blocks, the whole sectors go through the cipher in one batch (the tweaks in another)."""
    if direction not in ("encrypt", "decrypt"):
        raise UsageError(f"XTS: unknown direction '{direction}' (encrypt or decrypt)")
    require_block(c, "XTS", (16,))
    k1, k2 = split_key(c, key)
    check_data_unit(sector)
    data = bytes(data)
    whole = len(data) // sector if sector % 16 == 0 else 0
    out = bytearray()
    if whole:
        tweaks = b"".join(sector_tweak(first_tweak, i) for i in range(whole))
        ts = c.encrypt_blocks(c.expand_key(k2), np.frombuffer(tweaks, np.uint8).reshape(-1, 16))
        masks = np.concatenate([tweak_masks(t.tobytes(), sector // 16) for t in ts])
        blocks = np.frombuffer(data[: whole * sector], np.uint8).reshape(-1, 16)
        run = c.encrypt_blocks if direction == "encrypt" else c.decrypt_blocks
        out += (run(c.expand_key(k1), blocks ^ masks) ^ masks).tobytes()
    for i in range(whole, -(-len(data) // sector)):
        out += _xts(c, key, sector_tweak(first_tweak, i), data[i * sector : (i + 1) * sector], direction)
    return bytes(out)
