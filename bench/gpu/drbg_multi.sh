#!/usr/bin/env bash
# On the GPU machine (1 or 2 GPUs, nvcc; from the repository root): CTR_DRBG bulk output on one and two GPUs.
# Builds the LEA-128 / AES-128 / ARIA-128 CUDA and C libraries, runs the DRBG GPU tests (GPU output == the C
# DRBG), benchmarks DRBG bulk at 128 MiB and 1 GiB on 1 GPU and (if present) 2 GPUs in the same run
# (bench/gpu/drbg_multi.py: host chain, from a plan, plan + GPU serial and pipelined; SHA-256 == the C DRBG),
# the split sweep for SPLIT_MIN, and with nsys an Nsight Systems summary of one 2-GPU 128 MiB call.
# Everything goes to $OUT; the tables are printed last.  Under 5 minutes from an empty cache.
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

stage "host chain (P_drbg_plan, ms per GiB; no GPU involved)"
timeout 45 python3 bench/drbg/host_chain.py --ciphers lea128,aes128,aria128 2>&1 | tee "$OUT/host_chain.txt" || rc=1

stage "GPU tests: DRBG bulk == the C DRBG (1 GPU; on 2 GPUs also split at every size and under the threshold)"
timeout 120 python3 -m pytest tests/differential/test_cuda_drbg_gpu.py tests/differential/test_cuda_multigpu_gpu.py \
  -k "drbg and (lea128 or aes128 or aria128 or many_independent)" -q -p no:cacheprovider -n "$(( ngpu > 1 ? 4 : 2 ))" 2>&1 | tee "$OUT/tests.log" | tail -6
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

stage "benchmark: 128 MiB and 1 GiB, 1 GPU$( [ "$ngpu" -gt 1 ] && echo ' and 2 GPUs')"
timeout 150 python3 bench/gpu/drbg_multi.py --out "$OUT" ${DRBG_MULTI_ARGS:-} > "$OUT/bench.log" 2>&1 || rc=1
grep -v "^|\|^$\|^- " "$OUT/bench.log" | tail -30

if [ "$ngpu" -gt 1 ]; then
  stage "hand-over A/B: LEA-128 from a plan, kept threads polling (default) vs sleeping (CIPHERSPEC_MG_SPIN_US=0)"
  timeout 90 python3 bench/gpu/mg_handoff.py --out "$OUT" 2>&1 | tee "$OUT/mg_handoff.log" | tail -8 || rc=1
fi

if [ "$ngpu" -gt 1 ] && command -v nsys > /dev/null; then
  stage "nsys: one 2-GPU 128 MiB LEA-128 call from a plan (summary only)"
  prof=$(mktemp -d)
  timeout 60 nsys profile -t cuda,osrt -o "$prof/one" -f true python3 bench/gpu/drbg_multi.py --profile-one \
    > "$OUT/nsys_run.txt" 2>&1 || true
  [ -f "$prof/one.nsys-rep" ] && timeout 40 nsys stats -r cuda_api_sum,cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,osrt_sum \
    -f column "$prof/one.nsys-rep" > "$OUT/nsys_summary.txt" 2>&1
  [ -f "$prof/one.nsys-rep" ] && timeout 30 nsys stats -r cuda_gpu_trace -f csv "$prof/one.nsys-rep" 2>/dev/null \
    | tail -40 > "$OUT/nsys_gpu_trace_tail.csv"
  rm -rf "$prof"
  head -60 "$OUT/nsys_summary.txt" 2>/dev/null
fi

stage "results"
sed -n '/^| cipher/,$p' "$OUT/bench.log"
stage "done rc=$rc"
exit $rc
