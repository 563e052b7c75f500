"""The interpreter: evaluates an IR function over many lanes at once.  It is the oracle.

Every value is a numpy array of unsigned words of the op's width (a lane per
block); an argument given as a plain int is one value shared by every lane.
Semantics are the IR's, exactly: arithmetic mod 2^width, rotations by
0 < k < width, table lookups, GF(2^8) constant multiplication.

    run(fn, {"X[0]": np.array([1, 2], np.uint32), ...}, tables) -> {"X[0]": array(...), ...}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .gf import gf_table
from .ir import Function, Op, Table

DTYPES = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _rotl(x: np.ndarray, k: int, w: int) -> np.ndarray:
    t = x.dtype.type
    return (x << t(k)) | (x >> t(w - k))


def _table_array(table: Table) -> np.ndarray:
    return np.array(table.values, dtype=DTYPES[table.out_width])


class Interpreter:
    """Evaluates functions of one module; caches numpy tables (no global state)."""

    def __init__(self, tables: dict[str, Table]):
        self.tables = tables
        self._arrays: dict[str, np.ndarray] = {}
        self._gf: dict[tuple[int, int], np.ndarray] = {}

    def table(self, name: str) -> np.ndarray:
        arr = self._arrays.get(name)
        if arr is None:
            arr = self._arrays[name] = _table_array(self.tables[name])
        return arr

    def gf(self, c: int, poly: int) -> np.ndarray:
        arr = self._gf.get((c, poly))
        if arr is None:
            arr = self._gf[(c, poly)] = np.array(gf_table(c, poly), dtype=np.uint8)
        return arr

    def run(self, fn: Function, inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
        vals = self.trace(fn, inputs)
        return {name: vals[v] for name, v in fn.outputs}

    def trace(self, fn: Function, inputs: Mapping[str, object]) -> list[np.ndarray]:
        """Every value of ``fn``, by value id (what a traced build of a kernel is compared with)."""
        vals: list[np.ndarray] = []
        for op in fn.ops:
            vals.append(self.eval_op(op, vals, inputs))
        return vals

    def eval_op(
        self, op: Op, vals: Sequence[np.ndarray] | Mapping[int, np.ndarray], inputs: Mapping[str, object]
    ) -> np.ndarray:
        """``vals``: earlier values by id (all of them, or only those ``op`` reads)."""
        code, w = op.code, op.width
        dt = DTYPES[w]
        if code == "input":
            name = op.imm[0]
            if name not in inputs:
                raise KeyError(f"missing input {name}")
            return np.atleast_1d(np.asarray(inputs[name], dtype=dt))
        if code == "const":
            return np.array([op.imm[0]], dtype=dt)
        a = vals[op.args[0]]
        if code == "xor":
            return a ^ vals[op.args[1]]
        if code == "and":
            return a & vals[op.args[1]]
        if code == "or":
            return a | vals[op.args[1]]
        if code == "add":
            return a + vals[op.args[1]]
        if code == "sub":
            return a - vals[op.args[1]]
        if code == "not":
            return ~a
        if code == "rotl":
            return _rotl(a, op.imm[0], w)
        if code == "shl":
            return a << dt(op.imm[0])
        if code == "shr":
            return a >> dt(op.imm[0])
        if code == "lut":
            return self.table(op.imm[0])[a]
        if code == "gmul":
            return self.gf(op.imm[0], op.imm[1])[a]
        if code in ("zext", "trunc"):
            return a.astype(dt)  # numpy narrowing keeps the low bits: trunc is mod 2^w
        raise ValueError(f"interpreter: unknown opcode {code}")


def run(fn: Function, inputs: Mapping[str, object], tables: dict[str, Table]) -> dict[str, np.ndarray]:
    """Convenience: evaluate one function."""
    return Interpreter(tables).run(fn, inputs)
