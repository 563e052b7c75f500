"""cipherspec: block-cipher specs compiled to NEON, CUDA/PTX and portable C, checked against an interpreter."""

__version__ = "0.1.0"
