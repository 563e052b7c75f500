"""Run a generated CUDA library on the CPU: the whole .cu -- kernels, both flavours, host API -- built
with the host C++ compiler against tests/support/cuda_cpu.h and loaded with the runtime's CudaCipher.

Checks everything a GPU run checks except the GPU itself: the kernels' loops, guards, shared-memory
fills and barriers, the CTR segment logic and tails, the multi-key kernel, the layouts' transforms, and
(after a text rewrite) every inline-PTX statement, evaluated by the same instruction semantics as
generator/ptx/emulate.py.  Not checked: timing, real concurrency, memory spaces.

    c = cpu_cipher(registry, "hight", "swar_t64")     # a runtime.cuda_target.CudaCipher over the CPU build
    c.device_ctr(rk, iv, data, flavour="ptx")          # the same calls as on a GPU

    before: uint32_t v5; asm("xor.b32 %0, %1, %2;" : "=r"(v5) : "r"(x[0]), "r"(rk.w[0]));
    after:  uint32_t v5; v5 = cs_emu_xor_b32((x[0]), (rk.w[0]));
    A launch is CS_LAUNCH(k, grid, block, smem, stream)(args...) in a generated source (device.cu.j2), which the
    shim defines to run the grid.
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

from generator.ptx import asmblock
from generator.ptx.build import schedule_for
from generator.ptx.source import generate
from runtime.cuda_target import CudaCipher
from toolchain.cc import Toolchain, compile_cached

SHIM = Path(__file__).with_name("cuda_cpu.h")
_ASM = re.compile(r'asm(?:\s+volatile)?\("([^"]*)"\s*:\s*"=r"\(((?:[^()]|\([^()]*\))*)\)\s*:\s*(.*?)\);')
_IN = re.compile(r'"r"\(((?:[^()]|\([^()]*\))*)\)')


def _asm_call(m: re.Match) -> str:
    template, dst, ins = m.group(1), m.group(2), _IN.findall(m.group(3))
    parts = template.strip().rstrip(";").replace(",", " ").split()
    op, operands = parts[0], parts[2:]  # parts[1] is %0, the destination
    args = [f"({ins[int(t[1:]) - 1]})" if t.startswith("%") else f"(uint32_t){t.rstrip('u')}u" for t in operands]
    return f"{dst} = cs_emu_{op.replace('.', '_')}({', '.join(args)});"


def cpu_text(text: str) -> str:
    """A generated .cu or .h rewritten for the CPU shim."""
    text = text.replace("#include <cuda_runtime.h>", '#include "cuda_cpu.h"')
    # a block-scope extern inside the anonymous namespace would name a new symbol: use the shim's array
    text = text.replace("extern __shared__ uint32_t cs_smem[];", "/* cs_smem: the shim's shared memory */")
    return _ASM.sub(_asm_call, asmblock.expand(text))


def gcm_keystream_entry(P: str) -> str:
    """A C entry to the GCM keystream kernel alone, appended to a CPU build with GCM: on a GPU that kernel runs
    only beside the tensor cores' GHASH, which the shim has not (compute capability 7), so the GCM calls never
    reach it here.  The descriptors and CTA map as P_gcm_batch_dev makes them (G: blocks a unit), then
    P_gcm_keystream_run: out = in XOR the records' GCM keystreams.

        cs_cpu_gcm_keystream(keys, msgs, nmsg, G, dec, in, out) -> 0 (CS_OK) or an error code
    """
    return f"""
extern "C" int cs_cpu_gcm_keystream(const {P}_gcm_key *keys, const {P}_gcm_msg *msgs, uint64_t nmsg, uint64_t G,
                                    int dec, const uint8_t *in, uint8_t *out)
{{
    uint64_t maxu = 0, nt = 0, us = 0, nctas = 0;
    for (uint64_t r = 0; r < nmsg; ++r) {{
        const uint64_t u = ((msgs[r].len + 15) / 16 + G - 1) / G;
        if (u > maxu) maxu = u;
    }}
    {P}_gcm_batch_shape(maxu, &nt, &us);
    std::vector<{P}_gdesc> d(nmsg);
    std::vector<uint32_t> map;
    for (uint64_t r = 0; r < nmsg; ++r) {{
        const uint64_t ns = (((msgs[r].len + 15) / 16 + G - 1) / G + us - 1) / us;
        uint8_t j0[16] = {{0}};
        memcpy(j0, msgs[r].iv, 12);
        j0[15] = 1;
        {P}_gcm_desc(j0, msgs[r].off, msgs[r].len, 0, 0, msgs[r].key, (uint32_t)nctas, (uint32_t)ns, 16, &d[r]);
        for (uint64_t c = 0; c < ns; ++c) map.push_back((uint32_t)r);
        nctas += ns;
    }}
    return {P}_gcm_keystream_run(keys, d.data(), map.data(), nctas, nt, us, dec, in, out, 0);
}}
"""


def gcm_keyed_entry(P: str) -> str:
    """A C entry to a bitsliced layout's keyed GCM keystream alone (P_gcm_keyed_run: the records listed by key,
    a launch a key with its round keys in constant memory, then the records' E(K, J0)), which on a GPU runs
    only beside the tensor cores' GHASH.  Descriptors as P_gcm_batch_dev makes them.

        cs_cpu_gcm_keyed(keys, nkeys, msgs, nmsg, in, out, ej) -> 1 (the route ran), 0 (the batch is not its
        shape) or a negative error code; out = in XOR the keystreams, ej + 16 r: record r's E(K, J0)
    """
    return f"""
extern "C" int cs_cpu_gcm_keyed(const {P}_gcm_key *keys, uint32_t nkeys, const {P}_gcm_msg *msgs, uint64_t nmsg,
                                const uint8_t *in, uint8_t *out, uint32_t *ej)
{{
    std::vector<{P}_gdesc> d(nmsg);
    uint64_t max_len = 0;
    for (uint64_t r = 0; r < nmsg; ++r) {{
        uint8_t j0[16] = {{0}};
        memcpy(j0, msgs[r].iv, 12);
        j0[15] = 1;
        {P}_gcm_desc(j0, msgs[r].off, msgs[r].len, 0, 0, msgs[r].key, (uint32_t)r, 1, 16, &d[r]);
        if (msgs[r].len > max_len) max_len = msgs[r].len;
    }}
    int rc = 0;
    const int ran = {P}_gcm_keyed_run(keys, nkeys, d.data(), nmsg, max_len, in, out, ej, 0, &rc);
    return rc ? -rc : ran;
}}
"""


BIG_SOURCE = 2_000_000  # characters of C++ above which the shim compiles at -O0


def build(src) -> Path:
    """The CPU shared library of a generate() result (cached by content)."""
    cu = cpu_text(src.cu) + (gcm_keystream_entry(src.symbol) if "_gcm_keystream_run(" in src.cu else "")
    cu += gcm_keyed_entry(src.symbol) if "_gcm_keyed_run(" in src.cu else ""
    sources = {f"{src.name}.cpp": cu, f"{src.name}.h": cpu_text(src.h), "cuda_cpu.h": SHIM.read_text()}
    # -O1, but -O0 for the bitsliced cores' multi-megabyte sources: g++ -O1 spends ~3x the compile on them
    # (AES-128 bs_t32, 8.7 MB: 37 s against 13 s of CPU) for a run of a few hundred blocks
    opt = "-O0" if len(cu) > BIG_SOURCE else "-O1"
    tc = Toolchain(cc="g++", flags=("-std=c++17", opt, "-w", "-fno-strict-aliasing"))
    return compile_cached(sources, [f"{src.name}.cpp"], "shared", tc)


def cpu_cipher(registry, name: str, schedule: str | None, rounds: int | None = None, rk_pad: int = 0) -> CudaCipher:
    """``rk_pad``: the round-key struct's words at least (source.generate's: a family's size, as `cipherspec build`
    pads it: build.family_rk_words)."""
    module = registry.module(name, rounds)
    sched = schedule_for(module, schedule)
    src = generate(module, sched, rounds, rk_pad=rk_pad)
    return CudaCipher(module, sched, src, lib=ctypes.CDLL(str(build(src))))
