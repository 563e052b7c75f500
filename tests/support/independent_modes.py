"""GCM, CCM, XTS and CMAC written a second way, over a plain block function ``enc(block) -> block``
(the independent ciphers of independent.py), to cross-check cipherspec.aead on ciphers that no library
here has (LEA, ARIA, SM4 beside AES, CHAM, SPECK, ...).

Where cipherspec.aead streams and multiplies in GF(2^128) by the SP's bit-serial Algorithm 1, this
builds each whole message first and multiplies as polynomials: bit-reverse into x^i order, carry-less
product, reduction by x^128 + x^7 + x^2 + x + 1, bit-reverse back.  The same functions over AES match
the `cryptography` package (tests/unit/test_aead_independent.py), which is what makes them a witness.

    gcm(enc, iv, aad, pt, tag_len=16) -> (ct, tag);  ccm(enc, nonce, aad, pt, tag_len) -> (ct, tag)
    xts(enc1, dec1, enc2, tweak, data, decrypt=False);  cmac(enc, msg, block=16) -> tag
"""

from __future__ import annotations


def _rev128(x: int) -> int:
    return int(f"{x:0128b}"[::-1], 2)


def _polymul(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


def _polymod(r: int) -> int:
    poly = (1 << 128) | 0x87
    for bit in range(r.bit_length() - 1, 127, -1):
        if r >> bit & 1:
            r ^= poly << (bit - 128)
    return r


def gf_mul(x: bytes, y: bytes) -> bytes:
    """GCM's product of two 16-byte blocks, as polynomials in x."""
    a, b = _rev128(int.from_bytes(x, "big")), _rev128(int.from_bytes(y, "big"))
    return _rev128(_polymod(_polymul(a, b))).to_bytes(16, "big")


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(p ^ q for p, q in zip(a, b))


def _zero_pad(b: bytes, n: int = 16) -> bytes:
    return b + bytes(-len(b) % n)


def ghash(h: bytes, data: bytes) -> bytes:
    y = bytes(16)
    for i in range(0, len(data), 16):
        y = gf_mul(_xor(y, data[i : i + 16]), h)
    return y


def gcm(enc, iv: bytes, aad: bytes, pt: bytes, tag_len: int = 16) -> tuple[bytes, bytes]:
    h = enc(bytes(16))
    if len(iv) == 12:
        j0 = iv + (1).to_bytes(4, "big")
    else:
        j0 = ghash(h, _zero_pad(iv) + (8 * len(iv)).to_bytes(16, "big"))
    prefix, ctr = j0[:12], int.from_bytes(j0[12:], "big")
    stream = b"".join(enc(prefix + ((ctr + i) % 2**32).to_bytes(4, "big")) for i in range(1, len(pt) // 16 + 2))
    ct = _xor(pt, stream)
    lengths = (8 * len(aad)).to_bytes(8, "big") + (8 * len(ct)).to_bytes(8, "big")
    s = ghash(h, _zero_pad(aad) + _zero_pad(ct) + lengths)
    return ct, _xor(enc(j0), s)[:tag_len]


def ccm(enc, nonce: bytes, aad: bytes, pt: bytes, tag_len: int) -> tuple[bytes, bytes]:
    q = 15 - len(nonce)
    b0 = bytes([(64 if aad else 0) + 8 * ((tag_len - 2) // 2) + q - 1]) + nonce + len(pt).to_bytes(q, "big")
    if not aad:
        a = b""
    elif len(aad) < 0xFF00:
        a = len(aad).to_bytes(2, "big") + aad
    else:
        a = b"\xff\xfe" + len(aad).to_bytes(4, "big") + aad
    blocks = b0 + _zero_pad(a) + _zero_pad(pt)
    y = bytes(16)
    for i in range(0, len(blocks), 16):
        y = enc(_xor(y, blocks[i : i + 16]))
    ctr = [enc(bytes([q - 1]) + nonce + i.to_bytes(q, "big")) for i in range(len(pt) // 16 + 2)]
    return _xor(pt, b"".join(ctr[1:])), _xor(y[:tag_len], ctr[0])


def _times_alpha(t: bytes) -> bytes:
    """IEEE 1619 5.2: multiply by alpha, byte by byte, the carry running from byte 0 up."""
    out, carry = bytearray(16), 0
    for j in range(16):
        out[j] = ((t[j] << 1) + carry) & 0xFF
        carry = t[j] >> 7
    if carry:
        out[0] ^= 0x87
    return bytes(out)


def xts(enc1, dec1, enc2, tweak: bytes, data: bytes, decrypt: bool = False) -> bytes:
    op = dec1 if decrypt else enc1
    t = [enc2(tweak)]
    for _ in range(len(data) // 16 + 1):
        t.append(_times_alpha(t[-1]))
    m, b = divmod(len(data), 16)
    blk = [data[16 * i : 16 * i + 16] for i in range(m)]

    def one(x, tw):
        return _xor(op(_xor(x, tw)), tw)

    if b == 0:
        return b"".join(one(blk[i], t[i]) for i in range(m))
    head = b"".join(one(blk[i], t[i]) for i in range(m - 1))
    first, second = (t[m], t[m - 1]) if decrypt else (t[m - 1], t[m])
    cc = one(blk[m - 1], first)
    tail = data[16 * m :]
    return head + one(tail + cc[b:], second) + cc[:b]


def _shift_left(block: bytes, rb: int) -> bytes:
    out = bytearray(len(block))
    for i in range(len(block)):
        nxt = block[i + 1] >> 7 if i + 1 < len(block) else 0
        out[i] = ((block[i] << 1) | nxt) & 0xFF
    if block[0] & 0x80:
        out[-1] ^= rb
    return bytes(out)


def cmac(enc, msg: bytes, block: int = 16, tag_len: int | None = None) -> bytes:
    rb = 0x87 if block == 16 else 0x1B
    k1 = _shift_left(enc(bytes(block)), rb)
    k2 = _shift_left(k1, rb)
    n = max(1, -(-len(msg) // block))
    last = msg[(n - 1) * block :]
    last = _xor(last, k1) if len(last) == block else _xor(last + b"\x80" + bytes(block - len(last) - 1), k2)
    y = bytes(block)
    for i in range(n - 1):
        y = enc(_xor(y, msg[i * block : (i + 1) * block]))
    return enc(_xor(y, last))[: tag_len or block]
