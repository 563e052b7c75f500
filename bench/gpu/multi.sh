#!/usr/bin/env bash
# On the GPU machine (1 GPU or several): every GPU of the host -- build, GPU tests (multi-GPU entries == the
# single-GPU entries == the C library; the host-buffer, DRBG and default-schedule tests, which now run through
# the multi-GPU path), then the benchmark (bench/gpu/multi.py: copy bandwidth, multi-GPU scaling, host
# streaming, CTR_DRBG vs the C DRBG).  Logs and multi.json go to $OUT; the tables are printed last.
#   bash bench/gpu/multi.sh [check|bench|all]          (the lead carries .whl/ as for bench/gpu/run.sh)
set -uo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
OUT=${OUT:-/tmp/cipherspec-multi}; mkdir -p "$OUT"
. bench/gpu/device_env.sh
# nothing here uses NCCL or NVLink multicast; keep the workplace's switches as they are set
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} TORCH_SYMM_MEM_DISABLE_MULTICAST=${TORCH_SYMM_MEM_DISABLE_MULTICAST:-1}
{ nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,pcie.link.width.current,memory.total,driver_version \
    --format=csv; nvidia-smi topo -m 2>/dev/null | head -6; nvcc --version | tail -1; grep -m1 "model name" /proc/cpuinfo;
  nproc; } | tee "$OUT/device.txt"
rc=0; t0=$(date +%s)
stage() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
stage build
timeout 200 python3 - <<'PY' 2>&1 | tail -3 || rc=1
import os, sys
sys.path.insert(0, "bench/gpu")
from bench import build_all
from cipherspec.registry import Registry
from generator.c import BACKEND as C_BACKEND
res = build_all([(n, None) for n in Registry().names()], os.cpu_count() or 8)  # every default: the tests run them
print("cuda builds:", {k: v for k, v in res.items() if v != "ok"} or "all ok")
for n in ("lea128", "aes128", "aria128", "hight"):
    C_BACKEND.load(Registry(), n, None, None)
print("c libraries built")
PY
if [ "$what" = check ] || [ "$what" = all ]; then
  stage "GPU tests: multi-GPU entries, host buffers, DRBG bulk, default schedules"
  timeout 200 python3 -m pytest tests/differential/test_cuda_multigpu_gpu.py tests/differential/test_cuda_drbg_gpu.py \
    tests/differential/test_cuda_gpu.py -k "multigpu or drbg or default or host_streams or errors" \
    -q -n 8 -p no:cacheprovider 2>&1 | tee "$OUT/tests.log" | tail -8
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  stage "benchmark"
  timeout 150 python3 bench/gpu/multi.py --out "$OUT" ${MULTI_ARGS:-} > "$OUT/bench.log" 2>&1
  [ $? = 0 ] || rc=1
  grep -v "^|\|^###\|^$\|^CPU:\|^- " "$OUT/bench.log" | tail -40  # the measurements as they came
  # the tables, last (from multi.json, which is saved after every stage: a cut-short run still reports)
  python3 bench/gpu/multi_report.py "$OUT/multi.json" > "$OUT/gpu-multi.md" 2>&1
  sed -n '/^### Machine/,$p' "$OUT/gpu-multi.md"
fi
stage "done rc=$rc"
exit $rc
