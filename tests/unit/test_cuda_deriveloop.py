"""deriveloop.split on derive functions built to have its structure, or almost: rows that derive their words by
the same planes loop; rows whose slots do not step evenly, rows another row's op reads, and classes of two rows do
not.  (The real ciphers' loops, and their values against the interpreter: test_cuda_host_keysched.py.)"""

from __future__ import annotations

from generator.ptx import deriveloop
from generator.ptx.irbuild import Builder


def _derive(rows: int, slots=lambda r, p: 4 * r + p, cross: bool = False):
    """rk[r][0..1] (two words a row, flat offsets 2r, 2r+1) -> per row four derived words: the planes of bits 0 and
    1 of word 0, their XOR, and the plane of bit 0 of word 1; at slots(r, p).  cross: one more word, the XOR of row
    0's and row 1's first planes (an op reading two rows)."""
    b = Builder("derive")
    one, zero = b.const(1), b.const(0)
    outs, first = [], []
    for r in range(rows):
        w0, w1 = b.input(f"rk[{r}][0]"), b.input(f"rk[{r}][1]")
        p0 = b.op("sub", zero, b.op("and", w0, one))
        p1 = b.op("sub", zero, b.op("and", b.op("shr", w0, imm=1), one))
        q0 = b.op("sub", zero, b.op("and", w1, one))
        first.append(p0)
        for p, v in enumerate((p0, p1, b.op("xor", p0, p1), q0)):
            outs.append((slots(r, p), v))
    if cross:
        outs.append((4 * rows, b.op("xor", first[0], first[1])))
    outs.sort()
    fn = b.function([(f"D[{s}]", v) for s, v in outs])
    index = {f"rk[{r}][{j}]": 2 * r + j for r in range(rows) for j in range(2)}
    return fn, index, {n: s for s, (n, _) in enumerate(fn.outputs)}


def test_rows_of_the_same_planes_loop():
    fn, index, slot = _derive(5)
    rest, loops = deriveloop.split(fn, index, slot)
    assert [(lp.array, lp.first, lp.step, lp.count, lp.in_base, lp.in_stride, lp.out_stride) for lp in loops] == [
        ("rk", 0, 1, 5, 0, 2, 4)
    ]
    assert len(loops[0].body.outputs) == 4 and not rest.outputs


def test_slots_that_do_not_step_evenly_stay_straight():
    """Row 1's words in reverse: no run of MIN_ROWS rows steps evenly, and no residue mod 2-4 has MIN_ROWS rows."""
    fn, index, slot = _derive(4, slots=lambda r, p: 4 * r + (p if r != 1 else 3 - p))
    rest, loops = deriveloop.split(fn, index, slot)
    assert loops == [] and rest is fn
    fn, index, slot = _derive(5, slots=lambda r, p: 4 * r + (p if r != 3 else 3 - p))  # five: rows 0, 2, 4 loop
    rest, loops = deriveloop.split(fn, index, slot)
    assert [(lp.first, lp.step, lp.count) for lp in loops] == [(0, 2, 3)] and len(rest.outputs) == 2 * 4


def test_a_row_that_another_reads_stays_straight():
    fn, index, slot = _derive(5, cross=True)  # rows 0 and 1 feed a word of both: rows 2 .. 4 still loop
    rest, loops = deriveloop.split(fn, index, slot)
    assert [(lp.first, lp.count) for lp in loops] == [(2, 3)]
    assert len(rest.outputs) == 2 * 4 + 1


def test_two_rows_do_not_loop():
    fn, index, slot = _derive(deriveloop.MIN_ROWS - 1)
    assert deriveloop.split(fn, index, slot) == (fn, [])


def test_odd_and_even_rows_in_two_orders_loop_apart():
    fn, index, slot = _derive(8, slots=lambda r, p: 4 * r + (p if r % 2 == 0 else 3 - p))
    rest, loops = deriveloop.split(fn, index, slot)
    assert sorted((lp.first, lp.step, lp.count) for lp in loops) == [(0, 2, 4), (1, 2, 4)]
    assert not rest.outputs


def test_the_longest_run_that_steps_evenly_loops():
    """Row 3's words in reverse: rows 0 .. 2 loop, row 3 stays straight (keyorder.py puts a round loop's rows in
    order and the first and last rounds' words apart)."""
    fn, index, slot = _derive(4, slots=lambda r, p: 4 * r + (p if r != 3 else 3 - p))
    rest, loops = deriveloop.split(fn, index, slot)
    assert [(lp.first, lp.step, lp.count, lp.out_stride) for lp in loops] == [(0, 1, 3, 4)]
    assert len(rest.outputs) == 4


def test_outputs_stepping_apart_loop_with_their_own_strides():
    """Words 0, 1 of a row forward, words 2, 3 backward (keyorder.py's rows: an encrypt plane and its decrypt
    twin): one loop, a stride per output, none common."""
    fn, index, slot = _derive(5, slots=lambda r, p: 4 * r + p if p < 2 else 4 * (4 - r) + p)
    rest, loops = deriveloop.split(fn, index, slot)
    assert [(lp.first, lp.count, lp.out_stride) for lp in loops] == [(0, 5, 0)] and not rest.outputs
    assert sorted(loops[0].out_strides.values()) == [-4, -4, 4, 4]
