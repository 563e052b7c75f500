"""The tensor-core GHASH alone (templates/tgh.cu.j2), its compile-time variants side by side, on the GPU:
builds one cipher's CUDA source as `cipherspec build` makes it, compiles a harness that includes it once per
variant (-D flags), and times cs_tgh_hash over a device-resident message (CUDA events, median of 5 batches of
5 calls) beside the library's CTR pass on the same buffer.  Every variant must give the same hash.

    python3 bench/gpu/tgh_bench.py [--cipher lea128] [--mib 1024] [--variants "default;-DCS_TGH_CHAINS=1;..."]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cipherspec.registry import Registry  # noqa: E402
from generator.ptx.build import schedule_for  # noqa: E402
from generator.ptx.source import generate  # noqa: E402

HARNESS = r"""
#include "LIB.cu"
#include <cstdio>
#include <algorithm>
__global__ void cs_fill(uint32_t *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (uint32_t)(i * 2654435761u) ^ 0x9e3779b9u;
}
int main(int argc, char **argv)
{
    const size_t nbytes = (size_t)atol(argv[1]) << 20;
    uint8_t *d = NULL, *o = NULL;
    if (cudaMalloc(&d, nbytes) || cudaMalloc(&o, nbytes)) return 2;
    cs_fill<<<1024, 256>>>((uint32_t *)d, nbytes / 4);
    P_gcm_key k;
    uint8_t key[P_KEYB] = {1, 2, 3, 4};
    if (P_gcm_set_key(&k, key, sizeof key)) return 3;
    uint32_t (*dh)[4] = NULL, *part = NULL;
    cudaMalloc(&dh, sizeof k.h);
    cudaMalloc(&part, 16);
    cudaMemcpy(dh, k.h, sizeof k.h, cudaMemcpyHostToDevice);
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float gh[6], ct[6];
    uint8_t iv[16] = {0};
    for (int b = 0; b < 6; ++b) {
        cudaEventRecord(e0);
        for (int r = 0; r < 5; ++r) if (cs_tgh_hash(dh, d, nbytes, part, sms, 0)) return 4;
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&gh[b], e0, e1);
        cudaEventRecord(e0);
        for (int r = 0; r < 5; ++r) if (P_ctr_dev(&k.rk, iv, d, o, nbytes, 0)) return 5;
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ct[b], e0, e1);
    }
    {  // the pieces of cs_tgh_hash at this size: the powers' matrices, then the first (fused) kernel alone
        const uint64_t n = nbytes / 16, ntiles = ((n + 3) / 4 + 15) / 16, target = (uint64_t)sms * 32;
        uint64_t tw = 1;
        while ((ntiles + tw - 1) / tw > target) tw *= 4;
        const uint64_t nw = (ntiles + tw - 1) / tw;
        const int levels = 20;
        uint32_t *mat = NULL, *v = NULL;
        uint4 *cols = NULL;
        cudaMalloc(&mat, (size_t)(levels + 1) * CS_TGH_LEVEL_WORDS * 4);
        cudaMalloc(&cols, (size_t)levels * 512 * 16);
        cudaMalloc(&v, (22 * nw + 64) * 16);
        float a = 0, f = 0;
        cudaEventRecord(e0);
        for (int r = 0; r < 5; ++r) {
            cs_tgh_columns<<<levels, 512>>>(dh, cols);
            cs_tgh_frags<<<(levels + 1) * 8, 256>>>(cols, mat);
        }
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&a, e0, e1);
        cs_tgh_first<2, true><<<(unsigned)((nw + 3) / 4), 128>>>(d, n, nbytes, tw, mat, mat + levels * CS_TGH_LEVEL_WORDS, v);
        cudaEventRecord(e0);
        for (int r = 0; r < 5; ++r)
            cs_tgh_first<2, true><<<(unsigned)((nw + 3) / 4), 128>>>(d, n, nbytes, tw, mat, mat + levels * CS_TGH_LEVEL_WORDS, v);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&f, e0, e1);
        printf("pieces: matrices %.3f ms, first kernel %.3f ms (tw %llu, %llu warps)\n", a / 5, f / 5,
               (unsigned long long)tw, (unsigned long long)nw);
    }
    std::sort(gh + 1, gh + 6);
    std::sort(ct + 1, ct + 6);
    uint32_t h[4];
    cudaMemcpy(h, part, 16, cudaMemcpyDeviceToHost);
    const double g = gh[3] / 5, c = ct[3] / 5;
    printf("ghash %.3f ms (%.0f Gbps)  ctr %.3f ms (%.0f Gbps)  gcm/ctr bound %.2f  hash %08x%08x%08x%08x  %s\n", g,
           nbytes * 8 / g / 1e6, c, nbytes * 8 / c / 1e6, c / (c + g), h[0], h[1], h[2], h[3],
           cudaGetErrorString(cudaGetLastError()));
    return 0;
}
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cipher", default="lea128")
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument(
        "--variants",
        default="default;-DCS_TGH_STAGES=4;-DCS_TGH_MINB=3",
        help="';'-separated nvcc flag sets ('default': none)",
    )
    args = ap.parse_args()
    args.variants = ["" if v.strip() == "default" else v.strip() for v in args.variants.split(";")]
    m = Registry().module(args.cipher)
    src = generate(m, schedule_for(m, None))
    d = Path(tempfile.mkdtemp())
    (d / f"{src.name}.cu").write_text(src.cu)
    (d / f"{src.name}.h").write_text(src.h)
    p = re.search(r"int (\w+)_gcm_set_key", src.h).group(1)
    keyb = re.search(r"#define \w+_KEY_BYTES (\d+)", src.h).group(1)
    text = HARNESS.replace("LIB", src.name).replace("P_gcm", f"{p}_gcm").replace("P_ctr", f"{p}_ctr")
    (d / "harness.cu").write_text(text.replace("P_KEYB", keyb))

    def build(i_v):
        i, v = i_v
        exe = d / f"h{i}"
        cmd = ["nvcc", "-O3", "-arch=sm_90", "-std=c++17", *v.split(), "-o", str(exe), str(d / "harness.cu")]
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=d)
        return exe, r.returncode, r.stderr[-800:]

    with ThreadPoolExecutor(len(args.variants)) as ex:
        built = list(ex.map(build, enumerate(args.variants)))
    hashes = set()
    for v, (exe, rc, err) in zip(args.variants, built):
        if rc:
            print(f"[{v or 'default'}] build failed: {err}")
            continue
        out = subprocess.run([str(exe), str(args.mib)], capture_output=True, text=True)
        print(f"[{v or 'default'}] {out.stdout.strip()} {out.stderr.strip()[-300:]} rc={out.returncode}", flush=True)
        hashes.update(re.findall(r" hash ([0-9a-f]{32})", out.stdout))
    if built and not built[0][1]:  # the first variant's SASS: instructions of the fused kernel, by opcode
        dump = subprocess.run(["cuobjdump", "-sass", str(built[0][0])], capture_output=True, text=True).stdout
        funcs = re.split(r"\n\s*Function : ", dump)
        sass = next((f for f in funcs if "cs_tgh_first" in f.split("\n", 1)[0]), "")
        ops = re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", sass)
        hist: dict[str, int] = {}
        for o in ops:
            hist[o.split(".")[0]] = hist.get(o.split(".")[0], 0) + 1
        if os.environ.get("OUT"):
            Path(os.environ["OUT"], "tgh-first.sass").write_text(sass)
        top = sorted(hist.items(), key=lambda kv: -kv[1])[:14]
        print(f"cs_tgh_first SASS: {len(ops)} instructions; " + ", ".join(f"{k} {v}" for k, v in top))
    print("variants agree" if len(hashes) == 1 else f"VARIANTS DISAGREE: {sorted(hashes)}")
    return 0 if len(hashes) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
