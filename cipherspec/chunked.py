"""ECB, CBC and CTR over a stream cut into chunks: what ``cipherspec encrypt/decrypt`` streams with.

The counter (CTR) and the chaining value (CBC) are carried from one chunk to the next, so any cut gives
the bytes of one whole-input call of cipherspec.modes; PKCS#7 padding is added or checked at the end.
Each chunk is transformed in place in the caller's buffer: a target with ``crypt_into`` (the C library,
the CUDA host entry) runs its own mode there without a copy; the others run cipherspec.modes and copy
the result back.

    m = ChunkedMode(cipher, rk, "cbc", "decrypt", iv, pad=True)
    pieces = m.update(buf, n)     # every chunk but the last: n a multiple of the block
    pieces = m.final(buf, n)      # the end of the input: n >= 0 bytes, buf has room for n + one block

``buf`` is any writable buffer (a bytearray, a numpy uint8 array); nothing here needs numpy, so the
command's C path starts without it.  ``pieces`` are what to write, in order: views of ``buf`` and small ``bytes`` (a decryptor that removes
padding holds the last block of each chunk back until it knows whether that block ends the stream).
Write them before reusing ``buf``.  Before/after, CBC encryption of 3 blocks cut after the first:

    update(buf=[P0], 16) -> [C0]   (iv := C0)      final(buf=[P1 P2], 32) -> [C1 C2 + one padding block]
"""

from __future__ import annotations

from .errors import UsageError
from .modeargs import check_iv, check_mode
from .padding import pad_into, unpadded_length

DIRECTIONS = ("encrypt", "decrypt")


class ChunkedMode:
    def __init__(self, cipher, rk, mode: str, direction: str, iv: bytes | None = None, pad: bool = False):
        check_mode(mode)
        if direction not in DIRECTIONS:
            raise UsageError(f"unknown direction '{direction}' (encrypt or decrypt)")
        if mode == "ecb" and iv is not None:
            raise UsageError("ECB takes no IV")
        if mode == "ctr" and pad:
            raise UsageError("CTR takes no padding (it encrypts any length as it is)")
        self.cipher, self.rk, self.mode, self.direction, self.pad = cipher, rk, mode, direction, pad
        self.block = cipher.block_bytes
        self.iv = None if mode == "ecb" else bytearray(check_iv(cipher, iv))
        self._into = getattr(cipher, "crypt_into", None)
        self._holds_last = pad and direction == "decrypt"
        self._held = b""  # the last block so far of a padded decryption, not yet written
        self.total = 0  # input bytes seen

    # ------------------------------------------------------------------------------ one chunk, in place
    def _crypt(self, buf, n: int) -> None:
        if n == 0:
            return
        b = self.block
        view = memoryview(buf).cast("B")
        chain = bytes(view[n - b : n]) if self.mode == "cbc" and self.direction == "decrypt" else None
        if self._into is not None:
            self._into(self.rk, self.mode, self.direction, buf, n, self.iv)  # CTR advances self.iv
        else:
            from . import modes  # the generic path (the interpreter, QEMU): numpy

            data = bytes(view[:n])
            if self.mode == "ctr":
                assert self.iv is not None  # every mode but ECB has one
                out, nxt = modes.ctr(self.cipher, self.rk, bytes(self.iv), data)
                self.iv[:] = nxt
            else:
                iv = None if self.iv is None else bytes(self.iv)
                out = modes.run_mode(self.cipher, self.rk, self.mode, self.direction, data, iv)
            view[:n] = out
        if self.mode == "cbc":  # the next chunk chains on this chunk's last ciphertext block
            assert self.iv is not None
            self.iv[:] = chain if chain is not None else view[n - b : n]

    def _length_error(self) -> UsageError:
        m, b = self.mode.upper(), self.block
        if self.direction == "decrypt":
            if self.total == 0:
                return UsageError(f"{m}: the input is empty; a padded ciphertext is at least one {b}-byte block")
            return UsageError(
                f"{m}: input is {self.total} bytes, not a multiple of the {b}-byte block "
                f"(an {m} ciphertext is whole blocks)"
            )
        return UsageError(
            f"{m}: input is {self.total} bytes, not a multiple of the {b}-byte block "
            "(without padding ECB and CBC take whole blocks: leave out --no-pad, or use CTR)"
        )

    # ------------------------------------------------------------------------------ the stream
    def update(self, buf, n: int) -> list:
        """A chunk that is not the last: n is a multiple of the block."""
        if n % self.block:
            raise ValueError(f"update takes whole blocks ({n} bytes); a partial block only comes in final")
        self.total += n
        self._crypt(buf, n)
        view = memoryview(buf).cast("B")
        if not self._holds_last or n == 0:
            return [view[:n]]
        pieces = [self._held, view[: n - self.block]] if self._held else [view[: n - self.block]]
        self._held = view[n - self.block : n].tobytes()
        return pieces

    def final(self, buf, n: int) -> list:
        """The last chunk (possibly empty); ``buf`` has room for n + one block (the padding)."""
        b = self.block
        self.total += n
        if self.mode != "ctr":
            if self.direction == "encrypt" and self.pad:
                n = pad_into(buf, n, b)
            elif n % b or (self._holds_last and self.total == 0):
                raise self._length_error()
        self._crypt(buf, n)
        view = memoryview(buf).cast("B")
        if not self._holds_last:
            return [view[:n]]
        if n == 0:  # the held block is the last one
            return [self._held[: unpadded_length(self._held)]]
        keep = unpadded_length(view[n - b : n])
        return ([self._held] if self._held else []) + [view[: n - b + keep]]
