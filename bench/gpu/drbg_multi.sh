#!/usr/bin/env bash
# On the GPU machine (1 or 2 GPUs, nvcc; from the repository root): CTR_DRBG bulk output on one and two GPUs,
# the per-call fixed cost broken into phases.  Builds the LEA-128 / AES-128 / ARIA-128 CUDA and C libraries,
# runs the DRBG GPU tests (GPU output == the C DRBG, incl. the context's lone, phased, library-timed and
# asynchronous calls), then bench/gpu/drbg_multi.py at 128 MiB and 1 GiB on 1 GPU and (if present) 2 GPUs in
# the same run: from a plan timed inside the library (P_mg_time_multi) and from Python, plan + GPU, pipelined,
# and per GPU the phases of the median call (host timestamps: hand-over, plan staged, enqueued, wait returned;
# GPU events: plan copy, key schedule, keystream, clearing); every output's SHA-256 == the C DRBG's; the split
# sweep.  Last, the A/B of the call, LEA-128 at 128 MiB and 1 GiB, library-timed on 1 and 2 GPUs with the ratio and
# the fixed cost: whole waves (the default: one wave of CTAs, each an equal share of the call's blocks across
# requests; the fused key schedule, the plan read mapped), the former grid of CTAs per request (CIPHERSPEC_MG_WAVE=0:
# 6.2 waves on one H200 at 128 MiB, 3.1 on each of two) and the two launches with whole waves
# (CIPHERSPEC_MG_FUSED=0), alternating, twice each.  Everything goes to $OUT; the tables are printed last.
# About 5 minutes on 2 GPUs with a warm build cache (the A/B: 6 runs of ~20 s), 6 from an empty one.
#   bash bench/gpu/drbg_multi.sh            (the lead carries .whl/ as for bench/gpu/run.sh)
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

stage "build: lea128, aes128, aria128 (CUDA default schedules, C libraries, the C DRBG loop)"
timeout 150 python3 - <<'PY' 2>&1 | tee "$OUT/build.log" | tail -3 || rc=1
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

stage "GPU tests: DRBG bulk == the C DRBG (1 GPU; on 2 GPUs also split at every size and under the threshold)"
timeout 130 python3 -m pytest tests/differential/test_cuda_drbg_gpu.py tests/differential/test_cuda_multigpu_gpu.py \
  -k "drbg and (lea128 or aes128 or aria128 or many_independent)" -q -p no:cacheprovider -n "$(( ngpu > 1 ? 4 : 2 ))" 2>&1 | tee "$OUT/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

stage "benchmark: 128 MiB and 1 GiB, 1 GPU$( [ "$ngpu" -gt 1 ] && echo ' and 2 GPUs'), with the phases"
timeout 150 python3 bench/gpu/drbg_multi.py --out "$OUT" ${DRBG_MULTI_ARGS:-} > "$OUT/bench.log" 2>&1 || rc=1
grep -v "^|\|^$\|^- \|^Phases" "$OUT/bench.log" | tail -30

stage "A/B of the call, LEA-128 library-timed, 1 vs 2 GPUs: whole waves (default) | CTAs per request, the former grid (CIPHERSPEC_MG_WAVE=0) | two launches, whole waves (CIPHERSPEC_MG_FUSED=0), alternating, twice each"
for ab in "wave:" "ctas:CIPHERSPEC_MG_WAVE=0" "two-launch:CIPHERSPEC_MG_FUSED=0" "wave:" "ctas:CIPHERSPEC_MG_WAVE=0" "two-launch:CIPHERSPEC_MG_FUSED=0"; do
  name=${ab%%:*}
  env ${ab#*:} timeout 60 python3 bench/gpu/drbg_multi.py --ab "$name" --ciphers lea128 --mib 128,1024 --reps 15 \
    --phase-reps 9 >> "$OUT/ab.log" 2>&1 || rc=1
done
grep "^| switch" "$OUT/ab.log" | head -1; grep "^|---" "$OUT/ab.log" | head -1; grep "^| \(wave\|ctas\|two-launch\) " "$OUT/ab.log"

stage "results"
sed -n '/^| cipher/,$p' "$OUT/bench.log"
stage "done rc=$rc"
exit $rc
