"""What several backends share: the one Jinja2 environment (templates) and affine equivalence of
S-boxes to the AES S-box (affine: NEON AESE/AESD, the C bitsliced circuits)."""
