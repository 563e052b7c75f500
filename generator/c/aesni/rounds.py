"""Recognising AES rounds in the IR: a function that is AESENC/AESDEC rounds, found by linear algebra, not by name.

The IR function is cut at its S-box layers (the lookups with 1, 2, ... lookups before them on the longest
path).  Every byte between two layers is an affine form over GF(2) of the previous layer's outputs and
the key bytes (affine.py).  The function is an AES-NI program when

    - every layer is 16 lookups into the AES S-box S (then AESENC rounds) or into S⁻¹ (AESDEC rounds);
    - layer 1 reads the 16 state bytes (ShiftRows- or InvShiftRows-permuted, as the instruction does)
      XOR a 16-byte key, layer k+1 reads MixColumns (InvMixColumns) of layer k's outputs, as the
      instruction's lanes order them, XOR a key, and the outputs are layer R's outputs XOR a key;
    - each key is 16 consecutive round-key bytes of one key array, or InvMixColumns of them (AESDEC's
      equivalent inverse cipher: the key goes through AESIMC), or absent.

    recognize(decrypt of aes128) -> Program(steps=[xor rk[160..175], aesdec imc(rk[144..159]), ...,
                                                   aesdeclast rk[0..15]])
    recognize(encrypt of aria128) -> "layer 1 mixes S-boxes SB1, SB2, SB3, SB4 (AES rounds need S or S⁻¹ alone)"

A failure is a reason (a string); the aesni schedule then lowers the function byte-sliced (bytesliced.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from cipherspec.ir import Function, Table
from generator.common.affine import aes_sbox

from .affine import IDENTITY, Form, matrix_of

POLY = 0x11B
SR = tuple((i + 4 * (i % 4)) % 16 for i in range(16))  # ShiftRows: lane i <- byte SR[i] (column-major state)
ISR = tuple((i - 4 * (i % 4)) % 16 for i in range(16))  # InvShiftRows
MIX = {"enc": (2, 3, 1, 1), "dec": (14, 11, 13, 9)}  # first row of the circulant (Inv)MixColumns matrix
NONLINEAR = ("add", "sub")


@dataclass(frozen=True)
class Key:
    """16 round-key bytes ks->member[base .. base+15] in lane order; ``imc``: through AESIMC first."""

    member: str
    base: int
    imc: bool


@dataclass(frozen=True)
class Step:
    instr: str  # "xor", "aesenc", "aesenclast", "aesdec", "aesdeclast"
    key: Key | None  # None: an all-zero key
    origin: str


@dataclass(frozen=True)
class Program:
    family: str  # "enc" or "dec"
    steps: tuple[Step, ...]

    def describe(self) -> str:
        last = self.steps[-1].instr
        mid = [s for s in self.steps if s.instr in ("aesenc", "aesdec")]
        head = "AddRoundKey, " if self.steps[0].instr == "xor" else ""
        return f"{head}{len(mid)} x {mid[0].instr.upper() if mid else '-'}, {last.upper()}"


@cache
def _mix_row(family: str, m: int) -> dict[int, tuple[int, ...]]:
    """Lane -> 8x8 matrix of byte m of (Inv)MixColumns over 16 lanes (column-major: byte 4c + r)."""
    c, r = divmod(m, 4)
    coef = MIX[family]
    return {4 * c + q: matrix_of(coef[(q - r) % 4], POLY) for q in range(4)}


class _Fail(Exception):
    pass


def recognize(fn: Function, tables: dict[str, Table], slots: dict[str, tuple[str, int]]) -> Program | str:
    """The AES-NI program computing ``fn``, or why there is none.  ``slots``: key input -> (member, index)."""
    try:
        return _recognize(fn, tables, slots)
    except _Fail as e:
        return str(e)


def _recognize(fn: Function, tables: dict[str, Table], slots: dict) -> Program:
    s, si = aes_sbox()
    ops = fn.ops
    states = [i for i, op in enumerate(ops) if op.code == "input" and op.imm[0] not in slots]
    if len(states) != 16 or len(fn.outputs) != 16 or any(op.width != 8 for op in ops):
        raise _Fail("AES rounds need a state of 16 bytes")
    level = [0] * len(ops)
    for i, op in enumerate(ops):
        lv = max((level[a] for a in op.args), default=0)
        level[i] = lv + 1 if op.code == "lut" else lv
    layers: dict[int, list[int]] = {}
    for i, op in enumerate(ops):
        if op.code == "lut":
            layers.setdefault(level[i], []).append(i)
    if not layers:
        raise _Fail("no S-box layers")
    boxes = {}
    for k in sorted(layers):
        names = sorted({ops[i].imm[0] for i in layers[k]})
        if len(layers[k]) != 16:
            raise _Fail(f"S-box layer {k} has {len(layers[k])} lookups, not 16")
        vals = {tables[n].values for n in names}
        if len(vals) != 1 or next(iter(vals)) not in (s, si):
            raise _Fail(f"S-box layer {k} uses {', '.join(names)} (AES rounds need S or S⁻¹ alone)")
        boxes[k] = "enc" if next(iter(vals)) == s else "dec"
    if len(set(boxes.values())) != 1:
        raise _Fail("S-box layers mix S and S⁻¹")
    family = boxes[1]
    perm = SR if family == "enc" else ISR
    where = {v: i for i, v in enumerate(perm)}  # byte m is read by lane where[m]

    atom: dict[int, int] = {}  # op id (inputs and lookups) -> atom number
    forms: list[Form] = []
    for i, op in enumerate(ops):
        code = op.code
        if code in ("input", "lut"):
            atom[i] = len(atom)
            forms.append(Form.atom(atom[i]))
        elif code == "const":
            forms.append(Form.constant(op.imm[0]))
        elif code == "xor":
            forms.append(forms[op.args[0]] ^ forms[op.args[1]])
        elif code == "not":
            forms.append(forms[op.args[0]].xor_const(0xFF))
        elif code in ("shl", "shr", "rotl"):
            forms.append(getattr(forms[op.args[0]], code)(op.imm[0]))
        elif code == "gmul":
            forms.append(forms[op.args[0]].gmul(op.imm[0], op.imm[1]))
        elif code in ("and", "or") and any(ops[a].code == "const" for a in op.args):
            a, c = (op.args[0], op.args[1]) if ops[op.args[1]].code == "const" else (op.args[1], op.args[0])
            f = forms[a]
            forms.append(f.and_const(ops[c].imm[0]) if code == "and" else f.or_const(ops[c].imm[0]))
        else:
            raise _Fail(f"{code} at {op.origin} is not affine over GF(2) (AES rounds are S-boxes and XOR networks)")
    kind: dict[int, tuple[Any, ...]] = {}  # atom -> ("key", name) | ("state", byte) | ("lut", level, op)
    for i, a in atom.items():
        op = ops[i]
        kind[a] = (
            ("key", op.imm[0])
            if op.code == "input" and op.imm[0] in slots
            else ("state", int(op.imm[0].rsplit("[", 1)[1][:-1]))
            if op.code == "input"
            else ("lut", level[i], i)
        )

    def split_form(f: Form, data_level: int) -> tuple[dict[int, tuple], list[tuple[str, tuple]], int]:
        """A form's data part (atom -> matrix), key part ((key name, matrix)...), constant; checks the data
        atoms belong to the layer before (level 0: the state inputs)."""
        data: dict[int, tuple] = {}
        keys: list[tuple[str, tuple]] = []
        for a in sorted(f.atoms()):
            k = kind[a]
            if k[0] == "key":
                keys.append((k[1], f.coeffs(a)))
            elif (k[0] == "state" and data_level == 0) or (k[0] == "lut" and k[1] == data_level):
                data[a] = f.coeffs(a)
            else:
                raise _Fail(f"a value mixes S-box layer {data_level + 1}'s inputs with other layers")
        return data, keys, f.const

    lane_atom: dict[int, int] = {}  # lane -> atom in the current layer (level 0: state bytes by index)
    for a, what in kind.items():
        if what[0] == "state":
            lane_atom[what[1]] = a
    steps: list[Step] = []
    nlayers = max(layers)
    for k in range(1, nlayers + 1):
        lanes_next: dict[int, int] = {}
        keyparts: dict[int, list] = {}
        for u in layers[k]:
            data, keys, cst = split_form(forms[ops[u].args[0]], k - 1)
            if cst:
                raise _Fail(f"S-box layer {k} input has a constant {cst:#04x}")
            m = _match_position(data, lane_atom, family, first=(k == 1))
            if m is None:
                raise _Fail(
                    f"the map into S-box layer {k} is not "
                    + ("the state bytes" if k == 1 else f"{'MixColumns' if family == 'enc' else 'InvMixColumns'}")
                )
            if where[m] in lanes_next:
                raise _Fail(f"two lookups of S-box layer {k} read the same byte")
            lanes_next[where[m]] = u
            keyparts[m] = keys
        key = _key(keyparts, slots, family, f"layer {k} key")
        origin = str(ops[layers[k][0]].origin or "")
        if k == 1:
            if key is not None:
                steps.append(Step("xor", key, origin))
        else:
            steps.append(Step("aesenc" if family == "enc" else "aesdec", key, origin))
        lane_atom = {lane: atom[u] for lane, u in lanes_next.items()}
    keyparts = {}
    for name, v in fn.outputs:
        j = int(name.rsplit("[", 1)[1][:-1])
        data, keys, cst = split_form(forms[v], nlayers)
        if cst or data != {lane_atom[j]: IDENTITY}:
            raise _Fail(f"output {name} is not the last S-box layer's lane {j} XOR a key")
        keyparts[j] = keys
    origin = str(ops[fn.outputs[0][1]].origin or "")
    steps.append(
        Step("aesenclast" if family == "enc" else "aesdeclast", _key(keyparts, slots, family, "last key"), origin)
    )
    return Program(family, tuple(steps))


def _match_position(data: dict, lane_atom: dict[int, int], family: str, first: bool) -> int | None:
    """Which byte m of the (Inv)MixColumns output (first layer: of the state) the data part is."""
    by_atom = {a: lane for lane, a in lane_atom.items()}
    if first:
        if len(data) == 1:
            ((a, mat),) = data.items()
            if mat == IDENTITY and a in by_atom:
                return by_atom[a]
        return None
    got = {by_atom.get(a, -1): mat for a, mat in data.items()}
    for m in range(16):
        if got == _mix_row(family, m):
            return m
    return None


def _key(parts: dict[int, list], slots: dict, family: str, what: str) -> Key | None:
    """The 16 key parts (position m -> [(key input, matrix)]) as one Key load, or None when all are empty."""
    if not any(parts.values()):
        return None
    for imc in (False, True):
        k = _key_as(parts, slots, imc)
        if k is not None:
            return k
    raise _Fail(f"{what} is not 16 consecutive round-key bytes (or InvMixColumns of them)")


def _key_as(parts: dict[int, list], slots: dict, imc: bool) -> Key | None:
    first = parts[0]
    ident = [(n, mat) for n, mat in first if mat == (IDENTITY if not imc else matrix_of(14, POLY))]
    if not ident:
        return None
    member, idx = slots[ident[0][0]]
    base = idx
    for m in range(16):
        want = {}
        if imc:
            c, r = divmod(m, 4)
            for q in range(4):
                want[(member, base + 4 * c + q)] = matrix_of(MIX["dec"][(q - r) % 4], POLY)
        else:
            want[(member, base + m)] = IDENTITY
        got = {slots[n]: mat for n, mat in parts.get(m, [])}
        if got != want:
            return None
    return Key(member, base, imc)
