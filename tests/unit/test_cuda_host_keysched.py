"""The CUDA library's host key schedule (generated C, keysched.py) vs the interpreter, via the host C compiler."""

from __future__ import annotations

import numpy as np
import pytest
from ci_scope import full_matrix
from cuda_support import host_round_keys
from shipped import shipped_registry

from cipherspec.blockcipher import RefCipher
from generator.ptx.placement import rk_index
from generator.ptx.source import prepared

NAMES = shipped_registry().names()


@pytest.mark.parametrize("name", NAMES)
def test_host_key_schedule(registry, tmp_path, name):
    module = prepared(registry.module(name))
    idx = rk_index(module)
    ref = RefCipher(registry.module(name))
    keys = np.random.default_rng(9).integers(0, 256, (4, ref.key_bytes), dtype=np.uint8)
    got = host_round_keys(module, keys, tmp_path)
    for k in range(4):
        want = ref.expand_key(keys[k].tobytes())
        for n, i in idx.items():
            assert got[k, i] == int(np.asarray(want[n]).reshape(-1)[0]), (k, n)


def test_multi_key_launch_uses_the_encrypt_only_schedule(registry, tmp_path):
    """ARIA's multi-key launch (CTR_DRBG bulk) runs the schedule cut to ek: the same ek words as the full one,
    no dk word written; AES has one array, so its launch runs the one schedule."""
    from generator.ptx.keysched import key_section

    module = prepared(registry.module("aria128"))
    idx = rk_index(module)
    sec = key_section(module, "cs")
    assert sec.entry_enc == "cs_key_schedule_enc" and "cs_key_schedule_enc(" in sec.text
    keys = np.random.default_rng(3).integers(0, 256, (3, 16), dtype=np.uint8)
    full = host_round_keys(module, keys, tmp_path)
    enc = host_round_keys(module, keys, tmp_path, "key_schedule_enc")
    ek = [i for n, i in idx.items() if n.startswith("ek[")]
    dk = [i for n, i in idx.items() if n.startswith("dk[")]
    assert len(ek) == len(dk) > 0
    assert (enc[:, ek] == full[:, ek]).all() and not enc[:, dk].any() and full[:, dk].any()
    assert key_section(prepared(registry.module("aes128")), "cs").entry_enc == ""


@pytest.mark.skipif(
    not full_matrix(),
    reason="~40 s (ARIA's whole CUDA source and its key section through g++): CIPHERSPEC_FULL_MATRIX=1",
)
def test_multi_key_expansion_of_a_lane_layout_is_encrypt_only(registry, tmp_path):
    """ARIA's default CUDA layout (bitsliced: set_key also derives bit planes of every round-key word): the
    multi-key launch runs P_expand_key_enc -- the ek words and the planes derived from them alone, equal to the
    full expansion's; the dk words and their planes are not written (the keystream reads none of them)."""
    from cuda_support import run_host_c

    from generator.ptx.ctchoice import default_for
    from generator.ptx.source import generate

    module = registry.module("aria128")
    src = generate(module, default_for(prepared(module)))
    P = src.symbol
    assert f"        {P}_expand_key_enc((const uint8_t *)kst + threadIdx.x * 16u, cs_smem + threadIdx.x * " in src.cu
    start = src.cu.index("// ---------------------------------------------------------------------------- key schedule")
    end = src.cu.index("\n}\n", src.cu.index(f"static void {P}_expand_key_enc(")) + 3
    nw = int(src.cu[src.cu.index(f"{P}_key_schedule_multi") :].split("rks + r0 * ", 1)[1].split(";", 1)[0])
    keys = np.random.default_rng(5).integers(0, 256, (2, 16), dtype=np.uint8)
    code = [
        src.cu[start:end],
        f"static const uint8_t keys[2][16] = {{{', '.join('{' + ', '.join(map(str, k)) + '}' for k in keys)}}};",
        f"int main(void) {{ static uint32_t a[{nw}], b[{nw}]; for (int k = 0; k < 2; ++k) {{",
        f"  memset(a, 0, sizeof a); memset(b, 0, sizeof b); {P}_expand_key(keys[k], a); {P}_expand_key_enc(keys[k], b);",
        f'  for (int i = 0; i < {nw}; ++i) printf("%u %u\\n", a[i], b[i]); }} return 0; }}',
    ]
    out = run_host_c(code, tmp_path, "x", "-O0")
    words = np.array(out, dtype=np.uint64).reshape(2, nw, 2)
    full, enc = words[..., 0], words[..., 1]
    written = (enc != 0).any(axis=0)
    assert (enc[:, written] == full[:, written]).all()
    idx = rk_index(prepared(module))
    ek = [i for n, i in idx.items() if n.startswith("ek[")]
    dk = [i for n, i in idx.items() if n.startswith("dk[")]
    assert written[ek].all() and not written[dk].any()
    assert written.sum() < nw * 0.6  # about half: the dk words' planes are left out too


def test_derived_words_are_a_called_function_apart_from_the_schedule(registry, tmp_path):
    """A lane layout's derived words (HIGHT's SWAR layout: 32 of them) are a function of their own, called by
    P_expand_key and not inlined on the device (__noinline__ under __CUDA_ARCH__), reading the schedule's
    words through one __restrict__ pointer and storing through another, volatile one (nvcc compiled the inlined
    form in seconds per library: bench/results/cuda-build-time.md).  Its values: test_cuda_cpu.py runs HIGHT's
    SWAR library whole."""
    import re

    from generator.ptx.keysched import key_section
    from generator.ptx.lanes import lanes_for

    module = prepared(registry.module("hight"))
    lay = lanes_for(module, "swar")
    nrk = len(rk_index(module))
    text = key_section(module, "cs", lay.derive).text
    assert "#if defined(__CUDA_ARCH__)\n#define CS_DERIVE __noinline__" in text
    # on the host (g++) at -Og: over half of a bitsliced library's host compile at -O1 (cuda-build-time.md)
    assert '#define CS_DERIVE __attribute__((optimize("Og")))' in text
    head = "CS_HD static CS_DERIVE void cs_derive(const uint32_t *__restrict__ rk, volatile uint32_t *__restrict__ d)"
    assert head in text
    body = text.split(head, 1)[1].split("\n}\n", 1)[0]
    reads = {int(i) for i in re.findall(r"\brk\[(\d+)\]", body)}
    writes = [int(i) for i in re.findall(r"^\s*d\[(\d+)\] =", body, re.M)]
    # rows looped over (deriveloop.py): kr = rk + B + S * k, dk = d + T * k for k < C; their words and slots too
    # (where a row's outputs step apart, each stored at d[J + T * k] or d[J - T * k])
    loops = re.findall(
        r"k < (\d+);.*\n.*kr = rk \+ (\d+) \+ (\d+) \* k;(?:\n.*dk = d \+ (\d+) \* k;)?((?:\n        .*)*)", body
    )
    for count, base, step, out, inner in loops:
        for k in range(int(count)):
            reads |= {int(base) + int(step) * k + int(j) for j in re.findall(r"\bkr\[(\d+)\]", inner)}
            writes += [int(out or 0) * k + int(j) for j in re.findall(r"^\s*dk\[(\d+)\] =", inner, re.M)]
            for j, sign, t in re.findall(r"^\s*d\[(\d+) ([-+]) (\d+) \* k\] =", inner, re.M):
                writes.append(int(j) + (int(t) if sign == "+" else -int(t)) * k)
    assert reads and max(reads) < nrk and sorted(writes) == list(range(lay.derived))
    expand = text.split("cs_expand_key(const uint8_t *key, uint32_t *rk)", 1)[1].split("\n}\n", 1)[0]
    assert expand.split("{", 1)[1].split() == ["cs_key_schedule(key,", "rk);", "cs_derive(rk,", "rk", "+", f"{nrk});"]


@pytest.mark.parametrize(
    "name, loops, reroll",
    [("aes128", 1, False), ("aes256", 1, False), ("hight", 4, False), ("aria128", 4, False)]
    + [("aes128", 1, True), ("aria128", 4, True)],  # (the round loops' order of the derived words: keyorder.py)
)
def test_derived_words_in_row_loops_equal_the_interpreter(registry, tmp_path, name, loops, reroll):
    """deriveloop.py prints the network that each row of a key array derives by the same ops once, in a loop over
    the rows (AES-128: rk[1 .. 9], 2,009 ops a row, 21,400 lines -> 3,300), and rows whose derived words are the same
    bit planes however their networks were shaped, a loop for each parity where their words sit in two orders
    (ARIA-128: ek and dk, odd and even rounds: 27,900 lines -> 6,800).  The compiled P_derive of random round-key words == the interpreter's run of
    the derive function, every derived word, the looped ones and the straight ones."""
    import re

    from cuda_support import run_host_c

    from cipherspec import interp
    from generator.ptx.build import schedule_for
    from generator.ptx.keysched import key_section
    from generator.ptx.lanes import lanes_for

    module = prepared(registry.module(name))
    sched = schedule_for(registry.module(name), None)
    lay = lanes_for(module, sched.layout, reroll=reroll, ctr_hoist=reroll and sched.hoist)
    assert lay.derived_first == reroll
    idx = rk_index(module)
    text = key_section(module, "cs", lay.derive).text
    body = text.split("CS_DERIVE void cs_derive(", 1)[1].split("\n}\n", 1)[0]
    assert len(re.findall(r"^    for \(int k = 0; k < \d+; \+\+k\) \{", body, re.M)) == loops
    widths = {op.imm[0]: op.width for op in lay.derive.ops if op.code == "input"}
    rng = np.random.default_rng(11)
    words = [rng.integers(0, 1 << min(widths.get(n, 32), 32), 3, dtype=np.uint64) for n in idx]  # 3 keys' worth
    nd = len(lay.derive.outputs)
    code = [
        text,
        f"static const uint32_t w[3][{len(idx)}] = {{{', '.join('{' + ', '.join(str(int(x[k])) for x in words) + '}' for k in range(3))}}};",
        f"int main(void) {{ static uint32_t d[{nd}]; for (int k = 0; k < 3; ++k) {{ cs_derive(w[k], d);",
        f'  for (int i = 0; i < {nd}; ++i) printf("%u\\n", d[i]); }} return 0; }}',
    ]
    out = run_host_c(code, tmp_path, "d")
    got = np.array(out, dtype=np.uint64).reshape(3, nd)
    want = interp.run(lay.derive, {n: np.array(words[i], dtype=np.uint64) for n, i in idx.items()}, module.tables)
    for k, (dname, _) in enumerate(lay.derive.outputs):
        assert (got[:, k] == np.asarray(want[dname], dtype=np.uint64) % (1 << 32)).all(), (name, dname)
