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
    0xD6,
    0x90,
    0xE9,
    0xFE,
    0xCC,
    0xE1,
    0x3D,
    0xB7,
    0x16,
    0xB6,
    0x14,
    0xC2,
    0x28,
    0xFB,
    0x2C,
    0x05,
    0x2B,
    0x67,
    0x9A,
    0x76,
    0x2A,
    0xBE,
    0x04,
    0xC3,
    0xAA,
    0x44,
    0x13,
    0x26,
    0x49,
    0x86,
    0x06,
    0x99,
    0x9C,
    0x42,
    0x50,
    0xF4,
    0x91,
    0xEF,
    0x98,
    0x7A,
    0x33,
    0x54,
    0x0B,
    0x43,
    0xED,
    0xCF,
    0xAC,
    0x62,
    0xE4,
    0xB3,
    0x1C,
    0xA9,
    0xC9,
    0x08,
    0xE8,
    0x95,
    0x80,
    0xDF,
    0x94,
    0xFA,
    0x75,
    0x8F,
    0x3F,
    0xA6,
    0x47,
    0x07,
    0xA7,
    0xFC,
    0xF3,
    0x73,
    0x17,
    0xBA,
    0x83,
    0x59,
    0x3C,
    0x19,
    0xE6,
    0x85,
    0x4F,
    0xA8,
    0x68,
    0x6B,
    0x81,
    0xB2,
    0x71,
    0x64,
    0xDA,
    0x8B,
    0xF8,
    0xEB,
    0x0F,
    0x4B,
    0x70,
    0x56,
    0x9D,
    0x35,
    0x1E,
    0x24,
    0x0E,
    0x5E,
    0x63,
    0x58,
    0xD1,
    0xA2,
    0x25,
    0x22,
    0x7C,
    0x3B,
    0x01,
    0x21,
    0x78,
    0x87,
    0xD4,
    0x00,
    0x46,
    0x57,
    0x9F,
    0xD3,
    0x27,
    0x52,
    0x4C,
    0x36,
    0x02,
    0xE7,
    0xA0,
    0xC4,
    0xC8,
    0x9E,
    0xEA,
    0xBF,
    0x8A,
    0xD2,
    0x40,
    0xC7,
    0x38,
    0xB5,
    0xA3,
    0xF7,
    0xF2,
    0xCE,
    0xF9,
    0x61,
    0x15,
    0xA1,
    0xE0,
    0xAE,
    0x5D,
    0xA4,
    0x9B,
    0x34,
    0x1A,
    0x55,
    0xAD,
    0x93,
    0x32,
    0x30,
    0xF5,
    0x8C,
    0xB1,
    0xE3,
    0x1D,
    0xF6,
    0xE2,
    0x2E,
    0x82,
    0x66,
    0xCA,
    0x60,
    0xC0,
    0x29,
    0x23,
    0xAB,
    0x0D,
    0x53,
    0x4E,
    0x6F,
    0xD5,
    0xDB,
    0x37,
    0x45,
    0xDE,
    0xFD,
    0x8E,
    0x2F,
    0x03,
    0xFF,
    0x6A,
    0x72,
    0x6D,
    0x6C,
    0x5B,
    0x51,
    0x8D,
    0x1B,
    0xAF,
    0x92,
    0xBB,
    0xDD,
    0xBC,
    0x7F,
    0x11,
    0xD9,
    0x5C,
    0x41,
    0x1F,
    0x10,
    0x5A,
    0xD8,
    0x0A,
    0xC1,
    0x31,
    0x88,
    0xA5,
    0xCD,
    0x7B,
    0xBD,
    0x2D,
    0x74,
    0xD0,
    0x12,
    0xB8,
    0xE5,
    0xB4,
    0xB0,
    0x89,
    0x69,
    0x97,
    0x4A,
    0x0C,
    0x96,
    0x77,
    0x7E,
    0x65,
    0xB9,
    0xF1,
    0x09,
    0xC5,
    0x6E,
    0xC6,
    0x84,
    0x18,
    0xF0,
    0x7D,
    0xEC,
    0x3A,
    0xDC,
    0x4D,
    0x20,
    0x79,
    0xEE,
    0x5F,
    0x3E,
    0xD7,
    0xCB,
    0x39,
    0x48,
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
    k = [int.from_bytes(key[4 * i : 4 * i + 4], "big") ^ SM4_FK[i] for i in range(4)]
    for i in range(32):
        k.append(k[i] ^ _sm4_t(k[i + 1] ^ k[i + 2] ^ k[i + 3] ^ SM4_CK[i], (13, 23)))
    return k[4:]


def _sm4(keys: list[int], block: bytes) -> bytes:
    x = [int.from_bytes(block[4 * i : 4 * i + 4], "big") for i in range(4)]
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
