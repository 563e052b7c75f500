"""The constant pool of one kernel file: S-box tables (64-byte aligned) then 16-byte vectors.

    p = Pool({"S": table});  p.table_offset("S") -> 0;  p.add_vector(b"\\x01" * 16) -> 256
    p.directives()  -> [".byte 0x63,0x7c,...", ...]   (rendered under the kernel's pool label)
Offsets are stable: tables first, in the order given, then vectors in order of first use (deduplicated).
"""
from __future__ import annotations


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
        return [".byte " + ",".join(f"{b:#04x}" for b in blob[i:i + 16]) for i in range(0, len(blob), 16)]
