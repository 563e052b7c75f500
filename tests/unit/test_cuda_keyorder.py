"""The derived key words' order (generator/ptx/keyorder.py): every offset a bitsliced core's round loop reads is
the same for two members of one spec template (AES-128 / AES-256, ARIA-128 / ARIA-256), whatever their round
counts; the order is a permutation of the split's; and where the loops' keys do not line up, the split's order
stays."""

from __future__ import annotations

import pytest
from shipped import shipped_cuda_source

from cipherspec.ir import Function
from generator.ptx import keyorder
from generator.ptx.build import schedule_for
from generator.ptx.irbuild import Builder
from generator.ptx.lanes import lanes_for
from generator.ptx.roundloop import RoundLoop
from generator.ptx.source import prepared


def _offsets(registry, name: str) -> tuple[dict, int]:
    """Per loop: the words its pre and post parts read, its body's first words and step (in the struct's order)."""
    module = registry.module(name)
    sched = schedule_for(module, None)
    lay = lanes_for(prepared(module, sched), sched.layout, reroll=True, ctr_hoist=sched.hoist)
    assert lay.derived_first
    index = {n: k for k, (n, _) in enumerate(lay.derive.outputs)}

    def read(fn: Function) -> list[int]:
        return [index[op.imm[0]] for op in fn.ops if op.code == "input" and op.imm[0] in index]

    out = {}
    for f, lp in lay.loops.items():
        assert lp is not None, f
        out[f] = (read(lp.pre), read(lp.post), lp.stride(index))
    return out, lay.derived


@pytest.mark.parametrize("a, b", [("aes128", "aes256"), ("aria128", "aria256")])
def test_round_loop_offsets_do_not_depend_on_the_round_count(registry, a, b):
    oa, na = _offsets(registry, a)
    ob, nb = _offsets(registry, b)
    assert na < nb and oa.keys() == ob.keys() and {"encrypt", "decrypt", "ctr_main"} <= oa.keys()
    for f in oa:
        assert oa[f] == ob[f], f
    # encrypt's rows and decrypt's interleave: each steps by both widths
    assert oa["encrypt"][2][1] == oa["decrypt"][2][1] == 2 * len(oa["encrypt"][2][0])


def _loop(keys: list[list[str]]) -> RoundLoop:
    empty = Builder("x").function([])
    return RoundLoop(empty, empty, empty, len(keys), tuple(map(tuple, keys)), 1)


def _derive(n: int) -> Function:
    b = Builder("derive")
    return b.function([(f"D[{k}]", b.input(f"rk[{k}]")) for k in range(n)])


def test_rows_interleave_after_the_fixed_words():
    """Two loops of three rows each over new words: D[0..1] read by no loop part come first (here: by no core,
    so last), then row i of the first loop's region beside row i of the second's."""
    derive = _derive(8)
    loops = {"e": _loop([["D[2]"], ["D[3]"], ["D[4]"]]), "d": _loop([["D[5]"], ["D[6]"], ["D[7]"]])}
    cores = {"e": derive, "d": derive}
    got = keyorder.reorder(derive, cores, loops)
    assert got is not None and got.rows == 3
    assert [n for n, _ in got.derive.outputs] == ["D[2]", "D[5]", "D[3]", "D[6]", "D[4]", "D[7]", "D[0]", "D[1]"]


def test_a_loop_reading_a_region_at_a_row_offset_shares_it():
    derive = _derive(4)
    loops = {"e": _loop([["D[0]"], ["D[1]"], ["D[2]"], ["D[3]"]]), "m": _loop([["D[1]"], ["D[2]"], ["D[3]"]])}
    got = keyorder.reorder(derive, {"e": derive, "m": derive}, loops)
    assert got is not None and got.rows == 4 and [n for n, _ in got.derive.outputs] == ["D[0]", "D[1]", "D[2]", "D[3]"]


def test_loops_that_do_not_line_up_keep_the_split_order():
    derive = _derive(6)
    uneven = {"e": _loop([["D[0]"], ["D[1]"], ["D[2]"]]), "d": _loop([["D[3]"], ["D[4]"]])}  # 3 rows and 2
    assert keyorder.reorder(derive, {"e": derive, "d": derive}, uneven) is None
    partial = {"e": _loop([["D[0]"], ["D[1]"]]), "d": _loop([["D[1]"], ["D[5]"]])}  # half in a region
    assert keyorder.reorder(derive, {"e": derive, "d": derive}, partial) is None
    assert keyorder.reorder(derive, {"e": derive}, {"e": None}) is None


def _cores_text(registry, name: str) -> str:
    """Every core device function of ``name``'s shipped source (as `cipherspec build` writes it) (cs_enc_ptx, its _pre/_body/_post, cs_dec, cs_menc,
    cs_main ...), the library prefix made one."""
    import re

    src = shipped_cuda_source(name)
    cu = src.cu.replace(src.symbol, "P")
    funcs = re.findall(
        r"^(?:template <[^\n]*\n)?__device__ __forceinline__ void cs_(?:enc|dec|menc|main)_\w+\(.*?^\}$",
        cu,
        re.M | re.S,
    )
    assert len(funcs) >= 16, name  # (four cores, each a loop and its three parts)
    return "\n".join(funcs)


def test_the_looped_cores_are_one_text_for_the_members(registry):
    """The run-time-count wrappers (cores.rt_name: the trip counts read from the struct's word 0, rows - the rows a
    loop does not run) print the same for AES-128 and AES-256, and so do the parts they share with the literal-count
    wrappers: the members' cores differ only in the literal wrappers' counts."""
    import re

    a, b = _cores_text(registry, "aes128"), _cores_text(registry, "aes256")
    assert "const int trips = (int)rk.w[0] - 1;" in a  # (the CTR core: its loop starts a round later)
    assert "cs_main_rt_ptx(" in a and "cs_menc_rt_ptx(" in a
    literal = re.compile(r"for \(int i = 0; i < \d+; \+\+i\)")
    assert literal.search(a) and a != b
    assert literal.sub("for (COUNT)", a) == literal.sub("for (COUNT)", b)
