"""The checks of each mode against the interpreter, one class per mode; an AEAD mode is one more class.

A check turns a case into requests (an operation of the target's library and its input) and says, for
the target's answer, the first block that is wrong and which block-function call produced it (the
function and its input block: what the traced build replays).

    m = mode_checks()["cbc"]
    for r in m.requests(ref, rk, case):          # Request(op="cbc_encrypt", direction, data, iv, expected)
        bad = m.first_bad(ref, rk, r, got)       # None, or the index of the first wrong block
        m.block_call(ref, rk, r, got, bad)       # ("encrypt", the 16 bytes the block function was given)

ECB and CBC run on the whole-block prefix of a case's data; CTR on all of it (a partial last block).  CTR
is one operation both ways: "decrypt" feeds it the interpreter's ciphertext and wants the plaintext back.
CBC encryption is checked block by block against the target's own chain: block i must be E(P_i ^ C_(i-1)) with
C_(i-1) the target's previous block (the IV for the first), all in one batch of the interpreter's encryption, so
the sequential reference encryption never runs and nothing assumes that the spec's decrypt inverts its encrypt
(the conformance specs' need not: tests/conformance/logic.cs).  The first block that breaks the recurrence is the
first wrong one, every block before it following from the IV.  An AEAD mode: a ModeCheck whose requests name the library's
operation (``gcm_encrypt``) and carry its other inputs in ``params`` (aad, tag), which the targets'
``run_mode`` receives as keyword arguments; targets.py says which targets run it (the others report it
skipped).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cipherspec import modes as ref_modes

from .cases import Case


@dataclass(frozen=True)
class Request:
    op: str  # the library's entry point: ecb_encrypt, ecb_decrypt, cbc_encrypt, cbc_decrypt, ctr
    direction: str
    key: bytes
    iv: bytes | None
    data: bytes
    expected: bytes | None  # None: first_bad decides another way (CBC encryption)
    case: Case
    params: tuple[tuple[str, bytes], ...] = ()  # a mode's other inputs (an AEAD mode's aad, tag)


def _first_block(a: bytes, b: bytes, block: int) -> int | None:
    if a == b:
        return None
    n = min(len(a), len(b))
    diff = np.flatnonzero(np.frombuffer(a[:n], np.uint8) != np.frombuffer(b[:n], np.uint8))
    return int(diff[0]) // block if diff.size else n // block


def _whole(case: Case, block: int) -> bytes:
    return case.data[: len(case.data) - len(case.data) % block]


class ModeCheck:
    name = ""
    ops: tuple[str, ...] = ()
    counter = False  # whether the counter-carry cases apply

    def applies(self, case: Case) -> bool:
        return self.counter or not case.counter

    def requests(self, ref, rk, case: Case) -> list[Request]:
        raise NotImplementedError

    def first_bad(self, ref, rk, r: Request, got: bytes) -> int | None:
        return _first_block(got, r.expected or b"", ref.block_bytes)

    def block_call(self, ref, rk, r: Request, got: bytes, i: int) -> tuple[str, bytes]:
        raise NotImplementedError


class Ecb(ModeCheck):
    name, ops = "ecb", ("ecb_encrypt", "ecb_decrypt")

    def requests(self, ref, rk, case):
        data = _whole(case, ref.block_bytes)
        return [
            Request("ecb_encrypt", "encrypt", case.key, None, data, ref_modes.ecb_encrypt(ref, rk, data), case),
            Request("ecb_decrypt", "decrypt", case.key, None, data, ref_modes.ecb_decrypt(ref, rk, data), case),
        ]

    def block_call(self, ref, rk, r, got, i):
        b = ref.block_bytes
        return r.direction, r.data[i * b : (i + 1) * b]


class Cbc(ModeCheck):
    name, ops = "cbc", ("cbc_encrypt", "cbc_decrypt")

    def __init__(self) -> None:
        self.verified: dict[tuple[bytes, bytes | None, bytes], bytes] = {}  # encryptions already proven right

    def requests(self, ref, rk, case):
        data = _whole(case, ref.block_bytes)
        return [
            Request("cbc_encrypt", "encrypt", case.key, case.iv, data, None, case),
            Request(
                "cbc_decrypt", "decrypt", case.key, case.iv, data, ref_modes.cbc_decrypt(ref, rk, case.iv, data), case
            ),
        ]

    def first_bad(self, ref, rk, r, got):
        if r.op == "cbc_decrypt":
            return super().first_bad(ref, rk, r, got)
        if len(got) != len(r.data):
            return min(len(got), len(r.data)) // ref.block_bytes
        memo = (r.key, r.iv, r.data)
        if self.verified.get(memo) == got:
            return None
        b = ref.block_bytes
        chain = bytes(r.iv or b"") + got[: len(got) - b] if got else b""  # C_(i-1) for each block i: the IV first
        inputs = bytes(x ^ y for x, y in zip(r.data, chain))
        bad = _first_block(got, ref_modes.ecb_encrypt(ref, rk, inputs), b)
        if bad is None:
            self.verified[memo] = got
        return bad

    def block_call(self, ref, rk, r, got, i):
        b = ref.block_bytes
        block = r.data[i * b : (i + 1) * b]
        if r.op == "cbc_decrypt":
            return "decrypt", block
        prev = r.iv if i == 0 else got[(i - 1) * b : i * b]  # blocks before i are right
        return "encrypt", bytes(x ^ y for x, y in zip(block, prev or b""))


class Ctr(ModeCheck):
    name, ops, counter = "ctr", ("ctr",), True

    def requests(self, ref, rk, case):
        ct = ref_modes.ctr(ref, rk, case.iv, case.data)[0]
        return [
            Request("ctr", "encrypt", case.key, case.iv, case.data, ct, case),
            Request("ctr", "decrypt", case.key, case.iv, ct, case.data, case),
        ]

    def block_call(self, ref, rk, r, got, i):
        return "encrypt", ref_modes.counter_blocks(r.iv or b"", i + 1)[i].tobytes()


def mode_checks() -> dict[str, ModeCheck]:
    """A fresh check of every mode (one per session: the CBC check remembers what it verified)."""
    return {m.name: m for m in (Ecb(), Cbc(), Ctr())}


MODES = tuple(mode_checks())
