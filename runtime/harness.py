"""The C harnesses shipped with the runtime, and what runtime/c_harness.c prints.

``c_harness.c`` drives one generated library (any architecture): stdin is the key, the IV and the data;
stdout is ECB encryption and decryption, CBC encryption and decryption (of the whole-block prefix), CTR
(of all of it) and the IV after it; it also checks in-place calls and error codes, and exits non-zero on
any mismatch.  ``ct_harness.c`` runs set_key and every mode under valgrind memcheck with the key and the
plaintext marked undefined.  generator/c/harness.py links either with a library.

    harness_source("c_harness.c")                   -> its C text
    p = HarnessProgram(run, block_bytes=16)         # run(stdin bytes, args) -> stdout bytes (native or QEMU)
    p.outputs(key, iv, data) -> {"ecb_encrypt": ..., "ecb_decrypt": ..., "cbc_encrypt": ..., "cbc_decrypt": ...,
                                 "ctr": ..., "ctr_iv": ...}
    p.prefetch([(key, iv, data), ...])              # many inputs in ONE run (-batch); outputs() then answers
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
HARNESSES = ("c_harness.c", "ct_harness.c")
WHOLE_BLOCK_OPS = ("ecb_encrypt", "ecb_decrypt", "cbc_encrypt", "cbc_decrypt")


def harness_source(name: str) -> str:
    if name not in HARNESSES:
        raise ValueError(f"no harness {name!r} (harnesses: {', '.join(HARNESSES)})")
    return (HERE / name).read_text()


class HarnessProgram:
    """A built c_harness program; ``run(stdin, args)`` runs it and returns its stdout (raising on a failure)."""

    def __init__(self, run: Callable[[bytes, list[str]], bytes], block_bytes: int):
        self.run, self.block_bytes = run, block_bytes
        self._memo: dict[tuple[bytes, bytes, bytes], dict[str, bytes]] = {}

    def _size(self, data: bytes) -> int:
        return 4 * (len(data) - len(data) % self.block_bytes) + len(data) + self.block_bytes

    def _split(self, data: bytes, out: bytes) -> dict[str, bytes]:
        whole = len(data) - len(data) % self.block_bytes
        parts = {op: out[i * whole : (i + 1) * whole] for i, op in enumerate(WHOLE_BLOCK_OPS)}
        parts["ctr"] = out[4 * whole : 4 * whole + len(data)]
        parts["ctr_iv"] = out[4 * whole + len(data) :]
        return parts

    def prefetch(self, inputs: list[tuple[bytes, bytes, bytes]]) -> None:
        """Runs every (key, IV, data) not yet answered, all in one process."""
        todo = list(dict.fromkeys((bytes(k), bytes(i), bytes(d)) for k, i, d in inputs if (k, i, d) not in self._memo))
        if not todo:
            return
        out = self.run(
            b"".join(struct.pack("<I", len(k) + len(i) + len(d)) + k + i + d for k, i, d in todo), ["-batch"]
        )
        want = sum(self._size(d) for _, _, d in todo)
        if len(out) != want:
            raise RuntimeError(f"the harness printed {len(out)} bytes, expected {want}")
        pos = 0
        for k, i, d in todo:
            self._memo[(k, i, d)] = self._split(d, out[pos : pos + self._size(d)])
            pos += self._size(d)

    def outputs(self, key: bytes, iv: bytes, data: bytes) -> dict[str, bytes]:
        """Every mode's output for one (key, IV, data); remembered, so the modes of one input run once."""
        self.prefetch([(key, iv, data)])
        return self._memo[(bytes(key), bytes(iv), bytes(data))]
