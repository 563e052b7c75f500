"""Independent plain-Python implementations of the example ciphers (examples/ciphers/), written from the
papers apart from the specs: the second oracle for the ciphers a researcher adds through --spec.

Byte encodings are those of the examples' KAT files:
  PRESENT-80    : state and key most significant byte first (as the CHES 2007 paper prints them).
  SPECK-128/128 : block = words (y, x), key = words (k0, l0), each 64-bit word little-endian
                  (the SIMON and SPECK Implementation Guide's order).
CIPHERS['present80'].encrypt(key, block) / .decrypt(key, block), as in independent.py.
"""
from __future__ import annotations

from independent import _C, rol, ror

M64 = (1 << 64) - 1

# ---------------------------------------------------------------- PRESENT-80 (CHES 2007)
PRESENT_S = [0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2]
PRESENT_SI = [PRESENT_S.index(i) for i in range(16)]


def _p(i: int) -> int:
    return 63 if i == 63 else (i * 16) % 63


def _present_sbox_layer(s: int, box) -> int:
    return sum(box[(s >> (4 * j)) & 0xF] << (4 * j) for j in range(16))


def _present_p_layer(s: int, inverse: bool = False) -> int:
    out = 0
    for i in range(64):
        src, dst = (_p(i), i) if inverse else (i, _p(i))
        out |= ((s >> src) & 1) << dst
    return out


def present_round_keys(key: bytes) -> list[int]:
    k = int.from_bytes(key, "big")  # the 80-bit register k79..k0
    keys = []
    for i in range(1, 33):
        keys.append(k >> 16)
        k = ((k << 61) | (k >> 19)) & ((1 << 80) - 1)
        k = (PRESENT_S[k >> 76] << 76) | (k & ((1 << 76) - 1))
        k ^= i << 15
    return keys


def present_encrypt(key: bytes, block: bytes, rounds=None) -> bytes:
    rk = present_round_keys(key)
    s = int.from_bytes(block, "big")
    for i in range(31):
        s = _present_p_layer(_present_sbox_layer(s ^ rk[i], PRESENT_S))
    return (s ^ rk[31]).to_bytes(8, "big")


def present_decrypt(key: bytes, block: bytes, rounds=None) -> bytes:
    rk = present_round_keys(key)
    s = int.from_bytes(block, "big") ^ rk[31]
    for i in range(30, -1, -1):
        s = _present_sbox_layer(_present_p_layer(s, inverse=True), PRESENT_SI) ^ rk[i]
    return s.to_bytes(8, "big")


# ---------------------------------------------------------------- SPECK-128/128 (ePrint 2013/404)
def _speck_words(b: bytes) -> tuple[int, int]:
    return int.from_bytes(b[:8], "little"), int.from_bytes(b[8:], "little")


def speck_round_keys(key: bytes, rounds: int = 32) -> list[int]:
    k, l = _speck_words(key)
    out = []
    for i in range(rounds):
        out.append(k)
        l = ((k + ror(l, 8, 64)) & M64) ^ i
        k = rol(k, 3, 64) ^ l
    return out


def speck_encrypt(key: bytes, block: bytes, rounds=None) -> bytes:
    y, x = _speck_words(block)
    for k in speck_round_keys(key):
        x = ((ror(x, 8, 64) + y) & M64) ^ k
        y = rol(y, 3, 64) ^ x
    return y.to_bytes(8, "little") + x.to_bytes(8, "little")


def speck_decrypt(key: bytes, block: bytes, rounds=None) -> bytes:
    y, x = _speck_words(block)
    for k in reversed(speck_round_keys(key)):
        y = ror(y ^ x, 3, 64)
        x = rol(((x ^ k) - y) & M64, 8, 64)
    return y.to_bytes(8, "little") + x.to_bytes(8, "little")


CIPHERS = {
    "present80": _C("present80", present_encrypt, present_decrypt, 8, 10),
    "speck128_128": _C("speck128_128", speck_encrypt, speck_decrypt, 16, 16),
}
