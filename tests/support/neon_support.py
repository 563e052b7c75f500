"""NEON test data: batches of cases for one QEMU run.  Tool checks live in tools.py (require)."""

from __future__ import annotations

from hypothesis import strategies as st

from cipherspec import modes


def _ivs(b: int) -> list[bytes]:
    top = (1 << (8 * b)) - 1
    ivs = [bytes(b), (top - 2).to_bytes(b, "big")]  # wraps mod 2^(8b) inside the first group
    if b == 16:
        ivs.append(((1 << 64) - 3).to_bytes(16, "big"))  # carry from the low 64 bits into the high ones
    return ivs


@st.composite
def batches(draw, c):
    """Six cases for one QEMU run: random keys, data sizes around the group size, IVs near counter wraps."""
    g, b = c.emitted.group_blocks, c.block_bytes
    sizes = st.sampled_from([0, 1, g - 1, g, g + 1, 2 * g + 3])
    cases = []
    for _ in range(6):
        key = draw(st.binary(min_size=c.key_bytes, max_size=c.key_bytes))
        n = draw(sizes)
        data = draw(st.binary(min_size=n * b, max_size=n * b))
        iv = draw(st.one_of(st.sampled_from(_ivs(b)), st.binary(min_size=b, max_size=b)))
        tail = draw(st.integers(0, b - 1))  # CTR takes a partial last block
        cases.append((key, data, iv, data[: max(0, len(data) - tail)]))
    return cases


def check_modes(c, ref, cases, schedule: str) -> None:
    """ECB both ways, CBC decryption and (8/16-byte blocks) CTR for each (key, blocks, iv, stream) of
    ``cases`` (a ``batches`` draw), all in one QEMU run, vs the interpreter ``ref``."""
    requests, expected = [], []
    for key, blocks, iv, stream in cases:
        rk, rref = c.expand_key(key), ref.expand_key(key)
        requests += [
            ("ecb_encrypt", rk, blocks, None),
            ("ecb_decrypt", rk, blocks, None),
            ("cbc_decrypt", rk, blocks, iv),
        ]
        expected += [
            modes.ecb_encrypt(ref, rref, blocks),
            modes.ecb_decrypt(ref, rref, blocks),
            modes.cbc_decrypt(ref, rref, iv, blocks),
        ]
        if "ctr" in c.emitted.modes:
            requests.append(("ctr", rk, stream, iv))
            expected.append(modes.ctr(ref, rref, iv, stream)[0])
    got = c.run_batch(requests)
    for (op, _, d, iv), g, e in zip(requests, got, expected):
        assert g == e, f"{schedule} {op} of {len(d)} bytes (iv {iv.hex() if iv else None}) differs"


_DISPATCHED: dict = {}


def dispatched(name: str):
    """(the built NEON library of a shipped cipher: every variant, the dispatcher and the modes; the
    interpreter), made once per session and shared by the tests that run it (generating AES-128's three
    variants takes ~10 s).  Callers set ``qemu_cpu`` / ``qemu_env`` before each use."""
    if name not in _DISPATCHED:
        from shipped import shipped_registry

        from driver.targets import make_cipher

        reg = shipped_registry()
        _DISPATCHED[name] = (make_cipher(reg, name, None, "neon", f"{name}_neon"), make_cipher(reg, name, None, "ref"))
    return _DISPATCHED[name]
