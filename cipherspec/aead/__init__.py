"""The authenticated modes and the modes applications use beside ECB/CBC/CTR, defined once over any
cipher object with ``block_bytes``, ``key_bytes``, ``expand_key``, ``encrypt_blocks`` and
``decrypt_blocks`` (RefCipher, CCipher, the NEON and CUDA targets): the oracle every target's own
implementation is tested against.

    from cipherspec import aead
    ct, tag = aead.gcm_encrypt(c, rk, iv, aad, data)          # GCM/GMAC: SP 800-38D  (gcm.py)
    ct, tag = aead.ccm_encrypt(c, rk, nonce, aad, data)       # CCM: SP 800-38C       (ccm.py)
    ct = aead.xts_encrypt(c, key1 + key2, tweak, data)        # XTS: IEEE 1619        (xts.py)
    tag = aead.cmac(c, rk, msg)                               # CMAC: SP 800-38B      (cmac.py)
    aead.call(c, "gcm_encrypt", rk, iv, aad, data)            # the target's own when it has one (dispatch.py)

Bad parameters raise UsageError naming the one thing wrong; a wrong tag raises AuthenticationError.
"""

from __future__ import annotations

from .ccm import CcmStream, ccm_decrypt, ccm_encrypt
from .cmac import CmacStream, cmac
from .dispatch import call, ccm_stream, cmac_stream, gcm_stream, native
from .gcm import GcmStream, gcm_decrypt, gcm_encrypt, gmac
from .xts import sector_tweak, xts_decrypt, xts_encrypt, xts_sectors

__all__ = [
    "CcmStream",
    "CmacStream",
    "GcmStream",
    "call",
    "ccm_decrypt",
    "ccm_encrypt",
    "ccm_stream",
    "cmac",
    "cmac_stream",
    "gcm_decrypt",
    "gcm_encrypt",
    "gcm_stream",
    "gmac",
    "native",
    "xts_decrypt",
    "xts_encrypt",
    "sector_tweak",
    "xts_sectors",
]
