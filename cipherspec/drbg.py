"""CTR_DRBG (NIST SP 800-90A Rev. 1, §10.2; KISA TTAK.KO-12.0189) over ANY block cipher of any target.

The DRBG needs only the target's block function (``expand_key``, ``encrypt_blocks``), so the same
code runs over the interpreter, the C library or the GPU.  ctr_len = the block length (the counter
is the whole V, big-endian, as in cipherspec.modes), outlen = block bits, seedlen = keylen + outlen.

    d = CtrDrbg(cipher, use_df=True)
    d.instantiate(entropy, nonce, personalization)
    out = d.generate(64, additional_input=b"")        # bytes; ≤ 2^19 bits per request
    d.reseed(entropy2, additional_input=b"")

Limits (SP 800-90A Table 3, enforced before any output): max_number_of_bits_per_request 2^19,
reseed_interval ≤ 2^48, entropy ≥ security strength (the key length) and ≤ 2^35 bits, nonce ≥ half the
security strength when the df is used, personalization and additional input ≤ 2^35 bits; without the
df, entropy is exactly seedlen and personalization/additional input at most seedlen.  A request past
the reseed interval reseeds from the entropy source if one is given, otherwise fails.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .drbg_limits import (
    MAX_BITS_PER_REQUEST,
    MAX_INPUT_BITS,
    MAX_RESEED_INTERVAL,
    BulkRequest,
    DrbgError,
    check_extra,
    check_request,
    check_reseed_interval,
    check_seed,
    security_bytes,
)
from .modes import counter_blocks, ctr_next_iv

__all__ = [
    "MAX_BITS_PER_REQUEST",
    "MAX_INPUT_BITS",
    "MAX_RESEED_INTERVAL",
    "BulkRequest",
    "CtrDrbg",
    "DrbgError",
]


class CtrDrbg:
    def __init__(
        self,
        cipher,
        use_df: bool = True,
        reseed_interval: int = MAX_RESEED_INTERVAL,
        prediction_resistance: bool = False,
        entropy_source: Callable[[int], bytes] | None = None,
    ):
        check_reseed_interval(reseed_interval)
        self.cipher = cipher
        self.keylen = cipher.key_bytes
        self.outlen = cipher.block_bytes
        self.seedlen = self.keylen + self.outlen
        self.use_df = use_df
        self.reseed_interval = reseed_interval
        self.prediction_resistance = prediction_resistance
        self.entropy_source = entropy_source
        self.security_bytes = security_bytes(self.keylen)
        self.key: bytes | None = None
        self.v: bytes | None = None
        self.reseed_counter = 0

    # ---------------------------------------------------------------- primitives
    def _encrypt(self, key: bytes, blocks: np.ndarray) -> bytes:
        return self.cipher.encrypt_blocks(self.cipher.expand_key(key), blocks).tobytes()

    def _keystream(self, key: bytes, v: bytes, nblocks: int) -> tuple[bytes, bytes]:
        """E(K, V+1) || E(K, V+2) || ... ; returns (stream, new V)."""
        start = ctr_next_iv(v, 1)
        return self._encrypt(key, counter_blocks(start, nblocks)), ctr_next_iv(v, nblocks)

    def _update(self, provided: bytes, key: bytes, v: bytes) -> tuple[bytes, bytes]:
        n = -(-self.seedlen // self.outlen)
        temp, _ = self._keystream(key, v, n)
        temp = bytes(a ^ b for a, b in zip(temp[: self.seedlen], provided))
        return temp[: self.keylen], temp[self.keylen :]

    def _bcc(self, key: bytes, data: bytes) -> bytes:
        rk = self.cipher.expand_key(key)
        chain = np.zeros(self.outlen, np.uint8)
        blocks = np.frombuffer(data, np.uint8).reshape(-1, self.outlen)
        for blk in blocks:  # CBC-MAC: sequential by definition
            chain = self.cipher.encrypt_blocks(rk, (chain ^ blk)[None, :])[0]
        return chain.tobytes()

    def block_cipher_df(self, data: bytes, nbytes: int) -> bytes:
        s = len(data).to_bytes(4, "big") + nbytes.to_bytes(4, "big") + data + b"\x80"
        s += bytes(-len(s) % self.outlen)
        k = bytes(range(self.keylen))
        temp = b""
        i = 0
        while len(temp) < self.keylen + self.outlen:
            iv = i.to_bytes(4, "big") + bytes(self.outlen - 4)
            temp += self._bcc(k, iv + s)
            i += 1
        k, x = temp[: self.keylen], temp[self.keylen : self.keylen + self.outlen]
        out = b""
        rk = self.cipher.expand_key(k)
        while len(out) < nbytes:
            x = self.cipher.encrypt_blocks(rk, np.frombuffer(x, np.uint8)[None, :]).tobytes()
            out += x
        return out[:nbytes]

    # ---------------------------------------------------------------- checks
    def _check_len(self, what: str, data: bytes, lo: int = 0, hi: int = MAX_INPUT_BITS // 8):
        if not lo <= len(data) <= hi:
            raise DrbgError(f"{what} must be {lo}..{hi} bytes, got {len(data)}")

    def _seed_material(self, entropy: bytes, extra: bytes, what: str) -> bytes:
        check_seed(self.keylen, self.outlen, self.use_df, len(entropy), None, len(extra), what)
        if self.use_df:
            return self.block_cipher_df(entropy + extra, self.seedlen)
        padded = extra + bytes(self.seedlen - len(extra))
        return bytes(a ^ b for a, b in zip(entropy, padded))

    # ---------------------------------------------------------------- the DRBG functions
    def instantiate(self, entropy: bytes, nonce: bytes = b"", personalization: bytes = b"") -> None:
        check_seed(self.keylen, self.outlen, self.use_df, len(entropy), len(nonce), len(personalization))
        if self.use_df:
            material = self._seed_material(entropy + nonce, personalization, "personalization string")
        else:
            material = self._seed_material(entropy, personalization, "personalization string")
        self.key, self.v = self._update(material, bytes(self.keylen), bytes(self.outlen))
        self.reseed_counter = 1

    def reseed(self, entropy: bytes, additional_input: bytes = b"") -> None:
        self._require_instantiated()
        assert self.key is not None and self.v is not None  # narrows for the type checker
        material = self._seed_material(entropy, additional_input, "additional input")
        self.key, self.v = self._update(material, self.key, self.v)
        self.reseed_counter = 1

    def _require_instantiated(self):
        if self.key is None:
            raise DrbgError("the DRBG is not instantiated")

    def generate(
        self,
        nbytes: int,
        additional_input: bytes = b"",
        entropy: bytes | None = None,
        prediction_resistance: bool | None = None,
    ) -> bytes:
        """One request.  ``entropy`` feeds a reseed that prediction resistance or the interval demands."""
        self._require_instantiated()
        assert self.key is not None and self.v is not None  # narrows for the type checker
        check_request(nbytes)
        pr = self.prediction_resistance if prediction_resistance is None else prediction_resistance
        if pr and not self.prediction_resistance:
            raise DrbgError("prediction resistance was not requested at instantiation")
        if pr or self.reseed_counter > self.reseed_interval:
            if entropy is None and self.entropy_source is not None:
                entropy = self.entropy_source(self.security_bytes if self.use_df else self.seedlen)
            if entropy is None:
                raise DrbgError("reseed required (prediction resistance or reseed interval reached) but no entropy")
            self.reseed(entropy, additional_input)
            additional_input = b""
        if additional_input:
            check_extra(self.keylen, self.outlen, self.use_df, len(additional_input))
            if self.use_df:
                additional = self.block_cipher_df(additional_input, self.seedlen)
            else:
                additional = additional_input + bytes(self.seedlen - len(additional_input))
            self.key, self.v = self._update(additional, self.key, self.v)
        else:
            additional = bytes(self.seedlen)
        stream, self.v = self._keystream(self.key, self.v, -(-nbytes // self.outlen))
        self.key, self.v = self._update(additional, self.key, self.v)
        self.reseed_counter += 1
        return stream[:nbytes]

    def plan_bulk(self, nbytes: int, request_bytes: int = MAX_BITS_PER_REQUEST // 8) -> list["BulkRequest"]:
        """Advance the DRBG through consecutive requests WITHOUT producing their output.

        Each request's output is E(K, V+1..V+n) for the (K, V) it starts from; the next (K, V) comes from
        Update(0, K, V+n), which needs only ceil(seedlen/outlen) more blocks.  So the chain costs 2-3 block
        encryptions per request here, and all the output can then be made in one pass (one GPU launch)."""
        if not 1 <= request_bytes * 8 <= MAX_BITS_PER_REQUEST:
            raise DrbgError(f"a request is at most 2^19 bits ({MAX_BITS_PER_REQUEST // 8} bytes), got {request_bytes}")
        self._require_instantiated()
        assert self.key is not None and self.v is not None  # narrows for the type checker
        plan: list[BulkRequest] = []
        while nbytes > 0:
            n = min(nbytes, request_bytes)
            if self.prediction_resistance or self.reseed_counter > self.reseed_interval:
                if self.entropy_source is None:
                    raise DrbgError(
                        "reseed required (prediction resistance or reseed interval reached) but no entropy source"
                    )
                self.reseed(self.entropy_source(self.security_bytes if self.use_df else self.seedlen))
            nblocks = -(-n // self.outlen)
            plan.append(BulkRequest(self.key, self.v, nblocks, n))
            self.key, self.v = self._update(bytes(self.seedlen), self.key, ctr_next_iv(self.v, nblocks))
            self.reseed_counter += 1
            nbytes -= n
        return plan

    def generate_bulk(self, nbytes: int, request_bytes: int = MAX_BITS_PER_REQUEST // 8) -> bytes:
        """Many consecutive requests (no additional input): the chain on the host, the output in one pass.

        A target with ``keystream_multi(plan)`` (the GPU) makes every request's blocks in one launch; others
        run the requests one by one.  Either way the bytes equal calling generate() repeatedly."""
        plan = self.plan_bulk(nbytes, request_bytes)
        if hasattr(self.cipher, "keystream_multi"):
            return self.cipher.keystream_multi(plan)
        return b"".join(self._keystream(r.key, r.v, r.nblocks)[0][: r.nbytes] for r in plan)
