"""The word-shape test ciphers (tests/data), shared by the NEON and CUDA word-shape tests.

speck128like.cs  speck128le, speck128be   64-bit-word ARX (SPECK-128 round), little / big endian
rotations.cs     rot16x6, rot64x4         u16 / u64 rotations by byte and non-byte amounts, shifts
sm4like.cs       sm4like8                 SM4-style: unpack_be -> byte S-box -> pack_be on u32 words
bytelookups.cs   ttab6, camlike6          a u8 -> u32 table on chosen bytes; Camellia-style u64 F
                                          (8 bytes, 4 S-boxes, byte XORs) and 32-bit halves (FL);
                 t64x4                    a u8 -> u64 table on bytes of u64 words
toy.cs           toy4                     (x & 0xffffff00) | S[u8(x)] on u32[2] (S = the AES S-box)
widevalues.cs    wide4, wide8x3           values wider than the block words: u32 sums, differences and
                                          rotations on u16 words; u32/u64 values from u8 words (NEON limbs)
"""

from __future__ import annotations

from paths import ROOT

from cipherspec.registry import Registry

DATA = ROOT / "tests" / "data"
SPECS = [
    DATA / f for f in ("speck128like.cs", "sm4like.cs", "rotations.cs", "toy.cs", "bytelookups.cs", "widevalues.cs")
]
REG = Registry(SPECS)
WIDE = ["speck128le", "speck128be", "rot64x4", "camlike6", "t64x4"]  # 64-bit words
NARROW = ["sm4like8", "ttab6", "toy4", "rot16x6"]  # byte lookups on words, u16 rotations
# the CUDA schedules these cells run by default: the one-block-per-thread layout, whose word unpack/pack they test
# ("rk-const" names its table placement where a spec has tables: the build default there is the bitsliced layout,
# tests/unit/test_cuda_ct_default.py); then the non-default ones: compiled in CI, run on the GPU
# (camlike6 and t64x4, tables on 64-bit words, are bitsliced by default too since split_u64 runs before that layout)
TABLE_LAYOUT = ("sm4like8", "ttab6", "toy4", "camlike6", "t64x4")
CUDA_DEFAULTS = [(n, "rk-const" if n in TABLE_LAYOUT else None) for n in WIDE + NARROW]
CUDA_OTHER = [
    ("speck128le", "rk-shared_ilp2"),
    ("speck128be", "rk-reg"),
    ("camlike6", "tab-global"),
    ("camlike6", "rk-shared_tab-const"),
    ("ttab6", "tab-shared"),
    ("sm4like8", "nohoist_bal"),
]
