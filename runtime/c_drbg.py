"""The C library's own CTR_DRBG (generator/drbg) through ctypes, with the interface of cipherspec.drbg.CtrDrbg.

    d = make_cipher(reg, "lea128", target="c").make_drbg(use_df=True)
    d.instantiate(entropy, nonce); d.generate(64)          # bytes from lea128_drbg_generate

A reseed that prediction resistance or the interval demands takes entropy from ``entropy_source`` (the
C call reports CIPHERSPEC_ERR_RESEED_REQUIRED first, then is repeated with the entropy).
"""

from __future__ import annotations

import ctypes

from cipherspec.drbg_limits import (
    MAX_BITS_PER_REQUEST,
    MAX_RESEED_INTERVAL,
    BulkRequest,
    DrbgError,
    check_extra,
    check_request,
    check_reseed_interval,
    check_seed,
    security_bytes,
)

from .c_abi import ERR_DRBG_LIMIT, ERR_DRBG_STATE, ERR_NULL, ERR_RESEED_REQUIRED

_P, _S, _U64, _I = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64, ctypes.c_int
_MESSAGES = {
    ERR_NULL: "a NULL buffer reached the C DRBG",
    ERR_DRBG_LIMIT: "refused by the C DRBG: a length or the reseed interval is outside SP 800-90A's limits "
    "(request <= 2^19 bits; entropy >= the security strength, or exactly seedlen without the df; "
    "nonce >= half the strength with the df; personalization/additional input <= seedlen without it)",
    ERR_RESEED_REQUIRED: "reseed required (prediction resistance or reseed interval reached) but no entropy",
    ERR_DRBG_STATE: "the DRBG is not instantiated",
}


def _buf(data: bytes | None):
    return (ctypes.c_char_p(bytes(data)) if data else None), len(data or b"")


class CDrbg:
    def __init__(
        self,
        cipher,
        use_df: bool = True,
        reseed_interval: int = MAX_RESEED_INTERVAL,
        prediction_resistance: bool = False,
        entropy_source=None,
    ):
        check_reseed_interval(reseed_interval)
        self.cipher = cipher
        self.use_df, self.reseed_interval = use_df, reseed_interval
        self.prediction_resistance, self.entropy_source = prediction_resistance, entropy_source
        self.keylen, self.outlen = cipher.key_bytes, cipher.block_bytes
        self.seedlen = self.keylen + self.outlen
        self.security_bytes = security_bytes(self.keylen)
        lib, p = cipher.lib, cipher.name
        self._fn = {}
        for short, args in {
            "instantiate": [_P, _I, _I, _U64, _P, _S, _P, _S, _P, _S],
            "reseed": [_P, _P, _S, _P, _S],
            "generate": [_P, _P, _S, _P, _S, _P, _S],
            "plan": [_P, _S, _S, _P, _P],
        }.items():
            f = getattr(lib, f"{p}_drbg_{short}")
            f.argtypes, f.restype = args, _I
            self._fn[short] = f
        size = getattr(lib, f"{p}_drbg_size")
        size.argtypes, size.restype = [], _S
        self._state = ctypes.create_string_buffer(size())
        uninst = getattr(lib, f"{p}_drbg_uninstantiate")
        uninst.argtypes, uninst.restype = [_P], None
        self._uninstantiate = uninst

    def __del__(self):  # zeroize the key material in our buffer
        try:
            self._uninstantiate(self._state)
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    @staticmethod
    def _check(rc: int) -> int:
        if rc < 0:
            raise DrbgError(_MESSAGES.get(rc, f"the C DRBG returned {rc}"))
        return rc

    def instantiate(self, entropy: bytes, nonce: bytes = b"", personalization: bytes = b"") -> None:
        check_seed(self.keylen, self.outlen, self.use_df, len(entropy), len(nonce), len(personalization))
        e, el = _buf(entropy)
        n, nl = _buf(nonce)
        s, sl = _buf(personalization)
        self._check(
            self._fn["instantiate"](
                self._state,
                int(self.use_df),
                int(self.prediction_resistance),
                self.reseed_interval,
                e,
                el,
                n,
                nl,
                s,
                sl,
            )
        )

    def reseed(self, entropy: bytes, additional_input: bytes = b"") -> None:
        check_seed(self.keylen, self.outlen, self.use_df, len(entropy), None, len(additional_input), "additional input")
        e, el = _buf(entropy)
        a, al = _buf(additional_input)
        self._check(self._fn["reseed"](self._state, e, el, a, al))

    def generate(
        self,
        nbytes: int,
        additional_input: bytes = b"",
        entropy: bytes | None = None,
        prediction_resistance: bool | None = None,
    ) -> bytes:
        if prediction_resistance and not self.prediction_resistance:
            raise DrbgError("prediction resistance was not requested at instantiation")
        check_request(nbytes)
        check_extra(self.keylen, self.outlen, self.use_df, len(additional_input))
        out = ctypes.create_string_buffer(max(nbytes, 1))
        a, al = _buf(additional_input)
        e, el = _buf(entropy)
        rc = self._fn["generate"](self._state, out, nbytes, a, al, e, el)
        if rc == ERR_RESEED_REQUIRED and entropy is None and self.entropy_source is not None:
            e, el = _buf(self.entropy_source(self.security_bytes if self.use_df else self.seedlen))
            rc = self._fn["generate"](self._state, out, nbytes, a, al, e, el)
        self._check(rc)
        return out.raw[:nbytes]

    def plan_bulk(self, nbytes: int, request_bytes: int = MAX_BITS_PER_REQUEST // 8) -> list[BulkRequest]:
        """The library's drbg_plan: each request's (Key, V) without its output (reseeding where due); the
        whole requests in one C call per run between reseeds, then the partial last one."""
        plan: list[BulkRequest] = []
        tail = nbytes % request_bytes
        for size, count in ((request_bytes, nbytes // request_bytes), (tail, int(tail > 0))):
            while count:
                keys = ctypes.create_string_buffer(self.keylen * count)
                vs = ctypes.create_string_buffer(self.outlen * count)
                done = self._check(self._fn["plan"](self._state, count, size, keys, vs))
                kr, vr, nb, kl, vl = keys.raw, vs.raw, -(-size // self.outlen), self.keylen, self.outlen
                plan += [
                    BulkRequest(kr[i * kl : (i + 1) * kl], vr[i * vl : (i + 1) * vl], nb, size) for i in range(done)
                ]
                count -= done
                if count and done == 0:  # a reseed is due first
                    if self.entropy_source is None:
                        self._check(ERR_RESEED_REQUIRED)
                    self.reseed(self.entropy_source(self.security_bytes if self.use_df else self.seedlen))
        return plan

    def generate_bulk(self, nbytes: int, request_bytes: int = MAX_BITS_PER_REQUEST // 8) -> bytes:
        out = []
        while nbytes > 0:
            n = min(nbytes, request_bytes)
            out.append(self.generate(n))
            nbytes -= n
        return b"".join(out)
