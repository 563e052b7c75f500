#!/usr/bin/env bash
# On the GPU machine (1 or 2 GPUs, nvcc; from the repository root): CTR_DRBG bulk output on one and two GPUs,
# the per-call fixed cost broken into phases.  Builds the LEA-128 / AES-128 / ARIA-128 CUDA and C libraries; first
# the A/B of the call, LEA-128 at 128 MiB and 1 GiB, library-timed on 1 and 2 GPUs with the ratio and the fixed cost:
# whole waves (the default: one wave of CTAs, each an equal share of the call's blocks across requests, the V's
# staged as they are; the fused key schedule, the plan read mapped) and the former grid of CTAs per request with a
# plan of descriptors (CIPHERSPEC_MG_WAVE=0: 6.2 waves on one H200 at 128 MiB, 3.1 on each of two), once each (the
# two launches, CIPHERSPEC_MG_FUSED=0, measured no better; the GPU tests still run them).  Then the DRBG GPU tests
# (GPU output == the C DRBG: the context's lone, phased, library-timed and asynchronous calls, whole waves over
# AES/ARIA/LEA), then bench/gpu/drbg_multi.py (LEA-128 at 128 MiB and 1 GiB, AES-128 and ARIA-128 at 1 GiB) on 1 GPU
# and (if present) 2 GPUs in the same run: from a plan timed inside the library (P_mg_time_multi) and from Python,
# plan + GPU, pipelined, and per GPU the phases of the median call (host timestamps: hand-over, plan staged,
# enqueued, wait returned; GPU events: plan copy, key schedule, keystream, clearing); every output's SHA-256 == the
# C DRBG's; the split sweep.  Everything goes to $OUT;
# the tables are printed last.  Each stage bounded (build 110 s, A/B 2 x 25, tests 50, benchmark 2 x 45: under 5 minutes);
# LEA-128's A/B runs first.  An empty build cache may not finish the AES/ARIA bitsliced nvcc builds in the build
# stage (~2.5 min in parallel): build them on the CPU machine first and carry .cs-cache --
#   CIPHERSPEC_CACHE=$PWD/.cs-cache bash bench/gpu/drbg_multi.sh prebuild     (CPU machine: the build stage only)
#   bash bench/gpu/drbg_multi.sh            (the lead carries .whl/ and .cs-cache as for bench/gpu/run.sh)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cipherspec-drbg-multi}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} TORCH_SYMM_MEM_DISABLE_MULTICAST=${TORCH_SYMM_MEM_DISABLE_MULTICAST:-1}
{ nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,pcie.link.width.current,memory.total,driver_version \
    --format=csv; nvcc --version | tail -1; grep -m1 "model name" /proc/cpuinfo; nproc; git log --oneline -1; } \
  | tee "$OUT/device.txt"
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
[ "${1:-}" = prebuild ] && ngpu=0

stage "build: lea128, aes128, aria128 (CUDA default schedules, C libraries, the C DRBG loop)"
timeout 110 python3 - <<'PY' 2>&1 | tee "$OUT/build.log" | tail -3 || rc=1
import os, sys
sys.path.insert(0, "bench/gpu")
from bench import build_all
from cipherspec.registry import Registry
from generator.c import BACKEND as C_BACKEND
names = ("lea128", "aes128", "aria128")
res = build_all([(n, None) for n in names], min(len(names), os.cpu_count() or 4))
print("cuda builds:", {k: v for k, v in res.items() if v != "ok"} or "all ok")
for n in names:
    C_BACKEND.load(Registry(), n, None, None)
print("c libraries built")
PY
[ "${1:-}" = prebuild ] && { stage "prebuilt into ${CIPHERSPEC_CACHE:-the default cache}"; exit $rc; }

# (each stage bounded: about 290 s at most in all; the LEA-128 A/B, the issue's open row, runs first)
stage "A/B of the call, LEA-128 library-timed, 1 vs 2 GPUs: whole waves (default) | CTAs per request and a plan of descriptors, the former way (CIPHERSPEC_MG_WAVE=0)"
for ab in "wave:" "ctas:CIPHERSPEC_MG_WAVE=0"; do
  name=${ab%%:*}
  env ${ab#*:} timeout 25 python3 bench/gpu/drbg_multi.py --ab "$name" --ciphers lea128 --mib 128,1024 --reps 11 \
    --phase-reps 7 >> "$OUT/ab.log" 2>&1 || rc=1
done
grep "^| switch" "$OUT/ab.log" | head -1; grep "^|---" "$OUT/ab.log" | head -1; grep "^| \(wave\|ctas\) " "$OUT/ab.log"

stage "GPU tests: DRBG bulk == the C DRBG (1 GPU; on 2 GPUs also split at every size and under the threshold)"
timeout 50 python3 -m pytest tests/differential/test_cuda_drbg_gpu.py tests/differential/test_cuda_multigpu_gpu.py \
  -k "drbg and (lea128 or aes128 or aria128 or many_independent)" -q -p no:cacheprovider -n "$(( ngpu > 1 ? 4 : 2 ))" 2>&1 | tee "$OUT/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

stage "benchmark: LEA-128 at 128 MiB and 1 GiB, AES-128 and ARIA-128 at 1 GiB; 1 GPU$( [ "$ngpu" -gt 1 ] && echo ' and 2 GPUs'), with the phases"
timeout 45 python3 bench/gpu/drbg_multi.py --out "$OUT/lea" --ciphers lea128 --mib 128,1024 --reps 5 --phase-reps 5 \
  --sweep-mib 16,64,128 > "$OUT/bench.log" 2>&1 || rc=1
timeout 45 python3 bench/gpu/drbg_multi.py --out "$OUT/aes-aria" --ciphers aes128,aria128 --mib 1024 --reps 3 \
  --phase-reps 3 > "$OUT/bench-aes-aria.log" 2>&1 || rc=1
grep -hv "^|\|^$\|^- \|^Phases" "$OUT/bench.log" "$OUT/bench-aes-aria.log" | tail -30

stage "results"
sed -n '/^| cipher/,$p' "$OUT/bench.log" "$OUT/bench-aes-aria.log"
stage "done rc=$rc"
exit $rc
