"""Independent plain-Python reference implementations: a second oracle, written apart from the specs.

The interpreter is checked against the KAT files (1-3 vectors per variant) and, on random keys and
blocks, against these straightforward implementations of the published algorithms.

Byte encodings follow /work/shared/vectors/README.md:
  AES, ARIA : bytes as in FIPS-197 / RFC 5794 (big-endian state).
  LEA       : 32-bit words little-endian.
  HIGHT     : byte[0] = K0 / P0 (Crypto++ / KISA reference order; spec strings reversed).
  CHAM      : 16/32-bit words BIG-endian (Crypto++ order).
  PIPO      : byte i = bit-slice row i (little-endian memory image of the designers' code).
Every variant exposes  encrypt(key, block, rounds=None) / decrypt(key, block, rounds=None)
through the CIPHERS dict:  CIPHERS['aria128'].encrypt(...)
"""

M8, M16, M32, M64 = 0xFF, 0xFFFF, 0xFFFFFFFF, (1 << 64) - 1


def rol(x, r, w):
    r %= w
    m = (1 << w) - 1
    return ((x << r) | (x >> (w - r))) & m if r else x & m


def ror(x, r, w):
    return rol(x, w - (r % w), w)


# ---------------------------------------------------------------- GF(2^8)
def gmul(a, b, poly=0x11B):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= poly
        b >>= 1
    return r


def gpow(a, e):
    r = 1
    while e:
        if e & 1:
            r = gmul(r, a)
        a = gmul(a, a)
        e >>= 1
    return r


def ginv(a):
    return gpow(a, 254) if a else 0  # a^254 = a^-1, 0 -> 0


def _aes_sbox():
    s = []
    for x in range(256):
        b = ginv(x)
        y = b ^ rol(b, 1, 8) ^ rol(b, 2, 8) ^ rol(b, 3, 8) ^ rol(b, 4, 8) ^ 0x63
        s.append(y)
    return s


AES_SBOX = _aes_sbox()  # derived: affine(GF(2^8) inverse)
AES_INV = [0] * 256
for _i, _v in enumerate(AES_SBOX):
    AES_INV[_v] = _i


# ---------------------------------------------------------------- AES
def _aes_expand(key):
    nk = len(key) // 4
    nr = {4: 10, 6: 12, 8: 14}[nk]
    w = [list(key[4 * i : 4 * i + 4]) for i in range(nk)]
    rc = 1
    for i in range(nk, 4 * (nr + 1)):
        t = list(w[i - 1])
        if i % nk == 0:
            t = t[1:] + t[:1]
            t = [AES_SBOX[b] for b in t]
            t[0] ^= rc
            rc = gmul(rc, 2)
        elif nk > 6 and i % nk == 4:
            t = [AES_SBOX[b] for b in t]
        w.append([a ^ b for a, b in zip(w[i - nk], t)])
    rks = [sum(w[4 * r : 4 * r + 4], []) for r in range(nr + 1)]
    return nr, rks


def _xtime_mix(col, m):
    return [
        gmul(col[0], m[0]) ^ gmul(col[1], m[1]) ^ gmul(col[2], m[2]) ^ gmul(col[3], m[3]),
        gmul(col[0], m[3]) ^ gmul(col[1], m[0]) ^ gmul(col[2], m[1]) ^ gmul(col[3], m[2]),
        gmul(col[0], m[2]) ^ gmul(col[1], m[3]) ^ gmul(col[2], m[0]) ^ gmul(col[3], m[1]),
        gmul(col[0], m[1]) ^ gmul(col[1], m[2]) ^ gmul(col[2], m[3]) ^ gmul(col[3], m[0]),
    ]


def _mix(s, m):
    out = []
    for c in range(4):
        out += _xtime_mix(s[4 * c : 4 * c + 4], m)
    return out


def _shift(s, inv=False):
    # state byte index = 4*col + row
    o = [0] * 16
    for c in range(4):
        for r in range(4):
            if inv:
                o[4 * ((c + r) % 4) + r] = s[4 * c + r]
            else:
                o[4 * c + r] = s[4 * ((c + r) % 4) + r]
    return o


def aes_encrypt(key, block, rounds=None):
    nr, rk = _aes_expand(key)
    s = [a ^ b for a, b in zip(block, rk[0])]
    for r in range(1, nr + 1):
        s = [AES_SBOX[b] for b in s]
        s = _shift(s)
        if r != nr:
            s = _mix(s, (2, 3, 1, 1))
        s = [a ^ b for a, b in zip(s, rk[r])]
    return bytes(s)


def aes_decrypt(key, block, rounds=None):
    nr, rk = _aes_expand(key)
    s = [a ^ b for a, b in zip(block, rk[nr])]
    for r in range(nr - 1, -1, -1):
        s = _shift(s, inv=True)
        s = [AES_INV[b] for b in s]
        s = [a ^ b for a, b in zip(s, rk[r])]
        if r != 0:
            s = _mix(s, (14, 11, 13, 9))
    return bytes(s)


# ---------------------------------------------------------------- ARIA (RFC 5794)
ARIA_SB2 = bytes.fromhex(
    "e24e54fc94c24acc620d6a463c4d8bd1"
    "5efa64cbb497be2bbc772e03d31959c1"
    "1d06416b55f09969ea9c18ae63dfe7bb"
    "007366fb964c85e43a0945aa0fee10eb"
    "2d7ff429accfad918d78c895f92fcecd"
    "087a88385c832a2847dbb8c793a41253"
    "ff870e3136215848018e377432cae9b1"
    "b7ab0cd7c4564226079860d9b6b91140"
    "ec208cbda0c984044923f14f501f13dc"
    "d8c09e57e3c37b653b028f3ee82592e5"
    "15ddfd17a9bfd49a7ec53967fe769d43"
    "a7e1d0f568f21b347005a38ad57986a8"
    "30c6514b1ea627f635d26e2416825fda"
    "e675a2ef2cb21c9f5d6f800a72449b6c"
    "900b5b337d5a52f361a1f7b0d63f7c6d"
    "ed14e0a53d22b3f889de711aafbab581"
)
assert len(ARIA_SB2) == 256
ARIA_SB1 = AES_SBOX
ARIA_SB3 = AES_INV  # inverse of SB1
ARIA_SB4 = [0] * 256  # inverse of SB2
for _i, _v in enumerate(ARIA_SB2):
    ARIA_SB4[_v] = _i

ARIA_C1 = 0x517CC1B727220A94FE13ABE8FA9A6EE0
ARIA_C2 = 0x6DB14ACC9E21C820FF28B1D5EF5DE2B0
ARIA_C3 = 0xDB92371D2126E9700324977504E8C90E
M128 = (1 << 128) - 1

# diffusion layer A: y_i = XOR of x_j for j in ARIA_A[i]  (an involution)
ARIA_A = [
    (3, 4, 6, 8, 9, 13, 14),
    (2, 5, 7, 8, 9, 12, 15),
    (1, 4, 6, 10, 11, 12, 15),
    (0, 5, 7, 10, 11, 13, 14),
    (0, 2, 5, 8, 11, 14, 15),
    (1, 3, 4, 9, 10, 14, 15),
    (0, 2, 7, 9, 10, 12, 13),
    (1, 3, 6, 8, 11, 12, 13),
    (0, 1, 4, 7, 10, 13, 15),
    (0, 1, 5, 6, 11, 12, 14),
    (2, 3, 5, 6, 8, 13, 15),
    (2, 3, 4, 7, 9, 12, 14),
    (1, 2, 6, 7, 9, 11, 12),
    (0, 3, 6, 7, 8, 10, 13),
    (0, 3, 4, 5, 9, 11, 14),
    (1, 2, 4, 5, 8, 10, 15),
]


def _i2b(x):
    return list(x.to_bytes(16, "big"))


def _b2i(b):
    return int.from_bytes(bytes(b), "big")


def _aria_A(x):
    b = _i2b(x)
    out = []
    for idx in ARIA_A:
        v = 0
        for j in idx:
            v ^= b[j]
        out.append(v)
    return _b2i(out)


_SL1 = (ARIA_SB1, ARIA_SB2, ARIA_SB3, ARIA_SB4)
_SL2 = (ARIA_SB3, ARIA_SB4, ARIA_SB1, ARIA_SB2)


def _aria_SL(x, tabs):
    b = _i2b(x)
    return _b2i([tabs[i % 4][v] for i, v in enumerate(b)])


def _FO(d, rk):
    return _aria_A(_aria_SL(d ^ rk, _SL1))


def _FE(d, rk):
    return _aria_A(_aria_SL(d ^ rk, _SL2))


def _r128(x, n):
    return ror(x, n, 128)


def _l128(x, n):
    return rol(x, n, 128)


def aria_keys(key):
    nbits = len(key) * 8
    ck1, ck2, ck3 = {
        128: (ARIA_C1, ARIA_C2, ARIA_C3),
        192: (ARIA_C2, ARIA_C3, ARIA_C1),
        256: (ARIA_C3, ARIA_C1, ARIA_C2),
    }[nbits]
    nr = {128: 12, 192: 14, 256: 16}[nbits]
    kl = _b2i(key[:16])
    kr = int.from_bytes(key[16:] + bytes(32 - len(key)), "big")
    w0 = kl
    w1 = _FO(w0, ck1) ^ kr
    w2 = _FE(w1, ck2) ^ w0
    w3 = _FO(w2, ck3) ^ w1
    W = (w0, w1, w2, w3)
    ek = []
    for rot in ((_r128, 19), (_r128, 31), (_l128, 61), (_l128, 31), (_l128, 19)):
        f, n = rot
        for j in range(4):
            ek.append(W[j] ^ f(W[(j + 1) % 4], n))
    ek = ek[: nr + 1]
    dk = [ek[nr]] + [_aria_A(ek[nr - i]) for i in range(1, nr)] + [ek[0]]
    return nr, ek, dk


def _aria_crypt(keys, nr, block):
    p = _b2i(block)
    for i in range(nr - 1):
        p = _FO(p, keys[i]) if i % 2 == 0 else _FE(p, keys[i])
    p = _aria_SL(p ^ keys[nr - 1], _SL2) ^ keys[nr]
    return p.to_bytes(16, "big")


def aria_encrypt(key, block, rounds=None):
    nr, ek, dk = aria_keys(key)
    return _aria_crypt(ek, nr, block)


def aria_decrypt(key, block, rounds=None):
    nr, ek, dk = aria_keys(key)
    return _aria_crypt(dk, nr, block)


# ---------------------------------------------------------------- LEA
LEA_DELTA = [0xC3EFE9DB, 0x44626B02, 0x79E27C8A, 0x78DF30EC, 0x715EA49E, 0xC785DA0A, 0xE04EF22A, 0xE5C40957]


def lea_keys(key):
    T = [int.from_bytes(key[4 * i : 4 * i + 4], "little") for i in range(len(key) // 4)]
    rk = []
    if len(key) == 16:
        for i in range(24):
            d = LEA_DELTA[i % 4]
            T[0] = rol((T[0] + rol(d, i, 32)) & M32, 1, 32)
            T[1] = rol((T[1] + rol(d, i + 1, 32)) & M32, 3, 32)
            T[2] = rol((T[2] + rol(d, i + 2, 32)) & M32, 6, 32)
            T[3] = rol((T[3] + rol(d, i + 3, 32)) & M32, 11, 32)
            rk.append((T[0], T[1], T[2], T[1], T[3], T[1]))
    elif len(key) == 24:
        rots = (1, 3, 6, 11, 13, 17)
        for i in range(28):
            d = LEA_DELTA[i % 6]
            for j in range(6):
                T[j] = rol((T[j] + rol(d, i + j, 32)) & M32, rots[j], 32)
            rk.append(tuple(T))
    elif len(key) == 32:
        rots = (1, 3, 6, 11, 13, 17)
        for i in range(32):
            d = LEA_DELTA[i % 8]
            for j in range(6):
                k = (6 * i + j) % 8
                T[k] = rol((T[k] + rol(d, i + j, 32)) & M32, rots[j], 32)
            rk.append(tuple(T[(6 * i + j) % 8] for j in range(6)))
    else:
        raise ValueError("LEA key length")
    return rk


def lea_encrypt(key, block, rounds=None):
    rk = lea_keys(key)
    X = [int.from_bytes(block[4 * i : 4 * i + 4], "little") for i in range(4)]
    for k in rk:
        X = [
            rol(((X[0] ^ k[0]) + (X[1] ^ k[1])) & M32, 9, 32),
            ror(((X[1] ^ k[2]) + (X[2] ^ k[3])) & M32, 5, 32),
            ror(((X[2] ^ k[4]) + (X[3] ^ k[5])) & M32, 3, 32),
            X[0],
        ]
    return b"".join(x.to_bytes(4, "little") for x in X)


def lea_decrypt(key, block, rounds=None):
    rk = lea_keys(key)
    Y = [int.from_bytes(block[4 * i : 4 * i + 4], "little") for i in range(4)]
    for k in reversed(rk):
        x0 = Y[3]
        x1 = ((ror(Y[0], 9, 32) - (x0 ^ k[0])) & M32) ^ k[1]
        x2 = ((rol(Y[1], 5, 32) - (x1 ^ k[2])) & M32) ^ k[3]
        x3 = ((rol(Y[2], 3, 32) - (x2 ^ k[4])) & M32) ^ k[5]
        Y = [x0, x1, x2, x3]
    return b"".join(x.to_bytes(4, "little") for x in Y)


# ---------------------------------------------------------------- HIGHT
def hight_delta():
    s = [0, 1, 0, 1, 1, 0, 1]  # bits of delta_0 = 0x5A, LSB first
    for i in range(1, 128):
        s.append(s[i + 2] ^ s[i - 1])  # s_{i+6} = s_{i+2} xor s_{i-1}
    return [sum(s[i + b] << b for b in range(7)) for i in range(128)]


HIGHT_DELTA = hight_delta()


def hight_keys(mk):
    wk = [mk[12], mk[13], mk[14], mk[15], mk[0], mk[1], mk[2], mk[3]]
    sk = [0] * 128
    for i in range(8):
        for j in range(8):
            sk[16 * i + j] = (mk[(j - i) % 8] + HIGHT_DELTA[16 * i + j]) & M8
            sk[16 * i + j + 8] = (mk[(j - i) % 8 + 8] + HIGHT_DELTA[16 * i + j + 8]) & M8
    return wk, sk


def _F0(x):
    return rol(x, 1, 8) ^ rol(x, 2, 8) ^ rol(x, 7, 8)


def _F1(x):
    return rol(x, 3, 8) ^ rol(x, 4, 8) ^ rol(x, 6, 8)


def hight_encrypt(key, block, rounds=None):
    wk, sk = hight_keys(key)
    X = list(block)
    X[0] = (X[0] + wk[0]) & M8
    X[2] ^= wk[1]
    X[4] = (X[4] + wk[2]) & M8
    X[6] ^= wk[3]
    for i in range(32):
        n0 = X[7] ^ ((_F0(X[6]) + sk[4 * i + 3]) & M8)
        n2 = (X[1] + (_F1(X[0]) ^ sk[4 * i])) & M8
        n4 = X[3] ^ ((_F0(X[2]) + sk[4 * i + 1]) & M8)
        n6 = (X[5] + (_F1(X[4]) ^ sk[4 * i + 2])) & M8
        if i < 31:
            X = [n0, X[0], n2, X[2], n4, X[4], n6, X[6]]
        else:  # last round: no byte rotation
            X = [X[0], n2, X[2], n4, X[4], n6, X[6], n0]
    X[0] = (X[0] + wk[4]) & M8
    X[2] ^= wk[5]
    X[4] = (X[4] + wk[6]) & M8
    X[6] ^= wk[7]
    return bytes(X)


def hight_decrypt(key, block, rounds=None):
    wk, sk = hight_keys(key)
    X = list(block)
    X[0] = (X[0] - wk[4]) & M8
    X[2] ^= wk[5]
    X[4] = (X[4] - wk[6]) & M8
    X[6] ^= wk[7]
    for i in range(31, -1, -1):
        if i == 31:
            o0, o2, o4, o6 = X[0], X[2], X[4], X[6]
            n2, n4, n6, n0 = X[1], X[3], X[5], X[7]
        else:
            n0, o0, n2, o2, n4, o4, n6, o6 = X
        o1 = (n2 - (_F1(o0) ^ sk[4 * i])) & M8
        o3 = n4 ^ ((_F0(o2) + sk[4 * i + 1]) & M8)
        o5 = (n6 - (_F1(o4) ^ sk[4 * i + 2])) & M8
        o7 = n0 ^ ((_F0(o6) + sk[4 * i + 3]) & M8)
        X = [o0, o1, o2, o3, o4, o5, o6, o7]
    X[0] = (X[0] - wk[0]) & M8
    X[2] ^= wk[1]
    X[4] = (X[4] - wk[2]) & M8
    X[6] ^= wk[3]
    return bytes(X)


# ---------------------------------------------------------------- CHAM (Crypto++ byte order: words big-endian)
def _cham_words(b, w):
    n = w // 8
    return [int.from_bytes(b[n * i : n * i + n], "big") for i in range(len(b) // n)]


def _cham_bytes(ws, w):
    return b"".join(x.to_bytes(w // 8, "big") for x in ws)


def cham_keys(K, w):
    kw = len(K)
    rk = [0] * (2 * kw)
    for i in range(kw):
        rk[i] = K[i] ^ rol(K[i], 1, w) ^ rol(K[i], 8, w)
        rk[(i + kw) ^ 1] = K[i] ^ rol(K[i], 1, w) ^ rol(K[i], 11, w)
    return rk


def _cham_enc(key, block, rounds, w):
    m = (1 << w) - 1
    rk = cham_keys(_cham_words(key, w), w)
    X = _cham_words(block, w)
    for i in range(rounds):
        if i % 2 == 0:
            t = rol(((X[0] ^ i) + (rol(X[1], 1, w) ^ rk[i % len(rk)])) & m, 8, w)
        else:
            t = rol(((X[0] ^ i) + (rol(X[1], 8, w) ^ rk[i % len(rk)])) & m, 1, w)
        X = [X[1], X[2], X[3], t]
    return _cham_bytes(X, w)


def _cham_dec(key, block, rounds, w):
    m = (1 << w) - 1
    rk = cham_keys(_cham_words(key, w), w)
    X = _cham_words(block, w)
    for i in range(rounds - 1, -1, -1):
        t = X[3]
        x1 = X[0]
        if i % 2 == 0:
            x0 = ((ror(t, 8, w) - (rol(x1, 1, w) ^ rk[i % len(rk)])) & m) ^ i
        else:
            x0 = ((ror(t, 1, w) - (rol(x1, 8, w) ^ rk[i % len(rk)])) & m) ^ i
        X = [x0 & m, X[0], X[1], X[2]]
    return _cham_bytes(X, w)


# ---------------------------------------------------------------- PIPO
PIPO_SBOX = [
    221,
    167,
    0,
    250,
    138,
    45,
    120,
    95,
    224,
    150,
    37,
    205,
    177,
    10,
    87,
    114,
    184,
    198,
    99,
    157,
    233,
    76,
    31,
    58,
    53,
    65,
    246,
    18,
    108,
    211,
    134,
    169,
    251,
    139,
    44,
    220,
    166,
    1,
    94,
    121,
    204,
    176,
    11,
    225,
    151,
    36,
    115,
    86,
    156,
    232,
    77,
    185,
    199,
    98,
    59,
    30,
    19,
    109,
    210,
    52,
    64,
    247,
    168,
    135,
    136,
    248,
    93,
    165,
    223,
    122,
    47,
    2,
    35,
    81,
    230,
    12,
    116,
    203,
    144,
    183,
    235,
    159,
    56,
    196,
    186,
    29,
    78,
    97,
    240,
    128,
    51,
    213,
    175,
    20,
    71,
    106,
    66,
    54,
    133,
    111,
    17,
    170,
    245,
    208,
    75,
    61,
    154,
    100,
    24,
    191,
    238,
    193,
    179,
    207,
    112,
    148,
    226,
    85,
    8,
    39,
    6,
    126,
    219,
    43,
    89,
    252,
    161,
    140,
    82,
    32,
    147,
    119,
    15,
    180,
    229,
    200,
    125,
    5,
    162,
    90,
    40,
    143,
    216,
    255,
    173,
    215,
    104,
    130,
    242,
    69,
    22,
    49,
    62,
    72,
    237,
    27,
    103,
    194,
    153,
    188,
    131,
    243,
    68,
    172,
    214,
    105,
    48,
    23,
    26,
    102,
    195,
    63,
    73,
    236,
    189,
    152,
    118,
    14,
    181,
    83,
    33,
    146,
    201,
    228,
    91,
    41,
    142,
    124,
    4,
    163,
    254,
    217,
    149,
    227,
    84,
    178,
    206,
    113,
    38,
    9,
    42,
    88,
    253,
    7,
    127,
    218,
    141,
    160,
    110,
    16,
    171,
    67,
    55,
    132,
    209,
    244,
    101,
    25,
    190,
    74,
    60,
    155,
    192,
    239,
    164,
    222,
    123,
    137,
    249,
    92,
    3,
    46,
    13,
    117,
    202,
    34,
    80,
    231,
    182,
    145,
    197,
    187,
    28,
    234,
    158,
    57,
    96,
    79,
    212,
    174,
    21,
    241,
    129,
    50,
    107,
    70,
]
PIPO_INV = [0] * 256
for _i, _v in enumerate(PIPO_SBOX):
    PIPO_INV[_v] = _i

PIPO_ROT = (0, 4, 1, 7, 6, 2, 3, 5)  # left-rotation of row i (designers' repository)


def pipo_sbox_bitsliced(X):
    """Forward S-layer on 8 rows (u8 each); X[0] = bit 0 (LSB) of each column's S-box input."""
    X = list(X)
    # S5_1 on rows 7..3
    X[7] ^= X[5] & X[6]
    X[4] ^= X[5] & X[7]
    X[5] ^= X[4] | X[3]
    X[6] ^= X[4]
    X[3] ^= X[7]
    X[7] ^= X[3] & X[6]
    # S3 on rows 2..0
    X[0] ^= X[2] & X[1]
    X[1] ^= X[2] | X[0]
    X[1] ^= 0xFF
    X[2] ^= X[0] | X[1]
    # extend xor
    X[7] ^= X[2]
    X[6] ^= X[1]
    X[5] ^= X[0]
    # S5_2
    t0, t1, t2 = X[7], X[6], X[5]
    X[4] ^= X[3] & t0
    X[4] ^= t1
    t2 ^= X[4] | t1
    t0 ^= t2
    t1 ^= X[3]
    t2 |= t1
    X[3] ^= X[4] | t0
    t2 ^= t0
    # truncate xor (+ implicit row renaming: rows 7,6,5 now hold old values)
    X[2] ^= t0
    X[1] ^= t2
    X[0] ^= t1
    return X


def pipo_inv_sbox_bitsliced(X):
    X = list(X)
    t0, t1, t2 = X[7], X[6], X[5]
    t3 = t0
    t2 ^= X[4] | t1
    t0 ^= t2
    X[3] ^= X[4] | t0
    X[4] ^= t1
    t1 ^= X[3]
    t2 |= t1
    t2 ^= t0
    X[4] ^= X[3] & t3
    X[2] ^= t0
    X[1] ^= t2
    X[0] ^= t1
    X[7] ^= X[2]
    X[6] ^= X[1]
    X[5] ^= X[0]
    X[7] ^= X[3] & X[6]
    X[3] ^= X[7]
    X[6] ^= X[4]
    X[5] ^= X[4] | X[3]
    X[4] ^= X[5] & X[7]
    X[7] ^= X[5] & X[6]
    X[2] ^= X[0] | X[1]
    X[1] ^= 0xFF
    X[1] ^= X[2] | X[0]
    X[0] ^= X[2] & X[1]
    return X


def _pipo_sbox_table_layer(X, tab):
    out = [0] * 8
    for b in range(8):
        col = 0
        for r in range(8):
            col |= ((X[r] >> b) & 1) << r
        y = tab[col]
        for r in range(8):
            out[r] |= ((y >> r) & 1) << b
    return out


def pipo_round_keys(key, rounds):
    nk = len(key) // 8
    return [bytes([key[8 * (i % nk)] ^ i]) + key[8 * (i % nk) + 1 : 8 * (i % nk) + 8] for i in range(rounds + 1)]


def _pipo_default_rounds(key):
    return {16: 13, 32: 15}[len(key)]


def pipo_encrypt(key, block, rounds=None, use_table=False):
    rounds = rounds or _pipo_default_rounds(key)
    rk = pipo_round_keys(key, rounds)
    X = [a ^ b for a, b in zip(block, rk[0])]
    for i in range(1, rounds + 1):
        X = _pipo_sbox_table_layer(X, PIPO_SBOX) if use_table else pipo_sbox_bitsliced(X)
        X = [rol(X[r], PIPO_ROT[r], 8) for r in range(8)]
        X = [a ^ b for a, b in zip(X, rk[i])]
    return bytes(X)


def pipo_decrypt(key, block, rounds=None, use_table=False):
    rounds = rounds or _pipo_default_rounds(key)
    rk = pipo_round_keys(key, rounds)
    X = list(block)
    for i in range(rounds, 0, -1):
        X = [a ^ b for a, b in zip(X, rk[i])]
        X = [ror(X[r], PIPO_ROT[r], 8) for r in range(8)]
        X = _pipo_sbox_table_layer(X, PIPO_INV) if use_table else pipo_inv_sbox_bitsliced(X)
    return bytes(a ^ b for a, b in zip(X, rk[0]))


# ---------------------------------------------------------------- registry
class _C:
    def __init__(self, name, enc, dec, bs, ks, default_rounds=None):
        self.name, self._e, self._d, self.block_size, self.key_size = name, enc, dec, bs, ks
        self.default_rounds = default_rounds

    def encrypt(self, key, block, rounds=None):
        assert len(key) == self.key_size and len(block) == self.block_size
        return self._e(key, block, rounds if rounds is not None else self.default_rounds)

    def decrypt(self, key, block, rounds=None):
        assert len(key) == self.key_size and len(block) == self.block_size
        return self._d(key, block, rounds if rounds is not None else self.default_rounds)


def _cham(w, r):
    return (lambda k, b, rr: _cham_enc(k, b, rr, w)), (lambda k, b, rr: _cham_dec(k, b, rr, w))


CIPHERS = {}
for _n, _ks in (("aes128", 16), ("aes192", 24), ("aes256", 32)):
    CIPHERS[_n] = _C(_n, aes_encrypt, aes_decrypt, 16, _ks)
for _n, _ks in (("aria128", 16), ("aria192", 24), ("aria256", 32)):
    CIPHERS[_n] = _C(_n, aria_encrypt, aria_decrypt, 16, _ks)
for _n, _ks in (("lea128", 16), ("lea192", 24), ("lea256", 32)):
    CIPHERS[_n] = _C(_n, lea_encrypt, lea_decrypt, 16, _ks)
CIPHERS["hight"] = _C("hight", hight_encrypt, hight_decrypt, 8, 16)
CIPHERS["cham64_128"] = _C("cham64_128", *_cham(16, 88), 8, 16, default_rounds=88)
CIPHERS["cham128_128"] = _C("cham128_128", *_cham(32, 112), 16, 16, default_rounds=112)
CIPHERS["cham128_256"] = _C("cham128_256", *_cham(32, 120), 16, 32, default_rounds=120)
CIPHERS["pipo64_128"] = _C("pipo64_128", pipo_encrypt, pipo_decrypt, 8, 16, default_rounds=13)
CIPHERS["pipo64_256"] = _C("pipo64_256", pipo_encrypt, pipo_decrypt, 8, 32, default_rounds=15)

# module-level convenience: encrypt(name, key, block) is NOT provided; use CIPHERS[name].
# per-variant functions, e.g. aria128_encrypt(key, block, rounds=None)
for _n, _c in CIPHERS.items():
    globals()[_n + "_encrypt"] = _c.encrypt
    globals()[_n + "_decrypt"] = _c.decrypt
