"""A bit-level model of the batch GHASH kernel on the tensor cores (templates/tgb.cu.j2: P_tgb_records, one warp a
record, with tgh.cu.j2's cs_tgh_columns / cs_tgh_frags / cs_tgh_warp / cs_tgh_tile), run on the CPU: the B
fragments as the kernels make them, the ring slots and A tuples as cs_tgh_warp loads them, the 1-bit MMAs
(m16n8k256 and the Horner step's m16n8k128, AND + popcount) with the PTX fragment layouts, then the kernel's
tail (the 16 row values gathered, put back in memory order, times H^(4r), summed), compared with GHASH's
definition sum_j C_j H^j over the record's blocks (cipherspec.ghash.gf128_mul).  It checks the index algebra of
the route, not the GPU; the GPU tests (tests/differential/test_cuda_gcm_gpu.py) check the kernels.  The same
for cs_tgb_field (a record whose key has no matrices: the field multiply, a lane a column of blocks).

    python3 bench/gpu/tgb_model.py 0 1 17 1040 4100     -> "0 tensor cores, 1 packing chain(s) OK", ...
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.ghash import gf128_mul  # noqa: E402

ONE = 1 << 127


def fe(b: bytes) -> int:
    return int.from_bytes(b, "big")


def fb(x: int) -> bytes:
    return x.to_bytes(16, "big")


def hpow(h, n):
    r = ONE
    for _ in range(n):
        r = gf128_mul(r, h)
    return r


def membit(block: bytes, i):
    return (block[i // 8] >> (i % 8)) & 1


def columns(h, L):  # cols[d][i] = memory words of e_i * H^(d*4^L)
    out = []
    for d in range(4):
        p = hpow(h, d * 4**L)
        col = []
        for i in range(128):
            e = bytearray(16)
            e[i // 8] |= 1 << (i % 8)
            col.append(fb(gf128_mul(fe(bytes(e)), p)))
        out.append(col)
    return out


def frags(cols, L, horner=False):
    """B words as cs_tgh_frags makes them: level L (or the Horner step from level 3's d=1)"""
    if horner:
        hb = {}
        for q in range(512):
            o = 8 * (q >> 5) + ((q & 31) >> 2)
            wi = q & 3
            c = cols[1]
            w = 0
            for b in range(32):
                i = 8 * (b >> 1) + 2 * wi + (b & 1)
                w |= membit(c[i], o) << b
            hb[q] = w
        return hb
    mat = {}
    for q in range(2048):
        h_ = q & 1
        lane = (q >> 1) & 31
        nt = (q >> 6) & 15
        kt = q >> 10
        o = 8 * nt + (lane >> 2)
        c = cols[lane & 3]
        wi = 2 * kt + h_
        w = 0
        for b in range(32):
            i = (8 * (b >> 1) + 2 * wi + (b & 1)) if L > 0 else 32 * wi + b
            w |= membit(c[i], o) << b
        mat[q] = w
    return mat


def popc(x):
    return bin(x).count("1")


def mma256(A, Bw):
    """A[lane] = (a[2][4]), Bw[lane] = (b0, b1) -> D[lane] = (d0..d3) of m16n8k256 b1 AND.POPC.
    Layout: a0 row g k 32t..; a1 row g+8 k 32t..; a2 row g k 128+32t; a3 row g+8 k 128+32t. b0 col g k 32t; b1 col g k 128+32t.
    d0 (g, 2t), d1 (g, 2t+1), d2 (g+8, 2t), d3 (g+8, 2t+1)"""
    rows = [0] * 16
    colsb = [0] * 8
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        a0, a1, a2, a3 = A[lane]
        rows[g] |= (a0 << (32 * t)) | (a2 << (128 + 32 * t))
        rows[g + 8] |= (a1 << (32 * t)) | (a3 << (128 + 32 * t))
        b0, b1 = Bw[lane]
        colsb[g] |= (b0 << (32 * t)) | (b1 << (128 + 32 * t))
    D = []
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        D.append(
            (
                popc(rows[g] & colsb[2 * t]),
                popc(rows[g] & colsb[2 * t + 1]),
                popc(rows[g + 8] & colsb[2 * t]),
                popc(rows[g + 8] & colsb[2 * t + 1]),
            )
        )
    return D


def mma128(A, Bw):  # a0 row g k 32t, a1 row g+8 k 32t; b0 col g k 32t
    rows = [0] * 16
    colsb = [0] * 8
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        a0, a1 = A[lane]
        rows[g] |= a0 << (32 * t)
        rows[g + 8] |= a1 << (32 * t)
        colsb[g] |= Bw[lane] << (32 * t)
    return [
        (
            popc(rows[g] & colsb[2 * t]),
            popc(rows[g] & colsb[2 * t + 1]),
            popc(rows[g + 8] & colsb[2 * t]),
            popc(rows[g + 8] & colsb[2 * t + 1]),
        )
        for g, t in ((l >> 2, l & 3) for l in range(32))
    ]


def tile(a, mat, acc, hb, horner, ch=1):
    """cs_tgh_tile<HORNER, CH>: a[lane] = [[a00,a01,a02,a03],[a10..]] ; returns (z0, z1) per lane; ch packing
    chains of 16 / ch n-tiles each, chain c shifted down by 32 (ch - 1 - c) / ch at the end"""
    zc = [[[0, 0] for _ in range(32)] for _ in range(ch)]
    for nt in range(16):
        d = [[0, 0, 0, 0] for _ in range(32)]
        for kt in range(2):
            A = [tuple(a[l][kt]) for l in range(32)]
            Bw = [(mat[((kt * 16 + nt) * 32 + l) * 2], mat[((kt * 16 + nt) * 32 + l) * 2 + 1]) for l in range(32)]
            D = mma256(A, Bw)
            for l in range(32):
                for k in range(4):
                    d[l][k] += D[l][k]
        if horner:
            D = mma128([(acc[l][0], acc[l][1]) for l in range(32)], [hb[nt * 32 + l] for l in range(32)])
            for l in range(32):
                for k in range(4):
                    d[l][k] += D[l][k]
        z = zc[nt // (16 // ch)]
        for l in range(32):  # the funnel shifts: bit 0 of d in at bit 31, the rest one down
            for k in range(4):
                z[l][k >> 1] = (z[l][k >> 1] >> 1) | ((d[l][k] & 1) << 31)
    out = zc[ch - 1]
    for c in range(ch - 1):
        sh = 32 * (ch - 1 - c) // ch
        for l in range(32):
            assert not (out[l][0] & (zc[c][l][0] >> sh)) and not (out[l][1] & (zc[c][l][1] >> sh))
            out[l] = [out[l][0] | (zc[c][l][0] >> sh), out[l][1] | (zc[c][l][1] >> sh)]
    return out


def records_model(msg: bytes, h: int, ch: int = 1) -> int:
    n = (len(msg) + 15) // 16
    ntiles = ((n + 3) // 4 + 15) // 16
    cols0, cols3 = columns(h, 0), columns(h, 3)
    mat = frags(cols0, 0)
    hb = frags(cols3, 3, horner=True)
    rem = len(msg) & 15
    acc = [[0, 0] for _ in range(32)]
    for tl in range(ntiles - 1, -1, -1):
        stage = bytearray(b"\xa5" * 1024)  # one ring stage; every byte is written (a stale one would show)
        for slot in range(64):  # lane = slot % 32 copies block n-1-j (j = 64 tile + slot) a word at a time
            j, lane, hh = 64 * tl + slot, slot % 32, slot // 32
            nbytes = 0 if j >= n else rem if (j == 0 and rem) else 16
            i = n - 1 - j
            for w in range(4):  # cp.async 4 bytes, src-size bw, zero-filled: word w to k-tile w/2, slot 2(w%2)+hh
                bw = max(0, min(4, nbytes - 4 * w))
                word = msg[16 * i + 4 * w : 16 * i + 4 * w + bw] + bytes(4 - bw) if bw else bytes(4)
                at = 16 * lane + 4 * hh + 512 * (w >> 1) + 8 * (w & 1)
                stage[at : at + 4] = word
        a = []
        for lane in range(32):  # the two 16-byte shared loads: k-tile 0's and 1's A tuples
            t0 = [int.from_bytes(stage[16 * lane + 4 * k : 16 * lane + 4 * k + 4], "little") for k in range(4)]
            t1 = [
                int.from_bytes(stage[512 + 16 * lane + 4 * k : 512 + 16 * lane + 4 * k + 4], "little") for k in range(4)
            ]
            a.append([t0, t1])
        acc = tile(a, mat, acc, hb, True, ch)
    # the tail as written in tgb.cu.j2
    pw = [hpow(h, 4 * v) for v in range(16)]
    total = 0
    for lane in range(16):
        src = 4 * (lane & 7)
        w = [acc[src + k][1] if lane & 8 else acc[src + k][0] for k in range(4)]
        f = bytearray()
        for t in range(4):
            m = 0
            for bb in range(32):
                m |= ((w[(bb >> 1) & 3] >> (8 * t + 2 * (bb >> 3) + (bb & 1))) & 1) << bb
            f += m.to_bytes(4, "little")  # memory word t; prmt 0x0123 = big-endian field word of the same bytes
        total ^= gf128_mul(fe(bytes(f)), pw[lane])
    return total


def field_model(msg: bytes, h: int) -> int:
    """cs_tgb_field: lane l takes blocks 32 row + l - pad, Horner over the rows with H^32, times H^(31 - l)."""
    n = (len(msg) + 15) // 16
    rows = (n + 31) // 32
    pad = 32 * rows - n
    h32 = hpow(h, 32)
    total = 0
    for lane in range(32):
        f = 0
        for row in range(rows):
            f = gf128_mul(f, h32)
            ip = 32 * row + lane
            if ip >= pad:
                i = ip - pad
                f ^= fe((msg[16 * i : 16 * i + 16] + bytes(16))[:16])
        total ^= gf128_mul(f, hpow(h, 31 - lane))
    return total


def ghash_sum(msg: bytes, h: int) -> int:
    n = (len(msg) + 15) // 16
    s = 0
    for i in range(n):
        blk = (msg[16 * i : 16 * i + 16] + bytes(16))[:16]
        s ^= gf128_mul(fe(blk), hpow(h, n - 1 - i))
    return s


def main() -> int:
    rng = random.Random(5)
    h = rng.getrandbits(128)
    bad = 0
    for ln in [int(x) for x in sys.argv[1:]] or [0, 1, 16, 17, 100, 1040, 4100]:
        msg = bytes(rng.getrandbits(8) for _ in range(ln))
        want = ghash_sum(msg, h)
        runs = [(f"tensor cores, {ch} packing chain(s)", records_model(msg, h, ch)) for ch in (1, 2, 4)]
        for what, got in runs + [("field multiply", field_model(msg, h))]:
            bad += got != want
            print(ln, what, "OK" if got == want else f"MISMATCH {got:032x} {want:032x}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
