"""Independent plain-Python implementations of the example ciphers (examples/ciphers/), written from the
papers apart from the specs: the second oracle for the ciphers a researcher adds through --spec.

Byte encodings are those of the examples' KAT files:
  PRESENT-80    : state and key most significant byte first (as the CHES 2007 paper prints them).
  SPECK-128/128 : block = words (y, x), key = words (k0, l0), each 64-bit word little-endian
                  (the SIMON and SPECK Implementation Guide's order).
  SM4           : four big-endian 32-bit words (GB/T 32907-2016).
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


# ---------------------------------------------------------------- SM4 (GB/T 32907-2016)
SM4_S = [
    0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05,
    0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99,
    0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed, 0xcf, 0xac, 0x62,
    0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa, 0x75, 0x8f, 0x3f, 0xa6,
    0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c, 0x19, 0xe6, 0x85, 0x4f, 0xa8,
    0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb, 0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35,
    0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25, 0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87,
    0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52, 0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4, 0xc8, 0x9e,
    0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38, 0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1,
    0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34, 0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3,
    0x1d, 0xf6, 0xe2, 0x2e, 0x82, 0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f,
    0xd5, 0xdb, 0x37, 0x45, 0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51,
    0x8d, 0x1b, 0xaf, 0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8,
    0x0a, 0xc1, 0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0,
    0x89, 0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84,
    0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39, 0x48,
]
SM4_FK = (0xA3B1BAC6, 0x56AA3350, 0x677D9197, 0xB27022DC)
SM4_CK = [int.from_bytes(bytes(((4 * i + j) * 7) % 256 for j in range(4)), "big") for i in range(32)]


def _sm4_t(a: int, rots) -> int:
    b = int.from_bytes(bytes(SM4_S[x] for x in a.to_bytes(4, "big")), "big")
    out = b
    for r in rots:
        out ^= rol(b, r, 32)
    return out


def sm4_round_keys(key: bytes) -> list[int]:
    k = [int.from_bytes(key[4 * i:4 * i + 4], "big") ^ SM4_FK[i] for i in range(4)]
    for i in range(32):
        k.append(k[i] ^ _sm4_t(k[i + 1] ^ k[i + 2] ^ k[i + 3] ^ SM4_CK[i], (13, 23)))
    return k[4:]


def _sm4(keys: list[int], block: bytes) -> bytes:
    x = [int.from_bytes(block[4 * i:4 * i + 4], "big") for i in range(4)]
    for rk in keys:
        x.append(x[-4] ^ _sm4_t(x[-3] ^ x[-2] ^ x[-1] ^ rk, (2, 10, 18, 24)))
    return b"".join(w.to_bytes(4, "big") for w in reversed(x[-4:]))


def sm4_encrypt(key: bytes, block: bytes, rounds=None) -> bytes:
    return _sm4(sm4_round_keys(key), block)


def sm4_decrypt(key: bytes, block: bytes, rounds=None) -> bytes:
    return _sm4(sm4_round_keys(key)[::-1], block)


CIPHERS = {
    "present80": _C("present80", present_encrypt, present_decrypt, 8, 10),
    "speck128_128": _C("speck128_128", speck_encrypt, speck_decrypt, 16, 16),
    "sm4": _C("sm4", sm4_encrypt, sm4_decrypt, 16, 16),
}
