"""NEON test data: batches of cases for one QEMU run.  Tool checks live in tools.py (require)."""
from __future__ import annotations

from hypothesis import strategies as st


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
