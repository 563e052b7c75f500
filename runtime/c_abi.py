"""The C libraries' ABI contract, in one place: the error codes every generated C function returns.

The generator renders these into the headers (generator/c, generator/drbg); the loaders
(runtime/c_target.py, runtime/c_drbg.py) read them back as Python constants.

    CODES["CIPHERSPEC_ERR_LENGTH"] -> -2
    define_lines(CIPHER_CODES)     -> ["#define CIPHERSPEC_OK 0", "#define CIPHERSPEC_ERR_NULL (-1)", ...]
"""

from __future__ import annotations

# (name, value, meaning); the cipher API's codes, then the CTR_DRBG's
CIPHER_CODES = (
    ("CIPHERSPEC_OK", 0, ""),
    ("CIPHERSPEC_ERR_NULL", -1, "a pointer argument is NULL (also when len is 0)"),
    ("CIPHERSPEC_ERR_LENGTH", -2, "ECB/CBC: len is not a multiple of the block"),
    ("CIPHERSPEC_ERR_KEY_LENGTH", -3, "set_key: key_len is not the key size"),
    (
        "CIPHERSPEC_ERR_ISA",
        -7,
        "set_key: the ISA level asked for is unknown or missing on this CPU; the modes: the key was not set up",
    ),
    ("CIPHERSPEC_ERR_AUTH", -8, "AEAD/MAC decrypt or verify: the tag does not match (no plaintext is output)"),
    (
        "CIPHERSPEC_ERR_PARAM",
        -9,
        "AEAD/XTS/CMAC: a nonce, IV, tag or data length out of the mode's range, or equal XTS key halves",
    ),
)
DRBG_CODES = (
    ("CIPHERSPEC_ERR_DRBG_LIMIT", -4, "a length or the reseed interval is out of range"),
    ("CIPHERSPEC_ERR_RESEED_REQUIRED", -5, "a reseed is due and no entropy was given"),
    ("CIPHERSPEC_ERR_DRBG_STATE", -6, "not instantiated"),
)
CODES = {name: value for name, value, _ in CIPHER_CODES + DRBG_CODES}

OK = CODES["CIPHERSPEC_OK"]
ERR_NULL = CODES["CIPHERSPEC_ERR_NULL"]
ERR_LENGTH = CODES["CIPHERSPEC_ERR_LENGTH"]
ERR_KEY_LENGTH = CODES["CIPHERSPEC_ERR_KEY_LENGTH"]
ERR_ISA = CODES["CIPHERSPEC_ERR_ISA"]
ERR_AUTH = CODES["CIPHERSPEC_ERR_AUTH"]
ERR_PARAM = CODES["CIPHERSPEC_ERR_PARAM"]
ERR_DRBG_LIMIT = CODES["CIPHERSPEC_ERR_DRBG_LIMIT"]
ERR_RESEED_REQUIRED = CODES["CIPHERSPEC_ERR_RESEED_REQUIRED"]
ERR_DRBG_STATE = CODES["CIPHERSPEC_ERR_DRBG_STATE"]


def define_lines(codes, comments: bool = False) -> list[str]:
    """``#define`` lines for ``codes``; with comments, each meaning aligned after the value."""
    lines = []
    for name, value, meaning in codes:
        text = f"#define {name} {value}" if value == 0 else f"#define {name} ({value})"
        lines.append(f"{text.ljust(44)}  /* {meaning} */" if comments and meaning else text)
    return lines
