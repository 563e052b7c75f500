"""toolchain/nvcc.parse_report: ptxas -v's report, each kernel with its own frame, registers and spills."""

from __future__ import annotations

from toolchain.nvcc import parse_report

# the shape ptxas 13 prints for a kernel that calls a __noinline__ device function (the key-schedule kernel and
# P_derive, generator/ptx/templates/key.cu.j2): the called function's properties come after its caller's
REPORT = """\
ptxas info    : Compiling entry function '_Z2ksPj' for 'sm_90'
ptxas info    : Function properties for _Z2ksPj
    432 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 432 bytes cumulative stack size
ptxas info    : Function properties for _Z6derivePKjPVj
    0 bytes stack frame, 632 bytes spill stores, 648 bytes spill loads
ptxas info    : Compiling entry function '_Z3ctrPj' for 'sm_90'
ptxas info    : Function properties for _Z3ctrPj
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 128 registers, used 1 barriers
"""


def test_a_called_functions_frame_is_its_own_not_its_callers():
    rep = parse_report(REPORT, "sm_90")
    assert set(rep.kernels) == {"_Z2ksPj", "_Z3ctrPj"}
    ks = rep.kernels["_Z2ksPj"]
    assert (ks.stack, ks.spill_stores, ks.spill_loads, ks.registers) == (432, 0, 0, 255)
    assert rep.kernels["_Z3ctrPj"].clean and rep.kernels["_Z3ctrPj"].registers == 128
    derive = rep.functions["_Z6derivePKjPVj"]
    assert (derive.spill_stores, derive.spill_loads) == (632, 648)
