"""The constant pool of one kernel file: S-box tables (64-byte aligned) then 16-byte vectors.

    p = Pool({"S": table});  p.table_offset("S") -> 0;  p.add_vector(b"\\x01" * 16) -> 256
    p.directives()  -> [".byte 0x63,0x7c,...", ...]   (rendered under the kernel's pool label)
Offsets are stable: tables first, in the order given, then vectors in order of first use (deduplicated).
A table with entries wider than a byte is stored as byte planes (``lut_tables``): TBL returns bytes.
"""

from __future__ import annotations

from cipherspec.ir import Table


def lut_tables(name: str, t: Table) -> dict[str, bytes]:
    """The 256-byte tables a lookup into t reads: t itself, or plane j (byte j of every entry, little-endian
    in the lane) of a wider table, named NAME.b<j>.

        lut_tables("S", u8 -> u8 table)   -> {"S": 256 bytes}
        lut_tables("T", u8 -> u32 table)  -> {"T.b0": ..., "T.b1": ..., "T.b2": ..., "T.b3": ...}
    """
    if t.out_width == 8:
        return {name: bytes(t.values)}
    return {f"{name}.b{j}": bytes((v >> 8 * j) & 0xFF for v in t.values) for j in range(t.out_width // 8)}


class Pool:
    def __init__(self, tables: dict[str, bytes]):
        self._tables = dict(tables)
        self._table_off: dict[str, int] = {}
        off = 0
        for name, data in self._tables.items():
            self._table_off[name] = off
            off += len(data)
        self._vec_base = off
        self._vectors: list[bytes] = []

    def table_offset(self, name: str) -> int:
        return self._table_off[name]

    def add_vector(self, data: bytes) -> int:
        assert len(data) == 16
        if data not in self._vectors:
            self._vectors.append(data)
        return self._vec_base + 16 * self._vectors.index(data)

    def size(self) -> int:
        return self._vec_base + 16 * len(self._vectors)

    def directives(self) -> list[str]:
        blob = b"".join(self._tables.values()) + b"".join(self._vectors)
        return [".byte " + ",".join(f"{b:#04x}" for b in blob[i : i + 16]) for i in range(0, len(blob), 16)]
