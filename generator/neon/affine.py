"""Affine equivalence with the AES S-box, as the NEON backend uses it (AESE/AESD): moved to
generator/common/affine.py (shared with the C bitsliced schedule); this name stays for existing imports."""
from generator.common.affine import Affine, aes_sbox, match  # noqa: F401
